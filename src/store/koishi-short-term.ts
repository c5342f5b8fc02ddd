import { Context } from 'koishi'
import { dbWhere, Scope } from '../scope'
import type { ContextLogStore, ContextRecord } from '../short-term/context-log'
import type { Episode, EpisodeStore } from '../short-term/episodic'
import type { SummaryRecord, SummaryStore } from '../short-term/rolling-summary'
import type { ChannelRef } from '../short-term/types'

const channelKey = (channel: Pick<ChannelRef, 'platform' | 'channelId'>) => `${channel.platform}:${channel.channelId}`

export class KoishiChannelSummaries implements SummaryStore {
  constructor(private ctx: Context) {}

  async get(channel: ChannelRef) {
    const [row] = await this.ctx.database.get('memory_channel_summary', { id: channelKey(channel) })
    return row
  }

  async save(record: SummaryRecord) {
    await this.ctx.database.upsert('memory_channel_summary', [{ ...record, id: channelKey(record) }])
  }

  async remove(channel: ChannelRef) {
    await this.ctx.database.remove('memory_channel_summary', { id: channelKey(channel) })
  }
}

export class KoishiEpisodes implements EpisodeStore {
  constructor(private ctx: Context) {}

  async get(ids: string[]) {
    return ids.length ? this.ctx.database.get('memory_episode', { id: { $in: ids } }) : []
  }

  async upsert(episode: Episode) {
    await this.ctx.database.upsert('memory_episode', [episode])
  }

  async recent(scope: Scope, limit: number) {
    return this.ctx.database.get('memory_episode', dbWhere(scope), { limit, sort: { createdAt: 'desc' } })
  }

  async remove(ids: string[]) {
    if (ids.length) await this.ctx.database.remove('memory_episode', { id: { $in: ids } })
  }
}

export class KoishiContextLog implements ContextLogStore {
  constructor(private ctx: Context) {}

  async add(record: ContextRecord) {
    await this.ctx.database.create('memory_context', record)
  }

  async setReply(platform: string, channelId: string, triggerMessageId: string, reply: string) {
    const [row] = await this.ctx.database.get('memory_context', { platform, channelId, triggerMessageId }, {
      limit: 1, sort: { createdAt: 'desc' }, fields: ['id'],
    })
    if (row) await this.ctx.database.set('memory_context', { id: row.id }, { reply })
  }

  async since(since: Date) {
    return this.ctx.database.get('memory_context', { createdAt: { $gte: since } })
  }

  async prune(before: Date, keep: number) {
    const old = await this.ctx.database.get('memory_context', { createdAt: { $lt: before } }, ['id'])
    const surplus = await this.ctx.database.get('memory_context', {}, { fields: ['id'], sort: { createdAt: 'desc' }, offset: keep, limit: 100_000 })
    const ids = [...new Set([...old, ...surplus].map((row) => row.id))]
    for (let i = 0; i < ids.length; i += 500) await this.ctx.database.remove('memory_context', { id: { $in: ids.slice(i, i + 500) } })
    return ids.length
  }
}
