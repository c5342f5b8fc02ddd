import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clip } from '../../src/text/clip'
import { countTokens, cutLength, truncateToTokens } from '../../src/text/token-count'

/** Mixed-script chat text: words, CJK, emoji, punctuation, line breaks. */
const chat = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    fc.constantFrom(' ', ' ', '\n', '。', '！', '.', '?', 'hello', '今天', '😀', '👨‍👩‍👧', 'ok', '<|endoftext|>'),
  ),
  maxLength: 40,
})

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('clip (property)', () => {
  it('never exceeds its budget in characters, and keeps a prefix of the text', () => {
    fc.assert(
      fc.property(chat, fc.integer({ min: 0, max: 30 }), (text, max) => {
        const out = clip(text, max)
        expect([...out].length).toBeLessThanOrEqual(max)
        if ([...text].length <= max) expect(out).toBe(text)
        else expect(text.startsWith(out.replace(/…$/, ''))).toBe(true)
        expect(out).not.toMatch(LONE_SURROGATE)
      }),
      { numRuns: 300 },
    )
  })
})

describe('token budgets (property)', () => {
  it('truncateToTokens never exceeds its budget nor splits a character, and keeps the text whole when it fits', () => {
    fc.assert(
      fc.property(chat, fc.integer({ min: 0, max: 12 }), (text, max) => {
        const out = truncateToTokens(text, max)
        expect(countTokens(out)).toBeLessThanOrEqual(max)
        expect(out).not.toMatch(LONE_SURROGATE)
        if (countTokens(text.trim()) <= max) expect(out).toBe(max > 0 ? text.trim() : '')
      }),
      { numRuns: 150 },
    )
  })

  it('cutLength gives the longest prefix that, with "…", fits and ends on a whole character', () => {
    fc.assert(
      fc.property(chat, fc.integer({ min: 1, max: 12 }), (text, max) => {
        const length = cutLength(text, max)
        expect(text.slice(0, length)).not.toMatch(LONE_SURROGATE)
        if (length > 0) expect(countTokens(text.slice(0, length) + '…')).toBeLessThanOrEqual(max)
        const next = length + ([...text.slice(length)][0]?.length ?? 0)
        if (length < text.length) expect(countTokens(text.slice(0, next) + '…')).toBeGreaterThan(max)
      }),
      { numRuns: 150 },
    )
  })
})
