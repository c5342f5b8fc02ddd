import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { extractJson } from '../../src/text/json'

/**
 * Answers the way chat models really return JSON, and what should be read from each. Cases with a
 * `schema` are read the way `generateStructured` reads them: the first candidate the schema accepts wins.
 */
const Facts = z.object({ facts: z.array(z.object({ about: z.string(), fact: z.string() })) })
const Score = z.object({ score: z.number().min(0).max(10) })

interface Case {
  name: string
  answer: string
  expected: unknown
  schema?: z.ZodTypeAny
}

const alice = { facts: [{ about: 'Alice', fact: 'Alice keeps two cats' }] }
const aliceJson = '{"facts": [{"about": "Alice", "fact": "Alice keeps two cats"}]}'

const CASES: Case[] = [
  // fences
  { name: 'json fence with prose around', answer: `Sure, here it is:\n\`\`\`json\n${aliceJson}\n\`\`\`\nAnything else?`, expected: alice },
  { name: 'fence without a language', answer: `\`\`\`\n${aliceJson}\n\`\`\``, expected: alice },
  { name: 'fence with an upper-case language', answer: `\`\`\`JSON\n${aliceJson}\n\`\`\``, expected: alice },
  { name: 'tilde fence', answer: `~~~json\n${aliceJson}\n~~~`, expected: alice },
  { name: 'indented fence in a list item', answer: `1. The facts:\n   \`\`\`json\n   ${aliceJson}\n   \`\`\``, expected: alice },
  { name: 'fence on one line', answer: `\`\`\`json ${aliceJson} \`\`\``, expected: alice },
  { name: 'fence body starting on the fence line', answer: `\`\`\`json{"score": 7}\n\`\`\``, expected: { score: 7 } },
  { name: 'unclosed fence (answer cut)', answer: '```json\n{"score": 4', expected: { score: 4 } },
  { name: 'CRLF line ends around a fence', answer: `Result:\r\n\`\`\`json\r\n${aliceJson}\r\n\`\`\`\r\n`, expected: alice },
  {
    name: 'two fences, the first an example of the format',
    answer: `The format is:\n\`\`\`json\n{"facts": "a list of {about, fact}"}\n\`\`\`\nMy answer:\n\`\`\`json\n${aliceJson}\n\`\`\``,
    expected: alice,
    schema: Facts,
  },
  {
    name: 'two fences, the first the wrong language',
    answer: `\`\`\`python\nfacts = extract(dialogue)\n\`\`\`\n\`\`\`json\n${aliceJson}\n\`\`\``,
    expected: alice,
  },
  { name: 'a bare "json" label line instead of a fence', answer: `json\n${aliceJson}`, expected: alice },
  { name: 'a "JSON:" label before the object', answer: `JSON: ${aliceJson}`, expected: alice },
  { name: 'markdown bold before the object', answer: `**Answer:** ${aliceJson}`, expected: alice },
  { name: 'prose after with brackets [1]', answer: `${aliceJson}\n\nNote [1]: Alice said so twice {see above}.`, expected: alice },
  { name: 'prose before with braces that are not JSON', answer: `I filled the {about} and {fact} slots: ${aliceJson}`, expected: alice },
  {
    name: 'a schema echoed before the answer',
    answer: `Schema: {"facts": [{"about": "<name>", "fact": <text>}]}\nAnswer: {"facts": []}`,
    expected: { facts: [] },
    schema: Facts,
  },

  // near-JSON
  { name: 'trailing comma in an object', answer: '{"score": 3,}', expected: { score: 3 } },
  {
    name: 'trailing comma in a nested array',
    answer: '{"facts": [{"about": "Bo", "fact": "Bo runs"},]}',
    expected: { facts: [{ about: 'Bo', fact: 'Bo runs' }] },
  },
  {
    name: 'trailing comma at both levels',
    answer: '{"facts": [{"about": "Bo", "fact": "Bo runs",},],}',
    expected: { facts: [{ about: 'Bo', fact: 'Bo runs' }] },
  },
  {
    name: 'single quotes',
    answer: "{'facts': [{'about': 'Bo', 'fact': 'Bo runs'}]}",
    expected: { facts: [{ about: 'Bo', fact: 'Bo runs' }] },
  },
  { name: 'single quotes with an escaped apostrophe', answer: "{'fact': 'Bo\\'s dog'}", expected: { fact: "Bo's dog" } },
  { name: 'unquoted keys', answer: '{facts: [{about: "Bo", fact: "Bo runs"}]}', expected: { facts: [{ about: 'Bo', fact: 'Bo runs' }] } },
  {
    name: 'line comments',
    answer: '{\n  "score": 6, // fairly useful\n  "why": "dates" // the reason\n}',
    expected: { score: 6, why: 'dates' },
  },
  { name: 'block comment', answer: '{"score": /* out of 10 */ 8}', expected: { score: 8 } },
  { name: 'smart double quotes', answer: '{“about”: “Bo”, “fact”: “Bo runs”}', expected: { about: 'Bo', fact: 'Bo runs' } },
  { name: 'smart single quotes', answer: '{‘score’: 2}', expected: { score: 2 } },
  { name: 'Python literals', answer: "{'keep': True, 'merge': False, 'about': None}", expected: { keep: true, merge: false, about: null } },
  {
    name: 'NaN and undefined become null',
    answer: '{"score": NaN, "about": undefined, "n": 1}',
    expected: { score: null, about: null, n: 1 },
  },
  { name: 'Infinity becomes null', answer: '{"a": Infinity, "b": -Infinity}', expected: { a: null, b: null } },
  { name: 'a missing comma between lines', answer: '{\n"about": "Bo"\n"fact": "Bo runs"\n}', expected: { about: 'Bo', fact: 'Bo runs' } },
  { name: 'a raw line break inside a string', answer: '{"fact": "line one\nline two"}', expected: { fact: 'line one\nline two' } },
  {
    name: 'unescaped quotes inside a string',
    answer: '{"fact": "she said "see you" and left"}',
    expected: { fact: 'she said "see you" and left' },
  },
  {
    name: 'full-width colon and comma between tokens',
    answer: '{"fact"："小明，22岁"，"score"：3}',
    expected: { fact: '小明，22岁', score: 3 },
  },
  { name: 'an extra closing brace', answer: '{"score": 5}}', expected: { score: 5 } },

  // truncated
  {
    name: 'cut mid-string',
    answer: '{"facts": [{"about": "Alice", "fact": "Alice moved to Ber',
    expected: { facts: [{ about: 'Alice', fact: 'Alice moved to Ber' }] },
  },
  {
    name: 'cut after a comma in an array',
    answer: '{"facts": [{"about": "A", "fact": "A sings"},',
    expected: { facts: [{ about: 'A', fact: 'A sings' }] },
  },
  { name: 'cut mid-array of numbers', answer: '[1, 2, 3', expected: [1, 2, 3] },
  {
    name: 'cut inside a fence with prose before',
    answer: 'Here:\n```json\n{"facts": ["Bo runs", "Bo swi',
    expected: { facts: ['Bo runs', 'Bo swi'] },
  },

  {
    name: 'cut inside the next element: the wrapper is kept',
    answer: '{"facts": [{"about": "A", "fact": "A sings"}, {"about": "B"',
    expected: { facts: [{ about: 'A', fact: 'A sings' }, { about: 'B' }] },
  },
  {
    name: 'cut inside a key: the unfinished element is dropped for the schema',
    answer: '{"facts": [{"about": "A", "fact": "A sings"}, {"ab',
    expected: { facts: [{ about: 'A', fact: 'A sings' }] },
    schema: Facts,
  },
  {
    name: 'cut in a fence after a complete element',
    answer: '```json\n{"facts": [\n  {"about": "A", "fact": "A sings"},\n  {"about": "B", "fact": "B da',
    expected: {
      facts: [
        { about: 'A', fact: 'A sings' },
        { about: 'B', fact: 'B da' },
      ],
    },
    schema: Facts,
  },

  // shapes
  { name: 'array at top level', answer: '[{"about": "Bo", "fact": "Bo runs"}]', expected: [{ about: 'Bo', fact: 'Bo runs' }] },
  { name: 'array of strings in a fence', answer: '```json\n["Bo runs", "Bo swims"]\n```', expected: ['Bo runs', 'Bo swims'] },
  { name: 'empty array', answer: 'Nothing worth keeping: []', expected: [] },
  { name: 'empty object', answer: '{}', expected: {} },
  {
    name: 'nested objects of the schema shape, with CJK and emoji',
    answer:
      '{"facts": [{"about": "小明", "fact": "小明下周三去杭州出差 ✈️"}, {"about": "Bo", "fact": "Bo\'s birthday is 2024-03-01"}], "reason": "plans"}',
    expected: {
      facts: [
        { about: '小明', fact: '小明下周三去杭州出差 ✈️' },
        { about: 'Bo', fact: "Bo's birthday is 2024-03-01" },
      ],
      reason: 'plans',
    },
  },
  {
    name: 'braces and brackets inside strings',
    answer: 'ok [x] {"fact": "uses {braces} and [brackets]"}',
    expected: { fact: 'uses {braces} and [brackets]' },
  },
  { name: 'escaped unicode', answer: '{"fact": "\\u5c0f\\u660e \\ud83d\\ude00"}', expected: { fact: '小明 😀' } },
  { name: 'two objects in a row: the first', answer: '{"score": 1}\n{"score": 2}', expected: { score: 1 } },

  // wrappers
  { name: 'byte order mark', answer: `\ufeff${aliceJson}`, expected: alice },
  {
    name: 'reasoning before the answer',
    answer: `<think>The user mentions cats {maybe "facts"?}. I'll answer.</think>\n${aliceJson}`,
    expected: alice,
  },
  {
    name: 'reasoning with a fenced draft inside',
    answer: `<think>draft:\n\`\`\`json\n{"facts": []}\n\`\`\`\n</think>\n\`\`\`json\n${aliceJson}\n\`\`\``,
    expected: alice,
  },
  { name: 'a closing think tag only', answer: `…so two cats.</think>\n\n${aliceJson}`, expected: alice },
  {
    name: 'an answer quoting a think tag in a value',
    answer: '{"facts": [{"about": "Bo", "fact": "Bo says his model prints </think> before answering"}]}',
    expected: { facts: [{ about: 'Bo', fact: 'Bo says his model prints </think> before answering' }] },
  },
  {
    name: 'reasoning, then an answer quoting a think tag',
    answer: '<think>Bo talks about tags.</think>\nHere: {"fact": "Bo strips <think> blocks"} done',
    expected: { fact: 'Bo strips <think> blocks' },
  },
  { name: 'double-encoded JSON string', answer: JSON.stringify(aliceJson), expected: alice },
  { name: 'double-encoded JSON string in a fence', answer: '```json\n"{\\"score\\": 9}"\n```', expected: { score: 9 } },
  { name: 'escaped quotes without the outer quotes', answer: '{\\n  \\"score\\": 3\\n}', expected: { score: 3 } },
  {
    name: 'a footnote in brackets before the answer',
    answer: 'As noted in [1], {"facts": []}',
    expected: { facts: [] },
    schema: Facts,
  },
  {
    name: 'two fences, the first broken',
    answer: '```json\n{"score": }\n```\n```json\n{"score": 4}\n```',
    expected: { score: 4 },
    schema: Score,
  },
  {
    name: 'the first object fails the schema, the next one passes',
    answer: 'Scoring {"score": "high"} — numerically: {"score": 8}',
    expected: { score: 8 },
    schema: Score,
  },
  {
    name: 'no candidate passes the schema: the first one is returned for the error',
    answer: '{"score": "high"} then {"score": "low"}',
    expected: { score: 'high' },
    schema: Score,
  },
]

describe('extractJson on answers models really give', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const accept = c.schema ? (value: unknown) => c.schema!.safeParse(value).success : undefined
    expect(extractJson(c.answer, accept)).toEqual(c.expected)
  })
})
