import { describe, expect, it } from 'vitest'
import type { KnownFact, Turn } from '../../src/facts/judge'
import { LlmJudge } from '../../src/facts/llm-judge'
import { DEFAULT_PROMPTS } from '../../src/facts/prompts'
import { FakeLLM } from '../fakes/llm'

const now = new Date(2026, 10, 26, 10, 30)
const turns: Turn[] = [{ role: 'user', name: 'Alice', content: 'I moved to Shanghai last month, I eat meat again', time: now }]
const known: KnownFact[] = [
  { id: 'f1', about: 'Alice', statement: 'Alice lives in Chengdu.' },
  { id: 'f2', about: 'Alice', statement: 'Alice is vegetarian.' },
]

const extract = async (answer: string, options: { known?: KnownFact[] } = { known }) => {
  const llm = new FakeLLM([answer])
  const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS).extract(turns, { now, ...options })
  return { extraction, prompt: llm.prompts[0] }
}

describe('LlmJudge: known facts and what replaces them', () => {
  it('shows the known facts under short keys in the one extraction call', async () => {
    const { prompt } = await extract('{"facts": []}')
    expect(prompt).toContain('[k1] Alice: Alice lives in Chengdu.\n[k2] Alice: Alice is vegetarian.')
    expect(prompt).toContain('Alice: I moved to Shanghai last month')
    expect((await extract('{"facts": []}', {})).prompt).toContain('Known facts:\n(none)')
  })

  it('maps replaces by key or by statement to the known ids, and reads since as a date', async () => {
    const { extraction } = await extract(
      JSON.stringify({
        facts: [
          { about: 'Alice', fact: 'Alice lives in Shanghai.', replaces: 'k1', since: '2026-10' },
          { about: 'Alice', fact: 'Alice eats meat again.', replaces: ['Alice is vegetarian'] },
        ],
      }),
    )
    expect(extraction.facts).toEqual([
      { statement: 'Alice lives in Shanghai.', about: 'Alice', replaces: ['f1'], validFrom: new Date(2026, 9, 1) },
      { statement: 'Alice eats meat again.', about: 'Alice', replaces: ['f2'] },
    ])
  })

  it('ignores a replaces that names nothing known, and a since that is malformed or after the dialogue', async () => {
    const { extraction } = await extract(
      JSON.stringify({
        facts: [
          { about: 'Alice', fact: 'Alice lives in Shanghai.', replaces: 'k9', since: 'last month' },
          { about: 'Alice', fact: 'Alice eats meat again.', replaces: 42, since: '2031-01-01' },
          { about: 'Alice', fact: 'Alice has a cat.', replaces: null },
        ],
      }),
    )
    expect(extraction.facts).toEqual([
      { statement: 'Alice lives in Shanghai.', about: 'Alice' },
      { statement: 'Alice eats meat again.', about: 'Alice' },
      { statement: 'Alice has a cat.', about: 'Alice' },
    ])
  })
})

describe('LlmJudge: knowledge in the same answer', () => {
  it('returns entities, relations and preferences beside the facts', async () => {
    const { extraction } = await extract(
      JSON.stringify({
        facts: [{ about: 'Alice', fact: 'Alice lives in Shanghai.' }],
        entities: [{ name: 'Shanghai', type: 'location', aliases: ['沪'], description: 'a city' }],
        relations: [{ subject: 'Alice', predicate: 'lives in', object: 'Shanghai' }],
        preferences: [{ about: 'Alice', key: 'food', value: 'meat' }],
      }),
    )
    expect(extraction).toMatchObject({
      facts: [{ statement: 'Alice lives in Shanghai.' }],
      entities: [{ name: 'Shanghai', type: 'LOCATION', aliases: ['沪'], description: 'a city' }],
      relations: [{ subject: 'Alice', predicate: 'lives in', object: 'Shanghai' }],
      preferences: [{ about: 'Alice', key: 'food', value: 'meat' }],
    })
  })

  it('drops malformed knowledge items one by one and keeps the facts', async () => {
    const { extraction } = await extract(
      JSON.stringify({
        facts: [{ about: 'Alice', fact: 'Alice lives in Shanghai.' }],
        entities: [{ name: '' }, { type: 'PERSON' }, 'Shanghai', { name: 'Bob', type: 'ALIEN', aliases: 'not a list' }],
        relations: [
          { subject: 'Alice', predicate: 'knows' },
          { subject: 'Alice', predicate: 'knows', object: 'Bob' },
        ],
        preferences: { key: 'food' },
      }),
    )
    expect(extraction.facts).toEqual([{ statement: 'Alice lives in Shanghai.', about: 'Alice' }])
    expect(extraction.entities).toEqual([{ name: 'Bob', type: 'OTHER' }])
    expect(extraction.relations).toEqual([{ subject: 'Alice', predicate: 'knows', object: 'Bob' }])
    expect(extraction.preferences).toBeUndefined()
  })

  it('leaves the knowledge parts out when the answer has only facts', async () => {
    const { extraction } = await extract('{"facts": ["Alice lives in Shanghai."]}')
    expect(Object.keys(extraction).sort()).toEqual(['facts', 'reason'])
  })
})
