import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import { LlmTopicJudge, renderLine } from '../../src/topics/judge'
import { fillTopicPrompt } from '../../src/topics/prompts'
import { FakeLLM } from '../fakes/llm'

const candidates = [
  { title: '周末爬山', messages: [{ userId: 'u1', userName: '小王', content: '周末去香山吗' }] },
  { title: '装机', messages: [{ userId: 'u2', userName: '', content: '显卡买哪张' }] },
]
const zh = { userId: 'u3', userName: '阿杰', content: '几点集合？' }

describe('LlmTopicJudge.choose', () => {
  it('maps the number back to the candidate and uses the Chinese prompt for a Chinese message', async () => {
    const llm = new FakeLLM(['<think>像是爬山</think>{"topic": 1}'])
    await expect(new LlmTopicJudge(llm).choose(zh, candidates)).resolves.toEqual({ kind: 'topic', index: 0 })
    expect(llm.prompts[0]).toContain('新消息：\n阿杰: 几点集合？')
    expect(llm.prompts[0]).toContain('1. 话题: 周末爬山\n   最近的消息:\n   - 小王: 周末去香山吗')
    expect(llm.prompts[0]).toContain('2. 话题: 装机\n   最近的消息:\n   - u2: 显卡买哪张')
    expect(llm.calls[0].options).toMatchObject({ json: true, temperature: 0 })
  })

  it('accepts a number as a string, "new" in either language and null', async () => {
    for (const [answer, expected] of [
      ['{"topic": "2"}', { kind: 'topic', index: 1 }],
      ['{"topic": "new", "title": "「集合时间」"}', { kind: 'new', title: '集合时间' }],
      ['{"topic": "新话题"}', { kind: 'new', title: '' }],
      ['{"topic": null}', { kind: 'new', title: '' }],
    ] as const) {
      await expect(new LlmTopicJudge(new FakeLLM([answer])).choose(zh, candidates), answer).resolves.toEqual(expected)
    }
  })

  it('rejects a number it did not show, after one corrective retry', async () => {
    const counters = new Counters()
    const llm = new FakeLLM(['{"topic": 3}', '{"topic": 0}'])
    await expect(new LlmTopicJudge(llm, { counters }).choose(zh, candidates)).rejects.toThrow(/invalid answer/)
    expect(llm.prompts[1]).toContain('must be a topic number from 1 to 2, or "new"')
    expect(counters.get('llm.invalid')).toBe(1)
  })
})

describe('LlmTopicJudge.title', () => {
  it('uses the English prompt for an English message and cleans the title', async () => {
    const llm = new FakeLLM(['{"title": "Title: \\"Weekend hike\\""}'])
    await expect(new LlmTopicJudge(llm).title({ userId: 'a', userName: 'Alice', content: 'Anyone hiking on Saturday?' })).resolves.toBe(
      'Weekend hike',
    )
    expect(llm.prompts[0]).toContain('Give the topic a short title')
    expect(llm.prompts[0]).toContain('Alice: Anyone hiking on Saturday?')
  })

  it('throws on an empty title', async () => {
    await expect(new LlmTopicJudge(new FakeLLM(['{"title": "  "}'])).title(zh)).rejects.toThrow(/empty/)
  })
})

describe('prompt filling', () => {
  it('does not substitute placeholders found inside a message', () => {
    expect(fillTopicPrompt('M: {message}\nC: {candidates}', { message: 'say {candidates}', candidates: 'list' })).toBe(
      'M: say {candidates}\nC: list',
    )
    expect(fillTopicPrompt('custom prompt', { message: 'x' })).toBe('custom prompt\n\nx')
  })

  it('renders one clipped line per message', () => {
    expect(renderLine({ userId: 'u', userName: ' ', content: 'a\n  b' })).toBe('u: a b')
    expect(renderLine({ userId: 'u', userName: 'n', content: '长'.repeat(300) })).toHaveLength(3 + 200 + 1)
  })
})
