import { describe, expect, it } from 'vitest'
import { generateSummary } from '../../src/topic-summaries/generate'
import { summaryKeywords } from '../../src/topic-summaries/keywords'
import { offlineSummary } from '../../src/topic-summaries/offline'
import { DEFAULT_SUMMARY_PROMPTS, fillPrompt } from '../../src/topic-summaries/prompts'
import { coherence, computeQuality, coverage, relevance } from '../../src/topic-summaries/quality'
import { segmentLines, tokens } from '../../src/topic-summaries/segment'
import { ProviderError } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { message } from '../fakes/message-rows'

const zhChat = [
  message({ userId: 'alice', userName: '小红', content: '周末去香山看红叶吗？', at: 0 }),
  message({ userId: 'bob', userName: '小明', content: '好啊，香山红叶这周正好', at: 10 }),
  message({ userId: 'alice', userName: '小红', content: '那周六早上八点地铁站集合，去香山', at: 20 }),
  message({ userId: 'carol', userName: '小刚', content: '我也去香山，带上相机拍红叶', at: 30 }),
]

const enChat = [
  message({ userId: 'a', userName: 'Ann', content: 'Should we move the release to Friday?', at: 0 }),
  message({ userId: 'b', userName: 'Ben', content: 'Friday release works if the migration tests pass', at: 10 }),
  message({ userId: 'a', userName: 'Ann', content: 'I will run the migration tests tonight', at: 20 }),
]

const deps = (llm?: FakeLLM, options = {}) => ({ llm, counters: new Counters(), logger: quiet, options })

describe('segmentation', () => {
  it('keeps a short topic in one segment and splits a long one into balanced segments under the budget', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `user${i % 3}: message number ${i} about the release plan and tests`)
    expect(segmentLines(lines.slice(0, 3), 1000)).toHaveLength(1)
    const segments = segmentLines(lines, 200)
    expect(segments.length).toBeGreaterThan(1)
    expect(segments.flat()).toEqual(lines)
    for (const segment of segments) expect(segment.reduce((sum, line) => sum + tokens(line) + 1, 0)).toBeLessThanOrEqual(200)
    const sizes = segments.map((s) => s.length)
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(3)
  })

  it('cuts one over-long line to fit a segment', () => {
    const long = 'x: ' + '很长的一句话'.repeat(400)
    const [segment] = segmentLines([long], 100)
    expect(tokens(segment[0])).toBeLessThanOrEqual(99)
    expect(segment[0].endsWith('…')).toBe(true)
  })
})

describe('generateSummary', () => {
  it('summarises each segment, merges them, and asks for a score, in the topic language', async () => {
    const llm = new FakeLLM((call) => {
      if (call.prompt.includes('合并')) return '{"summary": "大家约好周六早上八点去香山看红叶，小刚带相机。"}'
      if (call.prompt.includes('1 到 10')) return '```json\n{"score": 8}\n```'
      const part = /第 (\d+)\/\d+ 段/.exec(call.prompt)![1]
      return `{"summary": "第${part}段：讨论香山红叶"}`
    })
    const chat = Array.from({ length: 40 }, (_, i) => zhChat[i % 4]).map((m, i) => ({
      ...m,
      id: `r${i}`,
      createdAt: new Date(m.createdAt.getTime() + i * 60_000),
    }))
    const draft = await generateSummary('香山红叶', chat, deps(llm, { segmentTokens: 150 }))
    const segmentCalls = llm.calls.filter((c) => c.prompt.includes('段聊天记录'))
    expect(segmentCalls.length).toBeGreaterThan(1)
    expect(draft.segments).toBe(segmentCalls.length)
    expect(llm.calls.filter((c) => c.prompt.includes('合并'))).toHaveLength(1)
    const merge = llm.calls.find((c) => c.prompt.includes('合并'))!.prompt
    for (let i = 1; i <= segmentCalls.length; i++) expect(merge).toContain(`${i}. 第${i}段：讨论香山红叶`)
    expect(segmentCalls[0].prompt).toContain('小红: 周末去香山看红叶吗？')
    expect(segmentCalls[0].options?.json).toBe(true)
    expect(draft).toMatchObject({
      summary: '大家约好周六早上八点去香山看红叶，小刚带相机。',
      fallback: false,
      language: 'zh',
      model: 'scripted',
      messageCount: 40,
    })
    expect(draft.participants).toEqual(['小红', '小明', '小刚'])
    expect(draft.firstMessageAt).toEqual(chat[0].createdAt)
    expect(draft.lastMessageAt).toEqual(chat[39].createdAt)
    expect(draft.quality.llmScore).toBe(0.8)
    expect(Object.keys(draft.keywords)).toContain('香山')
  })

  it('makes one call (no merge) for a short topic and uses the English prompts for an English chat', async () => {
    const llm = new FakeLLM([
      '{"summary": "Ann and Ben agreed to release on Friday if the migration tests pass; Ann runs them tonight."}',
      '{"score": 9}',
    ])
    const draft = await generateSummary('Friday release', enChat, deps(llm))
    expect(llm.calls).toHaveLength(2)
    expect(llm.calls[0].prompt).toContain('part 1/1 of the chat on the topic "Friday release"')
    expect(llm.calls[0].prompt).toContain('Ben: Friday release works if the migration tests pass')
    expect(draft).toMatchObject({ fallback: false, segments: 1, language: 'en' })
    expect(draft.quality.llmScore).toBe(0.9)
  })

  it('falls back to the offline summary, marked, when the model stays malformed after the retry', async () => {
    const llm = new FakeLLM(['I cannot do that', 'still no json'])
    const d = deps(llm)
    const draft = await generateSummary('香山红叶', zhChat, d)
    expect(llm.calls).toHaveLength(2)
    expect(draft).toMatchObject({ fallback: true, model: 'offline', segments: 0, language: 'zh' })
    expect(draft.fallbackReason).toMatch(/invalid answer/)
    expect(draft.summary).toContain('香山')
    expect(draft.quality.llmScore).toBeUndefined()
    expect(d.counters.get('summary.fallback')).toBe(1)
  })

  it('falls back when the model throws, and when a later merge call fails', async () => {
    const throwing = await generateSummary('Friday release', enChat, deps(new FakeLLM([new ProviderError('down', 'x', 503)])))
    expect(throwing).toMatchObject({ fallback: true, model: 'offline' })
    expect(throwing.summary).toMatch(/^Discussion of "Friday release" \(Ann, Ben; 3 messages\)/)

    const chat = Array.from({ length: 30 }, (_, i) => ({ ...enChat[i % 3], id: `e${i}` }))
    const llm = new FakeLLM((call) => {
      if (call.prompt.includes('Merge them')) throw new Error('timeout')
      return '{"summary": "part"}'
    })
    const merged = await generateSummary('Friday release', chat, deps(llm, { segmentTokens: 120 }))
    expect(merged.fallback).toBe(true)
    expect(merged.summary).not.toBe('part')
  })

  it('makes the offline summary, marked as a fallback, when no model is configured', async () => {
    const d = deps()
    const draft = await generateSummary('香山红叶', zhChat, d)
    expect(draft).toMatchObject({ fallback: true, fallbackReason: 'no-llm', model: 'offline' })
    expect(draft.summary).toMatch(/^关于「香山红叶」的讨论（小红、小明、小刚，共 4 条消息）：/)
    expect(draft.quality.llmScore).toBeUndefined()
    expect(draft.quality.overall).toBeGreaterThan(0)
  })

  it('keeps the summary when only the score fails (the score is left empty)', async () => {
    const llm = new FakeLLM(['{"summary": "Ann and Ben plan a Friday release."}', new Error('quota')])
    const draft = await generateSummary('Friday release', enChat, deps(llm))
    expect(draft.fallback).toBe(false)
    expect(draft.quality.llmScore).toBeUndefined()
    expect(draft.quality).toHaveProperty('coverage')
  })

  it('throws for a topic without messages', async () => {
    await expect(generateSummary('x', [], deps())).rejects.toThrow(/nothing to summarise/)
  })
})

describe('offline summary', () => {
  it('quotes the messages carrying the frequent words, in chat order', () => {
    const text = offlineSummary('香山红叶', zhChat, ['小红', '小明', '小刚'], 'zh')
    const quoted = [...text.matchAll(/说「([^」]+)」/g)].map((m) => m[1])
    expect(quoted.length).toBeGreaterThan(0)
    expect(quoted.every((q) => zhChat.some((m) => m.content === q))).toBe(true)
    const order = quoted.map((q) => zhChat.findIndex((m) => m.content === q))
    expect(order).toEqual([...order].sort((a, b) => a - b))
  })
})

describe('quality', () => {
  const keywords = { 香山: 1, 红叶: 0.8, 相机: 0.3 }

  it('coverage is the share of keyword weight the summary mentions', () => {
    expect(coverage('去香山看红叶，带相机', keywords)).toBe(1)
    expect(coverage('去香山', keywords)).toBeCloseTo(1 / 2.1, 3)
    expect(coverage('完全无关', keywords)).toBe(0)
  })

  it('coherence drops for repeated and unconnected sentences', () => {
    expect(coherence('大家去香山。香山的红叶正好。', keywords)).toBe(1)
    expect(coherence('大家去香山。大家去香山。', keywords)).toBe(0.5)
    expect(coherence('大家去香山。股票今天大跌。', keywords)).toBe(0.5)
  })

  it('relevance is the share of title words in the summary', () => {
    expect(relevance('周六去香山看红叶', '香山红叶', keywords)).toBe(1)
    expect(relevance('周六去爬山', '香山红叶', keywords)).toBe(0)
  })

  it('overall uses the weights of design §3.4, renormalised without an LLM score', () => {
    const without = computeQuality('去香山看红叶，带相机', '香山红叶', keywords)
    expect(without.llmScore).toBeUndefined()
    expect(without.overall).toBe(1)
    const withLlm = computeQuality('去香山看红叶，带相机', '香山红叶', keywords, 0)
    expect(withLlm.overall).toBe(0.7)
  })

  it('keywords are weighted by how many messages use them, heaviest 1', () => {
    const k = summaryKeywords(zhChat, '香山红叶')
    expect(k['香山']).toBe(1)
    expect(Object.values(k).every((w) => w > 0 && w <= 1)).toBe(true)
  })
})

describe('prompts', () => {
  it('fills placeholders once, so chat text cannot inject another placeholder', () => {
    const filled = fillPrompt(DEFAULT_SUMMARY_PROMPTS.en.score, { title: 't', summary: 'S', transcript: 'a: {summary}' })
    expect(filled).toContain('a: {summary}')
    for (const lang of ['zh', 'en'] as const) {
      expect(DEFAULT_SUMMARY_PROMPTS[lang].segment).toContain('{transcript}')
      expect(DEFAULT_SUMMARY_PROMPTS[lang].merge).toContain('{summaries}')
    }
  })
})
