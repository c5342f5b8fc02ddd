import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { App } from 'koishi'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { TopicAttributor } from '../../src/topics/attributor'
import { KoishiMessageStore, messageRowId } from '../../src/messages/koishi-store'
import { KoishiTopicStore } from '../../src/topics/koishi-store'
import type { MessageRow } from '../../src/messages/table'
import type { TopicRow } from '../../src/topics/table'
import { at } from '../fakes/clock'
import { alternating } from '../fakes/topic-chat'
import { sqliteApp } from '../fakes/sqlite-app'

const channel = { platform: 'qq', guildId: 'g1', channelId: 'g1' }

function row(messageId: string, seconds: number, fields: Partial<MessageRow> = {}): MessageRow {
  const platform = fields.platform ?? 'qq'
  const channelId = fields.channelId ?? 'g1'
  return {
    id: messageRowId(platform, channelId, messageId),
    messageId,
    platform,
    guildId: 'g1',
    channelId,
    userId: 'u1',
    userName: 'U1',
    content: `line ${messageId}`,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: '',
    createdAt: at(seconds),
    ...fields,
  }
}

function topic(id: string, seconds: number, fields: Partial<TopicRow> = {}): TopicRow {
  return {
    id,
    ...channel,
    title: id,
    keywords: { 香山: 1.5 },
    centroid: [0.6, 0.8],
    centroidNorm: 0.9,
    vectorCount: 2,
    embedder: 'e',
    messageCount: 2,
    creatorId: 'u1',
    createdAt: at(0),
    updatedAt: at(seconds),
    lastMessageAt: at(seconds),
    active: true,
    archived: false,
    ...fields,
  }
}

describe('Koishi stores (SQLite in memory)', () => {
  let app: App
  let messages: KoishiMessageStore
  let topics: KoishiTopicStore

  beforeEach(async () => {
    app = await sqliteApp()
    messages = new KoishiMessageStore(app)
    topics = new KoishiTopicStore(app)
  })

  afterEach(async () => {
    await app.stop()
  })

  it('declares the message indexes the short-term reads use', () => {
    const names = app.model.tables.memory_message.indexes.map((index) => Object.keys(index.keys).join('+'))
    expect(names).toEqual(
      expect.arrayContaining(['platform+channelId+createdAt', 'topicId+createdAt', 'platform+channelId+rootMessageId+createdAt']),
    )
  })

  it('reads windows, ids, topics and threads oldest first, inside one channel', async () => {
    await app.database.upsert('memory_message', [
      row('m1', 0),
      row('m2', 10, { rootMessageId: 'm1', replyMessageId: 'm1' }),
      row('m3', 20),
      row('m4', 30, { rootMessageId: 'm1' }),
      row('m1', 5, { channelId: 'other' }),
      row('m9', 15, { platform: 'discord' }),
    ])
    expect((await messages.window(channel, { before: at(30), limit: 2 })).map((r) => r.messageId)).toEqual(['m2', 'm3'])
    expect((await messages.window(channel, { since: at(10), before: at(100), limit: 10 })).map((r) => r.messageId)).toEqual([
      'm2',
      'm3',
      'm4',
    ])
    expect((await messages.byMessageIds(channel, ['m3', 'm1', 'nope'])).map((r) => r.id)).toEqual(['qq:g1:m1', 'qq:g1:m3'])
    expect((await messages.byIds(['qq:other:m1', 'qq:g1:m2'])).map((r) => r.createdAt)).toEqual([at(5), at(10)])
    // the root is its own root
    expect((await messages.byRoot(channel, 'm1', { before: at(30), limit: 5 })).map((r) => r.messageId)).toEqual(['m1', 'm2'])
    expect((await messages.byRoot(channel, 'm1', { before: at(31), limit: 2 })).map((r) => r.messageId)).toEqual(['m2', 'm4'])

    await messages.setTopic(['qq:g1:m1', 'qq:g1:m3', 'qq:g1:m4'], 't1')
    expect((await messages.byTopic('t1', { before: at(30), limit: 5 })).map((r) => r.messageId)).toEqual(['m1', 'm3'])
    expect((await messages.byTopic('t1', { before: at(100), limit: 1 })).map((r) => r.messageId)).toEqual(['m4'])
    expect(await messages.byTopic('', { before: at(100), limit: 5 })).toEqual([])
  })

  it('stores topics with their keywords and centroid, lists the active ones and closes idle ones', async () => {
    await topics.create(topic('t1', 100))
    await topics.create(topic('t2', 300))
    await topics.create(topic('t3', 200, { archived: true }))
    await topics.create(topic('t4', 50, { channelId: 'other' }))
    expect(await topics.get('t1')).toEqual(topic('t1', 100))
    expect(await topics.get('nope')).toBeUndefined()
    expect((await topics.active(channel, 10)).map((t) => t.id)).toEqual(['t2', 't1'])
    expect((await topics.list(channel, 10)).map((t) => t.id)).toEqual(['t2', 't3', 't1'])

    await topics.update('t1', { messageCount: 3, keywords: { 香山: 2, 红叶: 1 }, id: 'ignored' } as Partial<TopicRow>)
    expect(await topics.get('t1')).toMatchObject({ messageCount: 3, keywords: { 香山: 2, 红叶: 1 } })

    const closed = await topics.closeIdle(at(250), 10)
    expect(closed.map((t) => [t.id, t.active])).toEqual([
      ['t4', false],
      ['t1', false],
      ['t3', false],
    ])
    expect((await topics.active(channel, 10)).map((t) => t.id)).toEqual(['t2'])
    expect(await topics.closeIdle(at(250), 10)).toEqual([])
  })

  it('attributes an interleaved group chat end to end', async () => {
    const attributor = new TopicAttributor({ topics, messages, embedder: new OfflineEmbedder() })
    const threads = new Map<string, Set<string>>()
    let seconds = 0
    for (const [i, line] of alternating().entries()) {
      const stored = row(`c${i}`, (seconds += 20), { userId: line.userId, userName: line.userId, content: line.content })
      await app.database.upsert('memory_message', [stored])
      const { topicId } = await attributor.attribute(stored)
      threads.set(line.thread, (threads.get(line.thread) ?? new Set()).add(topicId))
    }
    expect(threads.get('A')!.size).toBe(1)
    expect(threads.get('B')!.size).toBe(1)
    const [a] = threads.get('A')!
    expect((await topics.get(a))!).toMatchObject({ messageCount: 6, vectorCount: 6, title: '香山、爬山、红叶' })
    expect((await messages.byTopic(a, { before: at(1000), limit: 10 })).map((r) => r.userId)).toEqual([
      '小王',
      '阿杰',
      '小王',
      '阿杰',
      '小王',
      '阿杰',
    ])
  })
})
