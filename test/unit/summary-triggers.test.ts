import { describe, expect, it } from 'vitest'
import { TopicSummaries } from '../../src/topic-summaries/summaries'
import { SUMMARY_TABLE } from '../../src/topic-summaries/summary-index'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import type { LLM } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { at } from '../fakes/clock'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryMessages } from '../fakes/messages'
import { MemoryTopics, topicRow } from '../fakes/topics'
import { MemorySummaries } from '../fakes/summaries'
import { message } from '../fakes/message-rows'

function setup(options: { llm?: LLM; countThreshold?: number } = {}) {
  const store = new MemorySummaries()
  const topics = new MemoryTopics()
  const messages = new MemoryMessages()
  const index = new ExactIndex()
  const outbox = new MemoryOutbox()
  const counters = new Counters()
  const clock = { now: at(3600) }
  const summaries = new TopicSummaries({
    store,
    topics,
    messages,
    activeTopics: (limit) => topics.activeTopics(limit),
    embedder: new OfflineEmbedder({ dims: 64 }),
    llm: () => options.llm,
    vector: { index, outbox },
    counters,
    logger: quiet,
    now: () => clock.now,
    options: { countThreshold: options.countThreshold ?? 5 },
  })
  /** Adds `n` messages to a topic (and counts them on the topic row, as attribution does). */
  const say = (topicId: string, n: number, from = 0, channelId = 'g1') => {
    const topic = topics.rows.get(topicId) ?? topicRow(topicId, { channelId, title: '香山红叶' })
    for (let i = 0; i < n; i++) {
      const seconds = from + i * 10
      messages.add(
        message({
          userId: `u${i % 2}`,
          content: `香山红叶第${from + i}条，周六去爬山`,
          at: seconds,
          topicId,
          channelId,
          id: `qq:${channelId}:${topicId}-${from + i}`,
          messageId: `${topicId}-${from + i}`,
        }),
      )
      topic.messageCount++
      topic.lastMessageAt = at(seconds)
    }
    topics.rows.set(topicId, topic)
  }
  return { store, topics, messages, index, outbox, counters, clock, summaries, say }
}

describe('summary triggers', () => {
  it('summarises a closed topic, indexes it, and skips it when closed again without new messages', async () => {
    const { summaries, topics, say, store, index } = setup()
    say('t1', 4)
    const closed = await topics.closeIdle(at(3000), 10)
    const [result] = await summaries.onTopicsClosed(closed)
    expect(result.status).toBe('created')
    if (result.status !== 'created') return
    expect(result.row).toMatchObject({
      id: 't1#1',
      version: 1,
      trigger: 'closed',
      fallback: true,
      messageCount: 4,
      topicMessageCount: 4,
      embedder: 'offline-ngram-v1',
    })
    expect(result.indexed).toBe(true)
    expect([...index.rows.keys()]).toEqual(['t1#1'])
    expect((await summaries.onTopicsClosed(closed))[0].status).toBe('unchanged')
    expect(store.rows.size).toBe(1)
  })

  it('leaves closed topics that are too short alone', async () => {
    const { summaries, say } = setup()
    say('t1', 2)
    expect((await summaries.onTopicsClosed([{ id: 't1' }]))[0]).toEqual({ status: 'too-few', messages: 2 })
    expect((await summaries.onTopicsClosed([{ id: 'missing' }]))[0]).toEqual({ status: 'not-found' })
  })

  it('summarises when a topic reaches the message-count threshold since its last summary', async () => {
    const { summaries, say } = setup({ countThreshold: 5 })
    say('t1', 4)
    expect(await summaries.onTopicMessages(['t1'])).toEqual([])
    say('t1', 1, 40)
    const [first] = await summaries.onTopicMessages(['t1', 't1'])
    expect(first).toMatchObject({ status: 'created', row: { version: 1, trigger: 'count', topicMessageCount: 5 } })
    say('t1', 4, 100)
    expect(await summaries.onTopicMessages(['t1'])).toEqual([])
    say('t1', 1, 200)
    const [second] = await summaries.onTopicMessages(['t1'])
    expect(second).toMatchObject({ status: 'created', row: { version: 2, topicMessageCount: 10, messageCount: 10 } })
  })

  it('a scheduled pass summarises active topics with new messages and skips unchanged ones', async () => {
    const { summaries, say, topics } = setup()
    say('t1', 3)
    say('t2', 3, 1000)
    say('t3', 3, 2000)
    topics.rows.get('t3')!.active = false
    expect(await summaries.scheduledPass()).toEqual({ checked: 2, summarized: 2, skipped: 0, failed: 0 })
    say('t2', 2, 1500)
    expect(await summaries.scheduledPass()).toEqual({ checked: 2, summarized: 1, skipped: 1, failed: 0 })
    expect((await summaries.latest('t2'))?.version).toBe(2)
    expect((await summaries.latest('t1'))?.version).toBe(1)
    expect(await summaries.latest('t3')).toBeUndefined()
  })

  it('by hand: always makes a new version, keeps the old ones, and only the newest is indexed', async () => {
    const llm = new FakeLLM((call) => (call.prompt.includes('1 到 10') ? '{"score": 7}' : '{"summary": "大家约好周六去香山看红叶。"}'))
    const { summaries, say, index, store } = setup({ llm })
    say('t1', 1)
    const one = await summaries.summarizeNow('t1')
    expect(one).toMatchObject({
      status: 'created',
      row: { version: 1, trigger: 'manual', fallback: false, model: 'scripted', summary: '大家约好周六去香山看红叶。' },
    })
    const two = await summaries.summarizeNow('t1')
    expect(two).toMatchObject({ status: 'created', row: { id: 't1#2', version: 2 } })
    expect((await summaries.versions('t1')).map((r) => r.version)).toEqual([1, 2])
    expect([...index.rows.keys()]).toEqual(['t1#2'])
    expect(store.rows.get('t1#2')!.quality).toMatchObject({ llmScore: 0.7 })
    expect(await summaries.summarizeNow('nope')).toEqual({ status: 'not-found' })
  })

  it('concurrent triggers on one topic write one version each, never the same version twice', async () => {
    const { summaries, say, store } = setup()
    say('t1', 6)
    const results = await Promise.all([
      summaries.summarize('t1', 'closed'),
      summaries.summarize('t1', 'schedule'),
      summaries.summarizeNow('t1'),
    ])
    expect(results.map((r) => r.status)).toEqual(['created', 'unchanged', 'created'])
    expect([...store.rows.keys()].sort()).toEqual(['t1#1', 't1#2'])
  })

  it('a version written meanwhile by another instance wins; nothing is duplicated', async () => {
    const { summaries, say, store } = setup()
    say('t1', 3)
    const insert = store.insert.bind(store)
    store.insert = async (row) => {
      await insert({ ...row, summary: 'other instance' })
      await insert(row)
    }
    const result = await summaries.summarizeNow('t1')
    expect(result).toMatchObject({ status: 'unchanged', row: { summary: 'other instance' } })
  })

  it('a summary still lands when the index is down, waits in the outbox and is indexed by drain', async () => {
    const { summaries, say, index, outbox } = setup()
    say('t1', 3)
    index.down = true
    const result = await summaries.summarizeNow('t1')
    expect(result).toMatchObject({ status: 'created', indexed: false })
    expect(outbox.rows.map((r) => [r.table, r.rowId])).toEqual([[SUMMARY_TABLE, 't1#1']])
    index.down = false
    await summaries.summarizeNow('t1')
    expect(await summaries.index!.table.drain()).toEqual({ indexed: 0, pending: false })
    expect([...index.rows.keys()]).toEqual(['t1#2'])
  })

  it('drain removes a stale version that waited in the outbox and indexes the newest', async () => {
    const { summaries, say, index, outbox } = setup()
    say('t1', 3)
    index.down = true
    await summaries.summarizeNow('t1')
    await summaries.summarizeNow('t1')
    index.down = false
    expect(outbox.rows.map((r) => `${r.op}:${r.rowId}`).sort()).toEqual(['delete:t1#1', 'upsert:t1#2'])
    expect(await summaries.index!.table.drain()).toEqual({ indexed: 2, pending: false })
    expect([...index.rows.keys()]).toEqual(['t1#2'])
    expect(await summaries.index!.table.rebuild()).toBe(1)
    expect(index.rows.size).toBe(0)
    expect((await summaries.index!.table.drain()).indexed).toBe(1)
    expect([...index.rows.keys()]).toEqual(['t1#2'])
  })
})

describe('raw messages on demand', () => {
  it("returns a topic's messages oldest first, within a time range, newest `limit` of it", async () => {
    const { summaries, say } = setup()
    say('t1', 10)
    say('t2', 3, 5)
    const all = await summaries.rawMessages('t1')
    expect(all).toHaveLength(10)
    expect(all.every((m) => m.topicId === 't1')).toBe(true)
    const range = await summaries.rawMessages('t1', { since: at(20), until: at(50) })
    expect(range.map((m) => m.createdAt.getTime())).toEqual([20, 30, 40, 50].map((s) => at(s).getTime()))
    expect((await summaries.rawMessages('t1', { since: at(20), limit: 2 })).map((m) => m.messageId)).toEqual(['t1-8', 't1-9'])
    expect((await summaries.rawMessages('t1', { until: at(15) })).map((m) => m.messageId)).toEqual(['t1-0', 't1-1'])
    expect(await summaries.rawMessages('')).toEqual([])
  })
})
