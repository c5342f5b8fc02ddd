import { describe, expect, it } from 'vitest'
import { extractJson, isCutShort, parseJsonLines, stripThinking } from '../../src/text/json'

describe('stripThinking', () => {
  it('removes closed, unclosed and half-stripped reasoning blocks', () => {
    expect(stripThinking('<think>hmm {"x":1}</think>{"a":1}')).toBe('{"a":1}')
    expect(stripThinking('{"a":1}<think>still thinking')).toBe('{"a":1}')
    expect(stripThinking('reasoning without an opening tag</think>\n{"a":1}')).toBe('\n{"a":1}')
    expect(stripThinking('<thinking>a</thinking>b<think>c</think>d')).toBe('bd')
  })
})

describe('extractJson', () => {
  it('parses plain JSON', () => {
    expect(extractJson('{"should_remember": true, "reason": "birthday"}')).toEqual({ should_remember: true, reason: 'birthday' })
    expect(extractJson(' [1, 2, 3] ')).toEqual([1, 2, 3])
  })

  it('ignores reasoning blocks, even when they contain JSON', () => {
    expect(extractJson('<think>maybe {"should_remember": false}?</think>\n{"should_remember": true}')).toEqual({ should_remember: true })
  })

  it('reads a fenced block and ignores the prose around it', () => {
    const answer = 'Sure! Here is my answer:\n```json\n{"should_remember": false}\n```\nLet me know [if] you need more.'
    expect(extractJson(answer)).toEqual({ should_remember: false })
  })

  it('skips leading prose that contains brackets which are not JSON', () => {
    expect(extractJson('Result [see below]: {"a": [1, 2]} done')).toEqual({ a: [1, 2] })
  })

  it('repairs near-JSON: single quotes, trailing commas, Python booleans, unquoted keys', () => {
    expect(extractJson("{'should_remember': True, reason: 'plans',}")).toEqual({ should_remember: true, reason: 'plans' })
  })

  it('repairs unescaped quotes inside strings', () => {
    expect(extractJson('{"reason": "他说"明天见"了"}')).toEqual({ reason: '他说"明天见"了' })
  })

  it('repairs a truncated answer', () => {
    expect(extractJson('{"should_remember": true, "reason": "her birthday is on Oct')).toEqual({
      should_remember: true,
      reason: 'her birthday is on Oct',
    })
  })

  it('reads an unclosed fence', () => {
    expect(extractJson('```json\n{"a": 1}')).toEqual({ a: 1 })
  })

  it('throws a clear error when there is no JSON', () => {
    expect(() => extractJson('I think this should be remembered.')).toThrow(/no JSON object or array in the answer: "I think this/)
    expect(() => extractJson('<think>only thoughts {"a":1}</think>')).toThrow(/empty/)
    expect(() => extractJson('')).toThrow(/empty/)
  })
})

describe('parseJsonLines', () => {
  it('reads one value per line, skipping blanks, fences, comments and prose', () => {
    const answer = [
      'Here are the facts:',
      '```jsonl',
      '{"id": 1, "action": "keep"}',
      '',
      '// the next one changed',
      '# also a comment',
      '{"id": 2, "action": "update", "text": "新内容"}',
      '```',
    ].join('\n')
    expect(parseJsonLines(answer)).toEqual({
      values: [
        { id: 1, action: 'keep' },
        { id: 2, action: 'update', text: '新内容' },
      ],
      failures: [],
    })
  })

  it('repairs lines one by one and never loses good lines to a bad one', () => {
    const answer = ['{"id": 1}', "{'id': 2, ok: True,}", '{"id": 3, "text": "cut', '{{{ ::: }}} ]]', '- {"id": 5},'].join('\n')
    const result = parseJsonLines(answer)
    expect(result.values).toEqual([{ id: 1 }, { id: 2, ok: true }, { id: 3, text: 'cut' }, { id: 5 }])
    expect(result.failures).toEqual(['{{{ ::: }}} ]]'])
  })

  it('accepts a JSON array as the whole answer, fenced or not', () => {
    expect(parseJsonLines('[{"id": 1}, {"id": 2}]').values).toEqual([{ id: 1 }, { id: 2 }])
    expect(parseJsonLines('```json\n[\n  {"id": 1},\n  {"id": 2}\n]\n```').values).toEqual([{ id: 1 }, { id: 2 }])
    expect(parseJsonLines("[{'id': 1}, {'id': 2},]").values).toEqual([{ id: 1 }, { id: 2 }])
  })

  it('falls back to lines when a multi-line array is broken', () => {
    const result = parseJsonLines('[\n{"id": 1},\n{"id": 2, oops},\n{"id": 3}\n]')
    expect(result).toEqual({ values: [{ id: 1 }, { id: 3 }], failures: ['{"id": 2, oops},'] })
  })

  it('drops trailing prose and comments after a value on its line', () => {
    expect(parseJsonLines('{"a": 1} // trailing\n{"b": 2} and some text').values).toEqual([{ a: 1 }, { b: 2 }])
  })

  it('ignores reasoning blocks', () => {
    expect(parseJsonLines('<think>{"id": 9}</think>\n{"id": 1}').values).toEqual([{ id: 1 }])
  })

  it('returns nothing for an empty answer', () => {
    expect(parseJsonLines('')).toEqual({ values: [], failures: [] })
  })
})

describe('extractJson and an answer with a slip', () => {
  it('reads the whole object when it has a trailing comma, not the valid array inside it', () => {
    expect(extractJson('{"facts": ["a"],}')).toEqual({ facts: ['a'] })
    expect(extractJson('Here you are: {"facts": [{"about": "Alice", "fact": "x"}],}')).toEqual({ facts: [{ about: 'Alice', fact: 'x' }] })
  })

  it('still skips prose in brackets before the answer', () => {
    expect(extractJson('[note] the answer is {"a": 1}')).toEqual({ a: 1 })
    expect(extractJson('see [the list {"a": 1}] below')).toEqual({ a: 1 })
  })
})

describe('isCutShort', () => {
  it.each([
    ['{"facts": ["a", "b', true],
    ['```json\n{"facts": [{"fact": "x"}, {"fa', true],
    ['<think>let me see</think>\n[{"a": 1}, {"a"', true],
    ['{"facts": ["a"]}', false],
    ['```json\n{"facts": ["a"],}\n```', false],
    ['[note] see below {"facts": []}', false],
    ['{"facts": ["he said "hi" to me"]}', false],
    ['no json at all', false],
  ])('%j → %s', (text, cut) => {
    expect(isCutShort(text)).toBe(cut)
  })
})
