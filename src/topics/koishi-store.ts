import type { Context } from 'koishi'
import type { TopicStore } from './store'
import type { ChannelRef } from '../messages'
import type { GuildRef } from '../scope'
import { cleanId, dbWhere } from '../scope'
import type { TopicRow } from './table'

/** `TopicStore` on the Koishi table `memory_topic` (declare it with `defineTopicTable`). */
export class KoishiTopicStore implements TopicStore {
  constructor(private ctx: Context) {}

  async get(id: string) {
    if (!id) return undefined
    const [row] = await this.ctx.database.get('memory_topic', { id })
    return row
  }

  async active(channel: ChannelRef, limit: number) {
    if (limit <= 0) return []
    return this.ctx.database.get(
      'memory_topic',
      { ...where(channel), active: true, archived: false },
      {
        limit,
        sort: { lastMessageAt: 'desc' },
      },
    )
  }

  async list(channel: ChannelRef, limit: number, offset = 0) {
    if (limit <= 0) return []
    return this.ctx.database.get('memory_topic', where(channel), { limit, offset, sort: { lastMessageAt: 'desc' } })
  }

  async create(row: TopicRow) {
    await this.ctx.database.create('memory_topic', row)
  }

  async update(id: string, patch: Partial<TopicRow>) {
    const { id: _, ...rest } = patch
    await this.ctx.database.set('memory_topic', { id }, rest)
  }

  async remove(id: string) {
    await this.ctx.database.remove('memory_topic', { id })
  }

  /** Active, unarchived topics of every channel, most recently active first (the scheduled summary pass). */
  async activeAnywhere(limit: number): Promise<TopicRow[]> {
    if (limit <= 0) return []
    return this.ctx.database.get('memory_topic', { active: true, archived: false }, { limit, sort: { lastMessageAt: 'desc' } })
  }

  /** Every topic of a guild (`''`: the private chats), or of every channel (an export). */
  inGuild(guild?: GuildRef): Promise<TopicRow[]> {
    return this.ctx.database.get('memory_topic', guild ? { platform: cleanId(guild.platform), guildId: cleanId(guild.guildId) } : {})
  }

  async closeIdle(before: Date, limit: number) {
    if (limit <= 0) return []
    const idle = await this.ctx.database.get(
      'memory_topic',
      { active: true, lastMessageAt: { $lt: before } },
      {
        limit,
        sort: { lastMessageAt: 'asc' },
      },
    )
    if (!idle.length) return []
    // the same condition again: a topic that a message joined meanwhile stays open
    await this.ctx.database.set(
      'memory_topic',
      { id: { $in: idle.map((row) => row.id) }, active: true, lastMessageAt: { $lt: before } },
      { active: false },
    )
    const closed = await this.ctx.database.get('memory_topic', { id: { $in: idle.map((row) => row.id) }, active: false })
    return closed.sort((a, b) => a.lastMessageAt.getTime() - b.lastMessageAt.getTime())
  }
}

function where(channel: ChannelRef) {
  return dbWhere({ platform: channel.platform, channelId: channel.channelId })
}
