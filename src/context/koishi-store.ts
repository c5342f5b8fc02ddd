import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { ContextLogStore } from './store'
import type { ContextRecord, ReplyTraceRecord } from './table'

export class KoishiContextLogStore implements ContextLogStore {
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

  /** Drops the records and traces a user's messages triggered. Returns how many records went. */
  async removeUser(platform: string, userId: string) {
    const ids = (await this.ctx.database.get('memory_context', { platform, userId }, ['id'])).map((row) => row.id)
    await this.removeIds(ids)
    await this.ctx.database.remove('memory_reply_trace', { platform, userId })
    return ids.length
  }

  /** Drops the records, whoever triggered them, that showed one of these messages (their reply may repeat it). */
  async removeShowing(platform: string, channelIds: string[], messageIds: string[]) {
    const erased = new Set(messageIds)
    const ids: string[] = []
    for (const part of chunks([...new Set(channelIds)])) {
      const rows = await this.ctx.database.get('memory_context', { platform, channelId: { $in: part } }, ['id', 'chosenIds'])
      ids.push(...rows.filter((row) => (row.chosenIds ?? []).some((id) => erased.has(id))).map((row) => row.id))
    }
    await this.removeIds(ids)
    return ids.length
  }

  private async removeIds(ids: string[]) {
    for (const part of chunks(ids)) await this.ctx.database.remove('memory_context', { id: { $in: part } })
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
    return (await this.pruneTable('memory_context', before, keep)) + (await this.pruneTable('memory_reply_trace', before, keep))
  }

  /** Drops a log table's rows older than `before`, and the oldest beyond `keep`. */
  private async pruneTable(table: 'memory_context' | 'memory_reply_trace', before: Date, keep: number) {
    const old = await this.ctx.database.get(table, { createdAt: { $lt: before } }, ['id'])
    const surplus = await this.ctx.database.get(table, {}, { fields: ['id'], sort: { createdAt: 'desc' }, offset: keep, limit: 100_000 })
    const ids = [...new Set([...old, ...surplus].map((row) => row.id))]
    for (const part of chunks(ids)) await this.ctx.database.remove(table, { id: { $in: part } })
    return ids.length
  }
}
