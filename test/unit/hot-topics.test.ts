import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import { Maintenance } from '../../src/jobs/maintenance'
import { KeyedQueue } from '../../src/core/keyed-queue'
import type { HotTopic } from '../../src/knowledge'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { TopicSummaries } from '../../src/topic-summaries/summaries'
import { at } from '../fakes/clock'
import { quiet } from '../fakes/logger'
import { message } from '../fakes/message-rows'
import { MemoryMessages } from '../fakes/messages'
import { MemorySummaries, summaryRow } from '../fakes/summaries'
import { MemoryTopics } from '../fakes/topics'

function setup(knowledgeOn = true) {
  const store = new MemorySummaries()
  const messages = new MemoryMessages()
  const counters = new Counters()
  const summaries = new TopicSummaries({
    store,
    topics: new MemoryTopics(),
    messages,
    embedder: new OfflineEmbedder({ dims: 64 }),
    llm: () => undefined,
    counters,
    logger: quiet,
    now: () => at(3600),
  })
  const promoted: { topics: HotTopic[]; limit: number; sources: string[][] }[] = []
  const maintenance = new Maintenance({
    queue: new KeyedQueue({ limit: 10, concurrency: 1, counters, onError: () => undefined }),
    attributor: { closeIdleTopics: async () => [] },
    onTopicsClosed: () => undefined,
    summaries,
    groups: { groupsWithNewMessages: async () => [], evolve: async () => undefined } as never,
    hasModel: false,
    summariesEnabled: true,
    evolutionDays: 1,
    evolutionMinMessages: 1,
    promoteTopics: knowledgeOn
      ? async (topics, limit) => {
          promoted.push({ topics, limit, sources: await Promise.all(topics.map((topic) => topic.sourceIds())) })
          return Math.min(limit, topics.length)
        }
      : undefined,
    hotTopic: { minMessages: 10, minParticipants: 3 },
    logger: quiet,
  })
  return { store, messages, maintenance, promoted }
}

describe('hot mid-term topics promoted into long-term knowledge', () => {
  it('hands over the newest summary of group topics with many messages and speakers, with the topic’s messages', async () => {
    const { store, messages, maintenance, promoted } = setup()
    const three = ['a', 'b', 'c']
    // hot: 12 messages, three speakers; its newer version is the one read
    await store.insert(summaryRow({ topicId: 'hot', version: 1, topicMessageCount: 10, participants: three, summary: '旧的' }))
    await store.insert(summaryRow({ topicId: 'hot', version: 2, topicMessageCount: 12, participants: three, summary: '小明是小红的哥哥' }))
    // too few messages; too few speakers; a private chat
    await store.insert(summaryRow({ topicId: 'small', topicMessageCount: 4, participants: three }))
    await store.insert(summaryRow({ topicId: 'duet', topicMessageCount: 40, participants: ['a', 'b'] }))
    await store.insert(summaryRow({ topicId: 'private', guildId: '', topicMessageCount: 40, participants: three }))
    for (let i = 0; i < 3; i++) messages.add(message({ userId: three[i], content: `第${i}条`, topicId: 'hot', messageId: `hot-${i}` }))

    expect(await maintenance.promoteHotTopics()).toBe(1)
    expect(promoted).toHaveLength(1)
    expect(promoted[0].topics.map((topic) => [topic.topicId, topic.summaryId, topic.summary])).toEqual([
      ['hot', 'hot#2', '小明是小红的哥哥'],
    ])
    expect(promoted[0].sources).toEqual([['qq:g1:hot-0', 'qq:g1:hot-1', 'qq:g1:hot-2']])
    // bounded per run
    expect(promoted[0].limit).toBeLessThanOrEqual(5)
  })

  it('does nothing with the knowledge off', async () => {
    const { store, maintenance, promoted } = setup(false)
    await store.insert(summaryRow({ topicId: 'hot', topicMessageCount: 40, participants: ['a', 'b', 'c'] }))
    expect(await maintenance.promoteHotTopics()).toBe(0)
    expect(promoted).toEqual([])
  })
})
