import { describe, expect, it } from 'vitest'
import { l2normalize } from '../../src/providers/vectors'

describe('l2normalize', () => {
  it('scales to unit length in place', () => {
    const v = new Float32Array([3, 0, -4])
    expect(l2normalize(v)).toBe(v)
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), 0, expect.closeTo(-0.8, 6)])
  })

  it('leaves a zero vector at zero instead of producing NaN', () => {
    expect(Array.from(l2normalize(new Float32Array(3)))).toEqual([0, 0, 0])
  })
})
