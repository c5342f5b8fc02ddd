import type { Context } from 'koishi'
import { $ } from 'koishi'
import type { Scope } from '../scope'
import { dbWhere } from '../scope'
import type { FactStore, ListOptions } from './store'
import type { FactRow } from './table'

function where(scope: Scope | undefined, { history }: ListOptions) {
  const filter = scope ? dbWhere(scope) : {}
  return history ? filter : { ...filter, validTo: null }
}

export class KoishiFactStore implements FactStore {
  constructor(private ctx: Context) {}

  async insert(row: FactRow) {
    await this.ctx.database.create('memory_fact', row)
  }

  async update(id: string, patch: Partial<FactRow>) {
    await this.ctx.database.set('memory_fact', { id }, patch)
  }

  async get(ids: string[]) {
    if (!ids.length) return []
    return this.ctx.database.get('memory_fact', { id: { $in: ids } })
  }

  async findByContent(scope: Scope, content: string, options: ListOptions = {}) {
    const [row] = await this.ctx.database.get('memory_fact', { ...where(scope, options), content }, { limit: 1 })
    return row
  }

  async list(scope: Scope, limit: number, offset = 0, options: ListOptions = {}) {
    return this.ctx.database.get('memory_fact', where(scope, options), {
      limit,
      offset,
      sort: { updatedAt: 'desc' },
    })
  }

  async count(scope?: Scope, options: ListOptions = {}) {
    return this.ctx.database.eval('memory_fact', (row) => $.count(row.id), where(scope, options))
  }

  /** Every fact (closed ones too) of the channel that names the message `messageRowId` among its sources. */
  async drawnFrom(platform: string, channelId: string, messageRowId: string) {
    const rows = await this.ctx.database.get('memory_fact', { platform, channelId })
    return rows.filter((row) => row.sourceIds.includes(messageRowId))
  }

  async ofUser(platform: string, userId: string) {
    return this.ctx.database.get('memory_fact', { platform, userId })
  }

  async allIds() {
    return (await this.ctx.database.get('memory_fact', {}, ['id'])).map((row) => row.id)
  }

  async idsAfter(after: string, limit: number) {
    const rows = await this.ctx.database.get('memory_fact', { id: { $gt: after } }, { fields: ['id'], sort: { id: 'asc' }, limit })
    return rows.map((row) => row.id)
  }

  async changedSince(since: Date) {
    const rows = await this.ctx.database.get('memory_fact', { $or: [{ createdAt: { $gte: since } }, { updatedAt: { $gte: since } }] }, [
      'id',
    ])
    return rows.map((row) => row.id)
  }

  async remove(ids: string[]) {
    if (ids.length) await this.ctx.database.remove('memory_fact', { id: { $in: ids } })
  }
}
