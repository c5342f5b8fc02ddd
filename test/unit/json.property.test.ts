import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extractJson } from '../../src/text/json'

/** Text inside JSON strings, rich in what the extractor looks for around JSON. */
const tricky = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      '\\',
      ',',
      ':',
      '```',
      '~~~',
      '//',
      '/*',
      'NaN',
      'True',
      '：',
      '，',
      '\n',
      '“',
      '<think>',
      '</think>',
    ),
  ),
  maxLength: 12,
})

/** JSON objects and arrays (what an answer is asked for) with such strings as keys and values. */
const container = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    tie('container'),
  ),
  container: fc.oneof(fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(tricky, tie('value'), { maxKeys: 4 })),
})).container

/** Prose a model puts around its answer: no brackets, no fences. */
const prose = fc.string({ unit: fc.constantFrom('H', 'e', 'r', ' ', ':', '.', '!', '好', '的', '\n', '*', '-', '1'), maxLength: 30 })

const wrap = fc.constantFrom(
  (json: string) => json,
  (json: string) => `\`\`\`json\n${json}\n\`\`\``,
  (json: string) => `\`\`\`\n${json}\n\`\`\``,
  (json: string) => `<think>the user wants JSON</think>\n${json}`,
  (json: string) => `\ufeff${json}`,
)

describe('extractJson (property)', () => {
  it('reads back any JSON object or array, however indented, fenced or surrounded by prose', () => {
    fc.assert(
      fc.property(container, fc.constantFrom(0, 2, '\t'), wrap, prose, prose, (value, indent, fence, before, after) => {
        const json = JSON.stringify(value, null, indent)
        const answer = `${before}${before ? '\n' : ''}${fence(json)}${after ? '\n' : ''}${after}`
        expect(extractJson(answer)).toEqual(JSON.parse(json))
      }),
      { numRuns: 300 },
    )
  })

  it('reads back a JSON object or array written out as a JSON string', () => {
    fc.assert(
      fc.property(container, (value) => {
        expect(extractJson(JSON.stringify(JSON.stringify(value)))).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 150 },
    )
  })
})
