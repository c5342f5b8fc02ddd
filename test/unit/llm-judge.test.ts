import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { cleanStatement, conversationLanguage, formatTime, LlmJudge, renderConversation } from '../../src/facts/llm-judge'
import { DEFAULT_PROMPTS } from '../../src/facts/prompts'
import { StructuredOutputError } from '../../src/providers/structured'
import { ProviderTimeoutError } from '../../src/providers/resilience'
import { ProviderError } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'

// local time, so the rendered times hold in any time zone
const thursday = new Date(2026, 10, 26, 10, 5)
const now = new Date(2026, 10, 26, 10, 30)

const zh: Turn[] = [
  { role: 'user', name: '小明', content: '我下周三要去上海出差，\n我养了一只柯基，叫豆豆', time: thursday },
  { role: 'assistant', name: '小助手', content: '好的，祝你出差顺利！', time: new Date(2026, 10, 26, 10, 6) },
]
const en: Turn[] = [
  { role: 'user', name: 'Alice', content: "I'm allergic to peanuts. I'm going to Tokyo next September" },
  { role: 'assistant', name: 'Bot', content: 'Noted, thanks for telling me.' },
]

describe('renderConversation', () => {
  it('renders one [time] name: content line per turn, without brackets when a turn has no time', () => {
    expect(renderConversation(zh, 'zh')).toBe(
      '[2026-11-26 10:05 周四] 小明: 我下周三要去上海出差， 我养了一只柯基，叫豆豆\n[2026-11-26 10:06 周四] 小助手: 好的，祝你出差顺利！',
    )
    expect(renderConversation([{ role: 'user', name: '', content: 'hi' }])).toBe('user: hi')
    expect(formatTime(thursday, 'en')).toBe('2026-11-26 10:05 Thu')
  })
})

describe('conversationLanguage', () => {
  it('follows what the users said, not the bot', () => {
    expect(conversationLanguage(zh)).toBe('zh')
    expect(conversationLanguage(en)).toBe('en')
    expect(
      conversationLanguage([
        { role: 'user', name: 'a', content: '我明天去北京' },
        { role: 'assistant', name: 'b', content: 'Have a nice trip to Beijing tomorrow!' },
      ]),
    ).toBe('zh')
  })
})

describe('LlmJudge.extract', () => {
  it('makes ONE structured call with the Chinese prompt, the turn times and the dialogue time, and returns each fact', async () => {
    const llm = new FakeLLM(['```json\n{"facts": ["小明2026年12月2日（周三）要去上海出差。", "小明养了一只柯基，叫豆豆。"]}\n```'])
    const judge = new LlmJudge(llm, DEFAULT_PROMPTS)
    expect(judge.id).toBe('scripted')
    const extraction = await judge.extract(zh, { now })
    expect(extraction.facts.map((f) => f.statement)).toEqual(['小明2026年12月2日（周三）要去上海出差。', '小明养了一只柯基，叫豆豆。'])
    expect(llm.calls).toHaveLength(1)
    const { prompt, options } = llm.calls[0]
    expect(prompt).toContain('列出其中值得长期记住的关于各位用户的事实')
    expect(prompt).toContain('[2026-11-26 10:05 周四] 小明: 我下周三要去上海出差， 我养了一只柯基，叫豆豆')
    // the dialogue's time is its last turn's, not the time memorize runs
    expect(prompt).toContain('对话结束于 2026-11-26 10:06 周四')
    expect(prompt).not.toMatch(/\{conversation\}|\{now\}/)
    expect(options).toMatchObject({ json: true, temperature: 0 })
    expect(options?.schema).toMatchObject({ required: ['facts'] })
  })

  it('uses the English prompt and the dialogue time `now` when the turns carry none', async () => {
    const llm = new FakeLLM(['{"facts": ["Alice is allergic to peanuts.", "Alice is going to Tokyo in September 2027."]}'])
    const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS).extract(en, { now })
    expect(extraction.facts).toHaveLength(2)
    expect(llm.calls[0].prompt).toContain('list the facts about its users that are worth remembering')
    expect(llm.calls[0].prompt).toContain("Alice: I'm allergic to peanuts.")
    expect(llm.calls[0].prompt).toContain('The conversation ended at 2026-11-26 10:30 Thu')
  })

  it('reads an empty list as nothing worth keeping', async () => {
    const extraction = await new LlmJudge(new FakeLLM(['{"facts": []}']), DEFAULT_PROMPTS).extract(en, { now })
    expect(extraction.facts).toEqual([])
    expect(extraction.reason).toMatch(/nothing/)
  })

  it('drops a question the model kept, empty and repeated items, and cleans list markers and quotes', async () => {
    const counters = new Counters()
    const llm = new FakeLLM([
      JSON.stringify({
        facts: [
          '- "Alice is allergic to peanuts."',
          'What is Alice allergic to?',
          'Alice的生日是哪天？',
          '',
          'Alice is allergic to peanuts.',
          { fact: 'Alice has a cat.' },
        ],
      }),
    ])
    const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS, { counters }).extract(en, { now })
    expect(extraction.facts.map((f) => f.statement)).toEqual(['Alice is allergic to peanuts.', 'Alice has a cat.'])
    expect(counters.get('judge.questions-dropped')).toBe(2)
  })

  it('resolves a relative date the model left, against the dialogue time', async () => {
    const llm = new FakeLLM(['{"facts": ["小明下周三要去上海出差。"]}'])
    const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS).extract(zh, { now })
    expect(extraction.facts[0].statement).toBe('小明2026年12月2日（周三）要去上海出差。')
  })

  it('reads a bare list as the facts', async () => {
    const extraction = await new LlmJudge(new FakeLLM(['["Alice has a cat."]']), DEFAULT_PROMPTS).extract(en, { now })
    expect(extraction.facts).toEqual([{ statement: 'Alice has a cat.' }])
  })

  it('retries once on malformed JSON, then succeeds', async () => {
    const counters = new Counters()
    const llm = new FakeLLM(['facts: Alice likes tea {{', '{"facts": ["Alice likes tea."]}'])
    const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS, { counters }).extract(en, { now })
    expect(extraction.facts).toEqual([{ statement: 'Alice likes tea.' }])
    expect(llm.calls).toHaveLength(2)
    expect(llm.calls[1].prompt).toContain('Your previous answer was:')
    expect(counters.get('llm.retried')).toBe(1)
  })

  it('throws a StructuredOutputError after the retry and counts it', async () => {
    const counters = new Counters()
    const llm = new FakeLLM(['maybe?', '{"should_remember": true}'])
    await expect(new LlmJudge(llm, DEFAULT_PROMPTS, { counters }).extract(en, { now })).rejects.toBeInstanceOf(StructuredOutputError)
    expect(counters.get('llm.invalid')).toBe(1)
  })

  it('rethrows a timeout or a provider error and counts it', async () => {
    const counters = new Counters()
    const timeout = new ProviderTimeoutError('scripted', 30_000)
    await expect(new LlmJudge(new FakeLLM([timeout]), DEFAULT_PROMPTS, { counters }).extract(en, { now })).rejects.toBe(timeout)
    const failure = new ProviderError('down', 'scripted', 503)
    await expect(new LlmJudge(new FakeLLM([failure]), DEFAULT_PROMPTS, { counters }).extract(en, { now })).rejects.toBe(failure)
    expect(counters.get('llm.error')).toBe(2)
  })

  it('uses custom prompts, with or without the placeholders', async () => {
    const llm = new FakeLLM(['{"facts": []}', '{"facts": []}'])
    const judge = new LlmJudge(llm, { extraction: { zh: 'ZH {now} {conversation}', en: 'List the facts.' } })
    await judge.extract(zh, { now })
    await judge.extract(en, { now })
    expect(llm.calls[0].prompt.startsWith('ZH 2026-11-26 10:06 周四 [2026-11-26 10:05 周四] 小明:')).toBe(true)
    expect(llm.calls[1].prompt).toBe(
      "List the facts.\n\nAlice: I'm allergic to peanuts. I'm going to Tokyo next September\nBot: Noted, thanks for telling me.",
    )
  })
})

describe('cleanStatement', () => {
  it('strips labels, quotes, bold and list markers, and joins lines', () => {
    expect(cleanStatement('Fact: "Alice is allergic to peanuts."')).toBe('Alice is allergic to peanuts.')
    expect(cleanStatement('**1. Alice is allergic to peanuts.**')).toBe('Alice is allergic to peanuts.')
    expect(cleanStatement('「小明喜欢猫。」')).toBe('小明喜欢猫。')
    expect(cleanStatement("'Tom's dog is called Rex.'")).toBe("Tom's dog is called Rex.")
    expect(cleanStatement('Alice said "hi" to Bob.')).toBe('Alice said "hi" to Bob.')
    expect(cleanStatement('   ')).toBe('')
  })
})
