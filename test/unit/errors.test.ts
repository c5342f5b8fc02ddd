import { describe, expect, it } from 'vitest'
import { isTransientNetworkError, providerError, scrub } from '../../src/providers/errors'
import { ProviderError } from '../../src/providers/types'

describe('isTransientNetworkError', () => {
  it('finds a transient code anywhere in the cause chain', () => {
    const deep = new Error('outer', {
      cause: new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    })
    expect(isTransientNetworkError(deep)).toBe(true)
    expect(isTransientNetworkError(Object.assign(new Error('dns'), { code: 'EAI_AGAIN' }))).toBe(true)
    expect(isTransientNetworkError(new TypeError('fetch failed'))).toBe(true)
  })

  it('rejects other errors', () => {
    expect(isTransientNetworkError(new Error('invalid json'))).toBe(false)
    expect(isTransientNetworkError(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe(false)
    expect(isTransientNetworkError(undefined)).toBe(false)
  })
})

describe('scrub', () => {
  it('removes secrets, flattens whitespace and shortens', () => {
    expect(scrub('key sk-abc123 rejected\n  twice: sk-abc123', ['sk-abc123', undefined])).toBe('key *** rejected twice: ***')
    expect(scrub('x'.repeat(400), [], 10)).toBe(`${'x'.repeat(10)}…`)
  })

  it('ignores very short secrets that would shred the text', () => {
    expect(scrub('a b c', ['a'])).toBe('a b c')
  })
})

describe('providerError', () => {
  it('derives retryability from the status, or from the network cause without one', () => {
    expect(providerError('p', 'm', 429, null)).toMatchObject({ status: 429, retryable: true })
    expect(providerError('p', 'm', 404, null)).toMatchObject({ status: 404, retryable: false })
    expect(providerError('p', 'm', undefined, Object.assign(new Error(), { code: 'ECONNRESET' }))).toMatchObject({ retryable: true })
    const plain = providerError('p', 'm', undefined, new Error('bug'))
    expect(plain).toBeInstanceOf(ProviderError)
    expect(plain.retryable).toBe(false)
    expect((plain as any).cause).toBeInstanceOf(Error)
  })
})
