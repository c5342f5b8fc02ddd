import type { ChannelRef, MessageStore } from '../../src/messages/types'
import type { TopicStore } from '../../src/topics/store'
import type { MessageRow } from '../../src/messages/table'
import type { TopicRow } from '../../src/topics/table'

const byTime = (a: MessageRow, b: MessageRow) => a.createdAt.getTime() - b.createdAt.getTime()
const inChannel = (row: { platform: string; channelId: string }, channel: ChannelRef) =>
  row.platform === channel.platform && row.channelId === channel.channelId

/** An in-memory `MessageStore`, insertion order kept for equal timestamps. */
export class MemoryMessages implements MessageStore {
  rows = new Map<string, MessageRow>()

  add(...rows: MessageRow[]) {
    for (const row of rows) this.rows.set(row.id, { ...row })
  }

  private all() {
    return [...this.rows.values()].sort(byTime)
  }

  async window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }) {
    return this.all()
      .filter((r) => inChannel(r, channel) && r.createdAt < options.before && (!options.since || r.createdAt >= options.since))
      .slice(-options.limit)
  }

  async byMessageIds(channel: ChannelRef, messageIds: string[]) {
    return this.all().filter((r) => inChannel(r, channel) && messageIds.includes(r.messageId))
  }

  async byIds(ids: string[]) {
    return this.all().filter((r) => ids.includes(r.id))
  }

  async byTopic(topicId: string, options: { before: Date; limit: number }) {
    return this.all().filter((r) => r.topicId === topicId && r.createdAt < options.before).slice(-options.limit)
  }

  async byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }) {
    return this.all()
      .filter((r) => inChannel(r, channel) && r.rootMessageId === rootMessageId && r.createdAt < options.before)
      .slice(-options.limit)
  }

  async setTopic(ids: string[], topicId: string) {
    for (const id of ids) {
      const row = this.rows.get(id)
      if (row) row.topicId = topicId
    }
  }
}

/** An in-memory `TopicStore`. */
export class MemoryTopics implements TopicStore {
  rows = new Map<string, TopicRow>()

  async get(id: string) {
    const row = this.rows.get(id)
    return row && { ...row }
  }

  private ofChannel(channel: ChannelRef) {
    return [...this.rows.values()]
      .filter((r) => inChannel(r, channel))
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime())
  }

  async active(channel: ChannelRef, limit: number) {
    return this.ofChannel(channel).filter((r) => r.active && !r.archived).slice(0, limit).map((r) => ({ ...r }))
  }

  async list(channel: ChannelRef, limit: number, offset = 0) {
    return this.ofChannel(channel).slice(offset, offset + limit).map((r) => ({ ...r }))
  }

  async create(row: TopicRow) {
    this.rows.set(row.id, { ...row })
  }

  async update(id: string, patch: Partial<TopicRow>) {
    const row = this.rows.get(id)
    if (row) Object.assign(row, patch)
  }

  async remove(id: string) {
    this.rows.delete(id)
  }

  async closeIdle(before: Date, limit: number) {
    const idle = [...this.rows.values()]
      .filter((r) => r.active && r.lastMessageAt < before)
      .sort((a, b) => a.lastMessageAt.getTime() - b.lastMessageAt.getTime())
      .slice(0, limit)
    for (const row of idle) row.active = false
    return idle.map((r) => ({ ...r }))
  }
}

let seq = 0

/** A message row with defaults; `at` in seconds from a fixed start. */
export function message(fields: Partial<MessageRow> & { content: string; userId: string; at?: number }): MessageRow {
  const messageId = fields.messageId ?? `m${++seq}`
  const { at, ...rest } = fields
  return {
    id: `qq:g1:${messageId}`,
    messageId,
    platform: 'qq',
    guildId: 'g1',
    channelId: 'g1',
    userName: fields.userId,
    role: 'user',
    isMentionBot: false, isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: '',
    createdAt: new Date(Date.UTC(2025, 0, 1, 12) + (at ?? 0) * 1000),
    ...rest,
  }
}
