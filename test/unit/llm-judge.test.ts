import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { cleanSummary, conversationLanguage, LlmJudge, renderConversation } from '../../src/facts/llm-judge'
import { DEFAULT_PROMPTS } from '../../src/facts/prompts'
import { StructuredOutputError } from '../../src/providers/structured'
import { ProviderError } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'

const zh: Turn[] = [
  { role: 'user', name: '小明', content: '下周三是我女朋友的生日，\n我打算带她去吃火锅' },
  { role: 'assistant', name: '小助手', content: '好的，祝你们玩得开心！' },
]
const en: Turn[] = [
  { role: 'user', name: 'Alice', content: "I'm allergic to peanuts" },
  { role: 'assistant', name: 'Bot', content: 'Noted, thanks for telling me.' },
]

describe('renderConversation', () => {
  it('renders one name: content line per turn', () => {
    expect(renderConversation(zh)).toBe('小明: 下周三是我女朋友的生日， 我打算带她去吃火锅\n小助手: 好的，祝你们玩得开心！')
    expect(renderConversation([{ role: 'user', name: '', content: 'hi' }])).toBe('user: hi')
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
    expect(
      conversationLanguage([
        { role: 'user', name: 'a', content: '👍' },
        { role: 'assistant', name: 'b', content: '收到你的点赞' },
      ]),
    ).toBe('zh')
  })
})

describe('LlmJudge.decide', () => {
  it('uses the Chinese prompt for a Chinese conversation and maps the snake_case answer', async () => {
    const llm = new FakeLLM(['```json\n{"should_remember": true, "reason": "女朋友生日和计划"}\n```'])
    const judge = new LlmJudge(llm, DEFAULT_PROMPTS)
    expect(judge.id).toBe('scripted')
    await expect(judge.decide(zh)).resolves.toEqual({ shouldRemember: true, reason: '女朋友生日和计划' })
    const { prompt, options } = llm.calls[0]
    expect(prompt).toContain('分析下面的对话')
    expect(prompt).toContain('小明: 下周三是我女朋友的生日， 我打算带她去吃火锅')
    expect(prompt).not.toContain('{conversation}')
    expect(options).toMatchObject({ json: true, temperature: 0 })
    expect(options?.schema).toMatchObject({ required: ['should_remember'] })
  })

  it('uses the English prompt for an English conversation and accepts a missing reason', async () => {
    const llm = new FakeLLM(['{"should_remember": false}'])
    await expect(new LlmJudge(llm, DEFAULT_PROMPTS).decide(en)).resolves.toEqual({ shouldRemember: false, reason: '' })
    expect(llm.calls[0].prompt).toContain('Analyze the following conversation')
    expect(llm.calls[0].prompt).toContain("Alice: I'm allergic to peanuts")
  })

  it('uses custom prompts', async () => {
    const llm = new FakeLLM(['{"should_remember": false}'])
    const prompts = { decision: { zh: 'ZH {conversation}', en: 'EN {conversation}' }, summarizer: { zh: 'x', en: 'y' } }
    await new LlmJudge(llm, prompts).decide(en)
    expect(llm.calls[0].prompt.startsWith("EN Alice: I'm allergic")).toBe(true)
  })

  it('throws a StructuredOutputError after the retry and counts it', async () => {
    const counters = new Counters()
    const llm = new FakeLLM(['maybe?', '{"remember": "yes"}'])
    await expect(new LlmJudge(llm, DEFAULT_PROMPTS, { counters }).decide(en)).rejects.toBeInstanceOf(StructuredOutputError)
    expect(counters.get('llm.invalid')).toBe(1)
  })
})

describe('LlmJudge.summarize', () => {
  it('returns one clean line from a plain-text call with the language-matched prompt', async () => {
    const llm = new FakeLLM(['<think>她想记住生日</think>\n总结：“小明的女朋友下周三过生日，小明打算带她去吃火锅。”'])
    await expect(new LlmJudge(llm, DEFAULT_PROMPTS).summarize(zh)).resolves.toBe('小明的女朋友下周三过生日，小明打算带她去吃火锅。')
    expect(llm.calls[0].prompt).toContain('第三人称')
    expect(llm.calls[0].options?.json).toBeUndefined()
  })

  it('throws on an empty summary and counts it as invalid', async () => {
    const counters = new Counters()
    const llm = new FakeLLM(['Summary:  ""  '])
    await expect(new LlmJudge(llm, DEFAULT_PROMPTS, { counters }).summarize(en)).rejects.toThrow(/empty summary/)
    expect(counters.get('llm.invalid')).toBe(1)
  })

  it('rethrows provider errors and counts them', async () => {
    const counters = new Counters()
    const failure = new ProviderError('down', 'scripted', 503)
    await expect(new LlmJudge(new FakeLLM([failure]), DEFAULT_PROMPTS, { counters }).summarize(en)).rejects.toBe(failure)
    expect(counters.get('llm.error')).toBe(1)
  })
})

describe('cleanSummary', () => {
  it('strips labels, quotes, bold, list markers and fences, and keeps the first line', () => {
    expect(cleanSummary('Summary: "Alice is allergic to peanuts."')).toBe('Alice is allergic to peanuts.')
    expect(cleanSummary('**Summary:**\n\n- Alice is allergic to peanuts.\n- Second line')).toBe('Alice is allergic to peanuts.')
    expect(cleanSummary('```\n「小明喜欢猫。」\n```')).toBe('小明喜欢猫。')
    expect(cleanSummary("'Tom's dog is called Rex.'")).toBe("Tom's dog is called Rex.")
    expect(cleanSummary('Alice said "hi" to Bob.')).toBe('Alice said "hi" to Bob.')
    expect(cleanSummary('   ')).toBe('')
  })
})
