import { Context } from 'koishi'
import type { ChannelRef, MessageStore } from './types'
import { dbWhere } from '../scope'
import type { MessageRow } from './table'

/** Largest `$in` list sent in one query. */
const CHUNK = 500

/** Row id of a captured message, as the capture path builds it. */
export function messageRowId(platform: string, channelId: string, messageId: string) {
  return `${platform}:${channelId}:${messageId}`
}

function channelWhere(channel: ChannelRef) {
  return dbWhere({ platform: channel.platform, channelId: channel.channelId })
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

const oldestFirst = (a: MessageRow, b: MessageRow) => a.createdAt.getTime() - b.createdAt.getTime()

/** `MessageStore` on the Koishi table `memory_message`. Every list comes back oldest first. */
export class KoishiMessageStore implements MessageStore {
  constructor(private ctx: Context) {}

  async window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }) {
    if (options.limit <= 0) return []
    const createdAt = options.since ? { $gte: options.since, $lt: options.before } : { $lt: options.before }
    const rows = await this.ctx.database.get('memory_message', { ...channelWhere(channel), createdAt }, {
      limit: options.limit,
      sort: { createdAt: 'desc' },
    })
    return rows.reverse()
  }

  /** The oldest `limit` messages of a channel at or after `since` (for a context builder's "turns after a hit"). */
  async after(channel: ChannelRef, options: { since: Date; limit: number }) {
    if (options.limit <= 0) return []
    return this.ctx.database.get('memory_message', { ...channelWhere(channel), createdAt: { $gte: options.since } }, {
      limit: options.limit,
      sort: { createdAt: 'asc' },
    })
  }

  async byMessageIds(channel: ChannelRef, messageIds: string[]) {
    // the row id holds the channel, so this is a primary-key lookup that cannot leave the channel
    const ids = [...new Set(messageIds)].map((id) => messageRowId(channel.platform, channel.channelId, id))
    return this.byIds(ids)
  }

  async byIds(ids: string[]) {
    const unique = [...new Set(ids)]
    const rows: MessageRow[] = []
    for (const part of chunks(unique)) rows.push(...await this.ctx.database.get('memory_message', { id: { $in: part } }))
    return rows.sort(oldestFirst)
  }

  async byTopic(topicId: string, options: { before: Date; limit: number }) {
    if (!topicId || options.limit <= 0) return []
    const rows = await this.ctx.database.get('memory_message', { topicId, createdAt: { $lt: options.before } }, {
      limit: options.limit,
      sort: { createdAt: 'desc' },
    })
    return rows.reverse()
  }

  async byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }) {
    if (!rootMessageId || options.limit <= 0) return []
    const rows = await this.ctx.database.get('memory_message', {
      ...channelWhere(channel),
      rootMessageId,
      createdAt: { $lt: options.before },
    }, { limit: options.limit, sort: { createdAt: 'desc' } })
    return rows.reverse()
  }

  async setTopic(ids: string[], topicId: string) {
    for (const part of chunks([...new Set(ids)])) await this.ctx.database.set('memory_message', { id: { $in: part } }, { topicId })
  }
}
