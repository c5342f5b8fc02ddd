import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { App } from 'koishi'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { KoishiMessageStore, messageRowId } from '../../src/messages/koishi-store'
import { createTopicSummaries, KoishiTopicSummaryStore } from '../../src/topic-summaries/koishi-store'
import { KoishiTopicStore } from '../../src/topics/koishi-store'
import { defineTopicSummaryTable } from '../../src/topic-summaries/table'
import type { MessageRow } from '../../src/messages/table'
import { Counters } from '../../src/core/observability'
import { at } from '../fakes/clock'
import { quiet } from '../fakes/logger'
import { ExactIndex } from '../fakes/exact-index'
import { topicRow } from '../fakes/topics'
import { summaryRow } from '../fakes/summaries'
import { sqliteApp } from '../fakes/sqlite-app'

function row(messageId: string, seconds: number, fields: Partial<MessageRow> = {}): MessageRow {
  const channelId = fields.channelId ?? 'g1'
  return {
    id: messageRowId('qq', channelId, messageId),
    messageId,
    platform: 'qq',
    guildId: channelId,
    channelId,
    userId: 'u1',
    userName: '小红',
    content: `去香山看红叶 ${messageId}`,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: 't1',
    createdAt: at(seconds),
    ...fields,
  }
}

describe('KoishiTopicSummaryStore (SQLite in memory)', () => {
  let app: App
  let store: KoishiTopicSummaryStore

  beforeEach(async () => {
    app = await sqliteApp()
    defineTopicSummaryTable(app)
    store = new KoishiTopicSummaryStore(app)
  })

  afterEach(async () => {
    await app.stop()
  })

  it('stores versions, refuses a second writer of the same version, and reads the newest per topic and channel', async () => {
    await store.insert(
      summaryRow({
        topicId: 't1',
        version: 1,
        keywords: { 香山: 1 },
        participants: ['小红'],
        quality: { coverage: 0.5, coherence: 1, relevance: 1, llmScore: 0.8, overall: 0.8 },
      }),
    )
    await store.insert(summaryRow({ topicId: 't1', version: 2, lastMessageAt: at(90) }))
    await store.insert(summaryRow({ topicId: 't2', version: 1, lastMessageAt: at(30) }))
    await store.insert(summaryRow({ topicId: 't3', version: 1, channelId: 'g2', guildId: 'g2' }))
    await expect(store.insert(summaryRow({ topicId: 't1', version: 2 }))).rejects.toThrow()

    expect((await store.latest('t1'))?.version).toBe(2)
    const versions = await store.versions('t1')
    expect(versions.map((r) => r.id)).toEqual(['t1#1', 't1#2'])
    expect(versions[0]).toMatchObject({ keywords: { 香山: 1 }, participants: ['小红'], quality: { llmScore: 0.8 }, fallback: false })
    expect(versions[0].firstMessageAt).toBeInstanceOf(Date)
    expect((await store.latestInChannel({ platform: 'qq', channelId: 'g1' }, 10)).map((r) => r.id)).toEqual(['t1#2', 't2#1'])
    expect((await store.latestIds()).sort()).toEqual(['t1#2', 't2#1', 't3#1'])
    expect((await store.get(['t2#1', 'nope'])).map((r) => r.id)).toEqual(['t2#1'])
  })

  it('reads the busiest group topics: the newest version of each with enough messages, private chats left out', async () => {
    await store.insert(summaryRow({ topicId: 'busy', version: 1, topicMessageCount: 20, lastMessageAt: at(50) }))
    await store.insert(summaryRow({ topicId: 'busy', version: 2, topicMessageCount: 25, lastMessageAt: at(90) }))
    await store.insert(summaryRow({ topicId: 'older', version: 1, topicMessageCount: 30, lastMessageAt: at(10) }))
    await store.insert(summaryRow({ topicId: 'quiet', version: 1, topicMessageCount: 5, lastMessageAt: at(95) }))
    await store.insert(summaryRow({ topicId: 'private', guildId: '', channelId: 'private:u1', topicMessageCount: 50 }))
    expect((await store.busiest(20, 10)).map((r) => r.id)).toEqual(['busy#2', 'older#1'])
    expect((await store.busiest(20, 1)).map((r) => r.id)).toEqual(['busy#2'])
    expect(await store.busiest(20, 0)).toEqual([])
  })

  it('summarises a topic end to end on the Koishi stores and finds it by hybrid search inside its channel only', async () => {
    const topics = new KoishiTopicStore(app)
    const messages = new KoishiMessageStore(app)
    await topics.create(topicRow('t1', { title: '香山红叶', messageCount: 4, lastMessageAt: at(30) }))
    await topics.create(topicRow('t9', { channelId: 'g2', guildId: 'g2', title: '香山红叶', messageCount: 3, lastMessageAt: at(30) }))
    for (const [i, s] of [0, 10, 20, 30].entries())
      await app.database.create('memory_message', row(`m${i}`, s, { userName: i % 2 ? '小明' : '小红' }))
    for (const [i, s] of [0, 10, 20].entries())
      await app.database.create('memory_message', row(`n${i}`, s, { channelId: 'g2', topicId: 't9' }))
    const index = new ExactIndex()
    const summaries = createTopicSummaries(app, {
      topics,
      messages,
      index,
      embedder: new OfflineEmbedder({ dims: 64 }),
      llm: () => undefined,
      counters: new Counters(),
      logger: quiet,
      now: () => at(3600),
    })
    expect(await summaries.scheduledPass()).toEqual({ checked: 2, summarized: 2, skipped: 0, failed: 0 })
    expect(await summaries.scheduledPass()).toEqual({ checked: 2, summarized: 0, skipped: 2, failed: 0 })
    const stored = await summaries.latest('t1')
    expect(stored).toMatchObject({ version: 1, fallback: true, messageCount: 4, participants: ['小红', '小明'], trigger: 'schedule' })
    expect(stored!.lastMessageAt.getTime()).toBe(at(30).getTime())
    expect([...index.rows.keys()].sort()).toEqual(['t1#1', 't9#1'])

    const hits = await summaries.searchSummaries('香山红叶', { platform: 'qq', channelId: 'g1' }, { limit: 10 })
    expect(hits.map((h) => h.row.id)).toEqual(['t1#1'])
    expect(hits[0].keywordScore).toBeGreaterThan(0)
    expect(hits[0].vectorScore).toBeGreaterThan(0)

    const raw = await summaries.rawMessages('t1', { since: at(10), until: at(20) })
    expect(raw.map((m) => m.messageId)).toEqual(['m1', 'm2'])
  })
})
