import { $, Context } from 'koishi'
import { dbWhere, Scope } from '../scope'
import type { FactRepository, Outbox } from './ports'
import type { FactRow, OutboxRow } from './tables'

export class KoishiFactRepository implements FactRepository {
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

  async findByContent(scope: Scope, content: string) {
    const [row] = await this.ctx.database.get('memory_fact', { ...dbWhere(scope), content }, { limit: 1 })
    return row
  }

  async list(scope: Scope, limit: number, offset = 0) {
    return this.ctx.database.get('memory_fact', dbWhere(scope), {
      limit,
      offset,
      sort: { updatedAt: 'desc' },
    })
  }

  async count(scope?: Scope) {
    return this.ctx.database.eval('memory_fact', (row) => $.count(row.id), scope ? dbWhere(scope) : {})
  }

  async remove(ids: string[]) {
    if (ids.length) await this.ctx.database.remove('memory_fact', { id: { $in: ids } })
  }
}

export class KoishiOutbox implements Outbox {
  constructor(private ctx: Context) {}

  async add(table: string, rowId: string, op: OutboxRow['op']) {
    await this.ctx.database.upsert('memory_outbox', [{ table, rowId, op, attempts: 0, createdAt: new Date() }], ['table', 'rowId'])
  }

  async take(table: string, limit: number) {
    return this.ctx.database.get('memory_outbox', { table }, { limit, sort: { id: 'asc' } })
  }

  async done(ids: number[]) {
    if (ids.length) await this.ctx.database.remove('memory_outbox', { id: { $in: ids } })
  }

  async retry(ids: number[]) {
    if (ids.length) await this.ctx.database.set('memory_outbox', { id: { $in: ids } }, (row) => ({ attempts: $.add(row.attempts, 1) }))
  }

  async forget(table: string, rowIds: string[]) {
    if (rowIds.length) await this.ctx.database.remove('memory_outbox', { table, rowId: { $in: rowIds } })
  }

  async size() {
    return this.ctx.database.eval('memory_outbox', (row) => $.count(row.id), {})
  }
}
