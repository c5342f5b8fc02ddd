import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chunks } from '../../src/core/chunks'

describe('chunks (property)', () => {
  it('cuts any list into full slices of `size` and a last shorter one, losing and reordering nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 60 }), fc.integer({ min: 1, max: 16 }), (items, size) => {
        const parts = chunks(items, size)
        expect(parts.flat()).toEqual(items)
        expect(parts).toHaveLength(Math.ceil(items.length / size))
        parts.forEach((part, i) => {
          if (i < parts.length - 1) expect(part).toHaveLength(size)
          else expect(part.length).toBeGreaterThan(0)
        })
      }),
      { numRuns: 200 },
    )
  })
})
