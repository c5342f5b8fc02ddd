import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { ContextLogStore, ContextRecord, ReplyTraceRecord } from './context-log'

export class KoishiContextLog implements ContextLogStore {
  constructor(private ctx: Context) {}

  async add(record: ContextRecord) {
    await this.ctx.database.create('memory_context', record)
  }

  async setReply(platform: string, channelId: string, triggerMessageId: string, reply: string) {
    const [row] = await this.ctx.database.get(
      'memory_context',
      { platform, channelId, triggerMessageId },
      {
        limit: 1,
        sort: { createdAt: 'desc' },
        fields: ['id'],
      },
    )
    if (row) await this.ctx.database.set('memory_context', { id: row.id }, { reply })
  }

  async since(since: Date) {
    return this.ctx.database.get('memory_context', { createdAt: { $gte: since } })
  }

  /** Drops the records and traces a user's messages triggered. */
  async removeUser(platform: string, userId: string) {
    await this.ctx.database.remove('memory_context', { platform, userId })
    await this.ctx.database.remove('memory_reply_trace', { platform, userId })
  }

  async addTrace(record: ReplyTraceRecord) {
    await this.ctx.database.create('memory_reply_trace', record)
  }

  async lastTrace(platform: string, channelId: string, triggerMessageId?: string) {
    const query = triggerMessageId ? { platform, channelId, triggerMessageId } : { platform, channelId }
    const [row] = await this.ctx.database.get('memory_reply_trace', query, { limit: 1, sort: { createdAt: 'desc' } })
    return row
  }

  async tracesSince(since: Date) {
    return this.ctx.database.get('memory_reply_trace', { createdAt: { $gte: since } })
  }

  async prune(before: Date, keep: number) {
    const old = await this.ctx.database.get('memory_context', { createdAt: { $lt: before } }, ['id'])
    const surplus = await this.ctx.database.get(
      'memory_context',
      {},
      { fields: ['id'], sort: { createdAt: 'desc' }, offset: keep, limit: 100_000 },
    )
    const ids = [...new Set([...old, ...surplus].map((row) => row.id))]
    for (const part of chunks(ids)) await this.ctx.database.remove('memory_context', { id: { $in: part } })
    return ids.length + (await this.pruneTraces(before, keep))
  }

  private async pruneTraces(before: Date, keep: number) {
    const old = await this.ctx.database.get('memory_reply_trace', { createdAt: { $lt: before } }, ['id'])
    const surplus = await this.ctx.database.get(
      'memory_reply_trace',
      {},
      { fields: ['id'], sort: { createdAt: 'desc' }, offset: keep, limit: 100_000 },
    )
    const ids = [...new Set([...old, ...surplus].map((row) => row.id))]
    for (const part of chunks(ids)) await this.ctx.database.remove('memory_reply_trace', { id: { $in: part } })
    return ids.length
  }
}
