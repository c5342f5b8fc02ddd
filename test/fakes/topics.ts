import type { ChannelRef } from '../../src/messages/types'
import type { TopicStore } from '../../src/topics/store'
import type { TopicRow } from '../../src/topics/table'
import { at } from './clock'

const inChannel = (row: { platform: string; channelId: string }, channel: ChannelRef) =>
  row.platform === channel.platform && row.channelId === channel.channelId

/** An in-memory `TopicStore`, with the cross-channel active list the scheduled summary pass reads. */
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
    return this.ofChannel(channel)
      .filter((r) => r.active && !r.archived)
      .slice(0, limit)
      .map((r) => ({ ...r }))
  }

  async list(channel: ChannelRef, limit: number, offset = 0) {
    return this.ofChannel(channel)
      .slice(offset, offset + limit)
      .map((r) => ({ ...r }))
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

  /** Active, unarchived topics of every channel, most recently active first. */
  async activeTopics(limit: number) {
    return [...this.rows.values()]
      .filter((r) => r.active && !r.archived)
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime())
      .slice(0, limit)
      .map((r) => ({ ...r }))
  }
}

/** A topic row of channel qq/g1 with defaults, its times at START. */
export function topicRow(id: string, fields: Partial<TopicRow> = {}): TopicRow {
  return {
    id,
    platform: 'qq',
    guildId: 'g1',
    channelId: 'g1',
    title: id,
    keywords: {},
    centroid: [],
    centroidNorm: 0,
    vectorCount: 0,
    embedder: 'e',
    messageCount: 0,
    creatorId: 'u1',
    createdAt: at(0),
    updatedAt: at(0),
    lastMessageAt: at(0),
    active: true,
    archived: false,
    ...fields,
  }
}
