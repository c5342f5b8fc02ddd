import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cleanId } from '../../src/scope'
import { cleanText } from '../../src/text/clean'

/** One UTF-16 unit of any kind (lone surrogates and control characters included), or a whole emoji. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('\u0000', '\u001f', '\u007f', '\ud800', '\udfff', '😀', '\\', 'u', '0', 'a', 'F', '\n', '\t', '\r'),
)
const anyString = fc.string({ unit, maxLength: 24 })

const CONTROL = /[\u0000-\u001f\u007f]/ // eslint-disable-line no-control-regex -- what is looked for
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
/** What cleanText keeps of the control characters: line breaks and tabs. */
const REMOVED_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/ // eslint-disable-line no-control-regex -- what is looked for

/** Reads `\uXXXX` back as the character it writes out. */
const decode = (id: string) => id.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

describe('cleanId (property)', () => {
  it('leaves no control character and no lone surrogate, and is idempotent (a stored id cleaned again is the same id)', () => {
    fc.assert(
      fc.property(anyString, (id) => {
        const clean = cleanId(id)
        expect(clean).not.toMatch(CONTROL)
        expect(clean).not.toMatch(LONE_SURROGATE)
        expect(cleanId(clean)).toBe(clean)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps distinct ids distinct: the written-out characters read back (ids that already hold a \\uXXXX aside)', () => {
    fc.assert(
      fc.property(
        anyString.filter((id) => !/\\u[0-9a-fA-F]{4}/.test(id)),
        (id) => {
          expect(decode(cleanId(id))).toBe(id)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('changes nothing in an id that needs nothing written out', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 24 }).filter((id) => !CONTROL.test(id)),
        (id) => {
          expect(cleanId(id)).toBe(id)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('cleanText (property)', () => {
  it('removes control characters but line breaks and tabs, leaves no lone surrogate, and is idempotent', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const clean = cleanText(text)
        expect(clean).not.toMatch(REMOVED_CONTROL)
        expect(clean).not.toMatch(LONE_SURROGATE)
        expect(cleanText(clean)).toBe(clean)
        expect(clean.replace(/\ufffd/g, '').length).toBeLessThanOrEqual(text.length)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps well-formed text with line breaks as it is', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }).filter((t) => !CONTROL.test(t))), (lines) => {
        const text = lines.join('\n\t')
        expect(cleanText(text)).toBe(text)
      }),
      { numRuns: 200 },
    )
  })
})
