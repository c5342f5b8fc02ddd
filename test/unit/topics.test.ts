import { beforeEach, describe, expect, it } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import type { LLM } from '../../src/providers/types'
import { ProviderError } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { LlmTopicJudge } from '../../src/topics/judge'
import type { TopicAttributorOptions } from '../../src/topics/attributor'
import {
  addToCentroid,
  defaultTopicThresholds,
  LEXICAL_THRESHOLDS,
  SEMANTIC_THRESHOLDS,
  TopicAttributor,
} from '../../src/topics/attributor'
import type { MessageRow } from '../../src/messages/table'
import { at } from '../fakes/clock'
import { FakeEmbedder } from '../fakes/embedder'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { MemoryMessages } from '../fakes/messages'
import { MemoryTopics } from '../fakes/topics'
import { message } from '../fakes/message-rows'
import { alternating } from '../fakes/topic-chat'

describe('TopicAttributor', () => {
  let messages: MemoryMessages
  let topics: MemoryTopics
  let counters: Counters
  let ids: number

  beforeEach(() => {
    messages = new MemoryMessages()
    topics = new MemoryTopics()
    counters = new Counters()
    ids = 0
  })

  function attributor(options: Partial<TopicAttributorOptions> = {}) {
    return new TopicAttributor({
      messages,
      topics,
      embedder: new OfflineEmbedder(),
      counters,
      logger: quiet,
      now: () => at(10_000),
      newId: () => `t${++ids}`,
      ...options,
    })
  }

  /** Stores a message (as capture does) and attributes it. */
  async function say(target: TopicAttributor, fields: Partial<MessageRow> & { content: string; userId: string; at?: number }) {
    const row = message(fields)
    messages.add(row)
    return { row, result: await target.attribute(row) }
  }

  describe('thresholds', () => {
    it('uses the measured lexical thresholds for the offline embedder and those of design §2.2 otherwise', () => {
      expect(defaultTopicThresholds(new OfflineEmbedder())).toEqual(LEXICAL_THRESHOLDS)
      expect(defaultTopicThresholds({ lexical: undefined })).toEqual({ join: 0.7, low: 0.5 })
      expect(attributor({ thresholds: { join: 0.5 } }).thresholds).toEqual({ join: 0.5, low: LEXICAL_THRESHOLDS.low })
      expect(() => attributor({ thresholds: { join: 0.2, low: 0.4 } })).toThrow(RangeError)
    })
  })

  describe('a new topic', () => {
    it('opens a topic named by its keywords in offline mode', async () => {
      const { row, result } = await say(attributor(), { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 0 })
      expect(result).toEqual({ topicId: 't1', how: 'new' })
      const topic = (await topics.get('t1'))!
      expect(topic).toMatchObject({
        platform: 'qq',
        guildId: 'g1',
        channelId: 'g1',
        title: '周末、爬山、香山',
        creatorId: '小王',
        messageCount: 1,
        vectorCount: 1,
        centroidNorm: 1,
        embedder: 'offline-ngram-v1',
        active: true,
        archived: false,
        createdAt: row.createdAt,
        lastMessageAt: row.createdAt,
        updatedAt: at(10_000),
      })
      expect(topic.keywords).toEqual({ 周末: 1, 爬山: 1, 香山: 1, 红叶: 1 })
      expect(topic.centroid).toHaveLength(512)
      expect(messages.rows.get(row.id)!.topicId).toBe('t1')
      expect(counters.get('topic.new')).toBe(1)
    })

    it('asks the LLM for the title when there is one', async () => {
      const llm = new FakeLLM(['{"title": "周末香山看红叶"}'])
      const target = attributor({ judge: new LlmTopicJudge(llm, { counters }) })
      const { result } = await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶' })
      expect((await topics.get(result.topicId))!.title).toBe('周末香山看红叶')
      expect(llm.calls[0].prompt).toContain('小王: 这周末有人一起去爬山吗？想去香山看红叶')
      expect(llm.calls[0].prompt).toContain('起一个简短的标题')
      expect(llm.calls[0].options).toMatchObject({ json: true })
    })

    it('names the topic by its keywords when the title call fails, and counts it', async () => {
      const llm = new FakeLLM([new ProviderError('down', 'scripted', 503)])
      const { result } = await say(attributor({ judge: new LlmTopicJudge(llm) }), {
        userId: 'a',
        content: 'Anyone up for hiking this weekend?',
      })
      expect((await topics.get(result.topicId))!.title).toBe('hiking, weekend')
      expect(counters.get('topic.title-fallback')).toBe(1)
    })
  })

  describe('replies', () => {
    it('inherit the topic of the message they answer, whatever their words', async () => {
      const target = attributor()
      const { row: first } = await say(target, { userId: '老李', content: '我打算装台新电脑，显卡在4070和4070 Super之间纠结', at: 0 })
      await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 10 })
      const { result } = await say(target, { userId: '小陈', content: '看预算吧', replyMessageId: first.messageId, at: 20 })
      expect(result.how).toBe('reply')
      expect(result.topicId).toBe('t1')
      expect((await topics.get('t1'))!.messageCount).toBe(2)
      expect(counters.get('topic.reply')).toBe(1)
    })

    it('fall through to similarity when the answered message has no topic yet or is unknown', async () => {
      const target = attributor()
      const orphan = message({ userId: 'x', content: '香山红叶', at: 0 })
      messages.add(orphan)
      await say(target, { userId: '小王', content: '周末去香山看红叶吗', at: 5 })
      const { result } = await say(target, { userId: '阿杰', content: '香山红叶正好', replyMessageId: orphan.messageId, at: 10 })
      expect(result).toMatchObject({ topicId: 't1', how: 'joined' })
      const { result: unknown } = await say(target, { userId: '阿杰', content: '香山人多吗', replyMessageId: 'gone', at: 15 })
      expect(unknown).toMatchObject({ topicId: 't1', how: 'joined' })
    })

    it('reopen a closed topic but never an archived one', async () => {
      const target = attributor({ idleMs: 60_000 })
      const { row: first } = await say(target, { userId: '小王', content: '周末去香山看红叶吗', at: 0 })
      await target.closeIdleTopics(at(3600))
      expect((await topics.get('t1'))!.active).toBe(false)
      const { result } = await say(target, { userId: '阿杰', content: '去！', replyMessageId: first.messageId, at: 3700 })
      expect(result).toEqual({ topicId: 't1', how: 'reply' })
      expect((await topics.get('t1'))!).toMatchObject({ active: true, lastMessageAt: at(3700), messageCount: 2 })

      await topics.update('t1', { archived: true })
      const { result: after } = await say(target, { userId: '阿杰', content: '香山红叶还在吗', replyMessageId: first.messageId, at: 3800 })
      expect(after.how).toBe('new')
      expect(after.topicId).not.toBe('t1')
    })
  })

  describe('joining by similarity', () => {
    it('joins the closest active topic and updates its centroid, count, time and keywords', async () => {
      const target = attributor()
      await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 0 })
      const before = (await topics.get('t1'))!
      const { result } = await say(target, { userId: '阿杰', content: '香山的红叶这周正好，算我一个', at: 30 })
      expect(result.how).toBe('joined')
      expect(result.topicId).toBe('t1')
      expect(result.similarity).toBeGreaterThan(LEXICAL_THRESHOLDS.join)
      const after = (await topics.get('t1'))!
      expect(after).toMatchObject({ messageCount: 2, vectorCount: 2, lastMessageAt: at(30) })
      expect(after.centroid).not.toEqual(before.centroid)
      expect(after.centroidNorm).toBeLessThan(1)
      expect(after.keywords.香山).toBeCloseTo(1.97)
      expect(counters.get('topic.joined')).toBe(1)
    })

    it('keeps two conversations that alternate line by line in two topics', async () => {
      const target = attributor()
      const threads = new Map<string, Set<string>>()
      let t = 0
      for (const line of alternating()) {
        const { result } = await say(target, { userId: line.userId, content: line.content, at: (t += 20) })
        threads.set(line.thread, (threads.get(line.thread) ?? new Set()).add(result.topicId))
      }
      expect([...threads.get('A')!]).toHaveLength(1)
      expect([...threads.get('B')!]).toHaveLength(1)
      expect([...threads.get('A')!][0]).not.toBe([...threads.get('B')!][0])
      const titles = [...topics.rows.values()].map((topic) => [topic.title, topic.messageCount])
      expect(titles).toEqual(
        expect.arrayContaining([
          ['香山、爬山、红叶', 6],
          ['4070、super、显卡', 6],
        ]),
      )
    })

    it('opens a new topic for an unrelated line while the others stay active', async () => {
      const target = attributor()
      await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 0 })
      const { result } = await say(target, { userId: '莉莉', content: '我家猫咪这两天不吃东西，是不是生病了', at: 10 })
      expect(result).toEqual({ topicId: 't2', how: 'new' })
      expect((await topics.active({ platform: 'qq', guildId: 'g1', channelId: 'g1' }, 10)).map((topic) => topic.id)).toEqual(['t2', 't1'])
    })

    it('does not join a topic idle longer than idleMs, even before the timer closed it', async () => {
      const target = attributor({ idleMs: 60_000 })
      await say(target, { userId: '小王', content: '周末去香山看红叶吗', at: 0 })
      const { result } = await say(target, { userId: '阿杰', content: '香山红叶正好', at: 120 })
      expect(result).toEqual({ topicId: 't2', how: 'new' })
    })

    it('does not compare centroids made by another embedder, and starts them over on join', async () => {
      const target = attributor()
      const { row } = await say(target, { userId: '小王', content: '周末去香山看红叶吗', at: 0 })
      await topics.update('t1', { embedder: 'other-model', centroid: [1, 0], vectorCount: 3 })
      const { result } = await say(target, { userId: '阿杰', content: '香山红叶正好', at: 10 })
      expect(result).toEqual({ topicId: 't2', how: 'new' })
      await say(target, { userId: '阿杰', content: '几点集合？', replyMessageId: row.messageId, at: 20 })
      expect((await topics.get('t1'))!).toMatchObject({ embedder: 'offline-ngram-v1', vectorCount: 1 })
    })
  })

  describe('short messages', () => {
    it("go with their author's recent topic, not the most recent one, and leave the centroid alone", async () => {
      const target = attributor()
      await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 0 })
      await say(target, { userId: '老李', content: '我打算装台新电脑，显卡在4070和4070 Super之间纠结', at: 10 })
      const centroid = (await topics.get('t1'))!.centroid
      const { result } = await say(target, { userId: '小王', content: '哈哈哈哈', at: 20 })
      expect(result).toEqual({ topicId: 't1', how: 'continued' })
      expect((await topics.get('t1'))!).toMatchObject({ messageCount: 2, vectorCount: 1, centroid })
      expect(counters.get('topic.continued')).toBe(1)
    })

    it("go with the channel's most recently active topic when their author was not in one", async () => {
      const target = attributor()
      await say(target, { userId: '小王', content: '这周末有人一起去爬山吗？想去香山看红叶', at: 0 })
      await say(target, { userId: '老李', content: '我打算装台新电脑，显卡在4070和4070 Super之间纠结', at: 10 })
      expect((await say(target, { userId: '路人', content: '👍', at: 20 })).result).toEqual({ topicId: 't2', how: 'continued' })
    })

    it('open a topic when nothing is going on, and an LLM names it after its first real message', async () => {
      const llm = new FakeLLM(['{"title": "周末爬山"}'])
      const target = attributor({ judge: new LlmTopicJudge(llm) })
      const { result } = await say(target, { userId: '小王', content: '在吗在吗', at: 0 })
      expect(result).toEqual({ topicId: 't1', how: 'new' })
      expect((await topics.get('t1'))!).toMatchObject({ title: '在吗在吗', vectorCount: 0, centroid: [] })
      expect(llm.calls).toHaveLength(0)
      const { result: next } = await say(target, { userId: '小王', content: '周末有人去香山爬山吗', at: 30 })
      expect(next).toEqual({ topicId: 't1', how: 'continued' })
      expect((await topics.get('t1'))!).toMatchObject({ title: '周末爬山', vectorCount: 1 })
    })
  })

  describe('without a working embedder', () => {
    it("continues the author's topic and counts the failure", async () => {
      const embedder = FakeEmbedder.table({ 'a b': [1, 0, 0, 0] })
      const target = attributor({ embedder, topicText: (text) => text })
      await say(target, { userId: 'u1', content: 'a b', at: 0 })
      embedder.down = true
      expect((await say(target, { userId: 'u1', content: 'something else entirely', at: 10 })).result).toEqual({
        topicId: 't1',
        how: 'continued',
      })
      expect(counters.get('topic.embed-failed')).toBe(1)
    })
  })

  describe('the LLM judge (between the thresholds)', () => {
    // semantic thresholds 0.7 / 0.5 apply to this embedder; the new line is ~0.6 from both topics
    const table = {
      'hiking plans': [1, 0, 0, 0],
      'graphics card': [0, 1, 0, 0],
      'ambiguous line': [1, 1, 0.6, 0],
      'far away': [0, 0, 0, 1],
    }

    async function setup(llm: LLM) {
      const target = attributor({ embedder: FakeEmbedder.table(table), judge: new LlmTopicJudge(llm, { counters, logger: quiet }) })
      expect(target.thresholds).toEqual(SEMANTIC_THRESHOLDS)
      for (let i = 0; i < 7; i++) await say(target, { userId: 'a', userName: 'Alice', content: 'hiking plans', at: i })
      await say(target, { userId: 'b', userName: 'Bob', content: 'graphics card', at: 10 })
      return target
    }

    it('lets the model choose among the closest topics, shown by number with their recent messages', async () => {
      const llm = new FakeLLM(['{"title": "Hiking"}', '{"title": "GPU"}', '```json\n{"topic": 2}\n```'])
      const target = await setup(llm)
      const { result } = await say(target, { userId: 'c', userName: 'Carol', content: 'ambiguous line', at: 20 })
      expect(result.how).toBe('judged')
      expect(result.topicId).toBe('t1')
      expect(result.similarity).toBeGreaterThan(0.5)
      const prompt = llm.calls[2].prompt
      expect(prompt).toContain('New message:\nCarol: ambiguous line')
      expect(prompt).toMatch(/1\. Topic: GPU\n {3}Recent messages:\n {3}- Bob: graphics card/)
      expect(prompt).toContain('2. Topic: Hiking')
      // five recent messages of a topic, not all seven; no row ids
      expect(prompt.match(/- Alice: hiking plans/g)).toHaveLength(5)
      expect(prompt).not.toContain('t1')
      expect(counters.get('topic.judged')).toBe(1)
    })

    it('opens a new topic with the model\'s title when it answers "new"', async () => {
      const llm = new FakeLLM(['{"title": "Hiking"}', '{"title": "GPU"}', '{"topic": "new", "title": "Something in between"}'])
      const target = await setup(llm)
      const { result } = await say(target, { userId: 'c', content: 'ambiguous line', at: 20 })
      expect(result).toEqual({ topicId: 't3', how: 'new' })
      expect((await topics.get('t3'))!.title).toBe('Something in between')
      expect(llm.calls).toHaveLength(3)
      expect(counters.get('topic.judged-new')).toBe(1)
    })

    it('falls back to the closest topic on a garbage answer (after the one retry), and counts it', async () => {
      const llm = new FakeLLM(['{"title": "Hiking"}', '{"title": "GPU"}', '{"topic": 7}', 'I think the first one'])
      const target = await setup(llm)
      const { result } = await say(target, { userId: 'c', content: 'ambiguous line', at: 20 })
      expect(result.how).toBe('joined')
      // the two topics are equally close; Bob's is the more recent and comes first
      expect(['t1', 't2']).toContain(result.topicId)
      expect(counters.get('topic.judge-fallback')).toBe(1)
      expect(counters.get('llm.invalid')).toBe(1)
      expect(llm.calls[3].prompt).toContain('must be a topic number from 1 to 2')
    })

    it('falls back to the closest topic when the provider fails', async () => {
      const llm = new FakeLLM(['{"title": "Hiking"}', '{"title": "GPU"}', new ProviderError('rate limited', 'scripted', 429)])
      const target = await setup(llm)
      const { result } = await say(target, { userId: 'c', content: 'ambiguous line', at: 20 })
      expect(result.how).toBe('joined')
      expect(counters.get('topic.judge-fallback')).toBe(1)
    })

    it('joins the closest topic without a model (rules mode), and skips the model below the low threshold', async () => {
      const target = attributor({ embedder: FakeEmbedder.table(table) })
      await say(target, { userId: 'a', content: 'hiking plans', at: 0 })
      await say(target, { userId: 'b', content: 'graphics card', at: 10 })
      expect((await say(target, { userId: 'c', content: 'ambiguous line', at: 20 })).result.how).toBe('joined')
      const llm = new FakeLLM([])
      const judged = attributor({ embedder: FakeEmbedder.table(table), judge: new LlmTopicJudge(llm) })
      expect((await say(judged, { userId: 'd', content: 'far away', at: 30 })).result.how).toBe('new')
      // only its title was asked for (and failed: the script is empty)
      expect(llm.calls).toHaveLength(1)
      expect(counters.get('topic.title-fallback')).toBe(1)
    })
  })

  describe('closeIdleTopics', () => {
    it('closes topics idle longer than idleMs and returns them', async () => {
      const target = attributor({ idleMs: 30 * 60_000 })
      await say(target, { userId: '小王', content: '周末去香山看红叶吗', at: 0 })
      await say(target, { userId: '莉莉', content: '我家猫咪这两天不吃东西', at: 1500 })
      const closed = await target.closeIdleTopics(at(1900))
      expect(closed.map((topic) => [topic.id, topic.active])).toEqual([['t1', false]])
      expect((await topics.get('t2'))!.active).toBe(true)
      expect(counters.get('topic.closed')).toBe(1)
      expect(await target.closeIdleTopics(at(1900))).toEqual([])
      expect((await target.closeIdleTopics(at(1900), 60_000)).map((topic) => topic.id)).toEqual(['t2'])
    })
  })
})

describe('addToCentroid', () => {
  const unit = (...v: number[]) => {
    const n = Math.hypot(...v)
    return Float32Array.from(v, (x) => x / n)
  }

  it('keeps the exact running mean as a direction and a length', () => {
    let c = addToCentroid(undefined, unit(1, 0), 'e')
    expect(c).toEqual({ centroid: [1, 0], centroidNorm: 1, vectorCount: 1, embedder: 'e' })
    c = addToCentroid(c, unit(0, 1), 'e')
    expect(c.centroid[0]).toBeCloseTo(Math.SQRT1_2, 5)
    expect(c.centroidNorm).toBeCloseTo(Math.SQRT1_2, 5)
    c = addToCentroid(c, unit(0, 1), 'e')
    // mean of (1,0), (0,1), (0,1) = (1/3, 2/3)
    const norm = Math.hypot(1 / 3, 2 / 3)
    expect(c.centroid[0]).toBeCloseTo(1 / 3 / norm, 5)
    expect(c.centroid[1]).toBeCloseTo(2 / 3 / norm, 5)
    expect(c.centroidNorm).toBeCloseTo(norm, 5)
    expect(c.vectorCount).toBe(3)
  })

  it('becomes a moving average past the window', () => {
    let c = addToCentroid(undefined, unit(1, 0), 'e', 2)
    for (let i = 0; i < 10; i++) c = addToCentroid(c, unit(0, 1), 'e', 2)
    expect(c.centroid[1]).toBeGreaterThan(0.999)
    expect(c.vectorCount).toBe(11)
  })

  it('starts over for another embedder or length', () => {
    const c = addToCentroid({ centroid: [1, 0, 0], centroidNorm: 1, vectorCount: 5, embedder: 'old' }, unit(0, 1), 'new')
    expect(c).toEqual({ centroid: [0, 1], centroidNorm: 1, vectorCount: 1, embedder: 'new' })
  })
})
