import type { Context } from 'koishi'
import { $ } from 'koishi'
import { chunks } from '../core/chunks'

/** Index work that waits for LanceDB or the embedder to come back. */
export interface OutboxRow {
  id: number
  table: string
  rowId: string
  op: 'upsert' | 'delete'
  attempts: number
  createdAt: Date
}

declare module 'koishi' {
  interface Tables {
    memory_outbox: OutboxRow
  }
}

export function defineOutboxTable(ctx: Context) {
  ctx.model.extend(
    'memory_outbox',
    {
      id: 'unsigned',
      table: 'string(63)',
      rowId: 'string(63)',
      op: 'string(15)',
      attempts: 'unsigned',
      createdAt: 'timestamp',
    },
    {
      primary: 'id',
      autoInc: true,
      unique: [['table', 'rowId']],
    },
  )
}

/** Index work waiting for the vector store or the embedder. */
export interface Outbox {
  add(table: string, rowId: string, op: OutboxRow['op']): Promise<void>
  addMany(table: string, rowIds: string[], op: OutboxRow['op']): Promise<void>
  take(table: string, limit: number): Promise<OutboxRow[]>
  done(ids: number[]): Promise<void>
  retry(ids: number[]): Promise<void>
  /** Drops waiting work for these rows (their text is being erased). */
  forget(table: string, rowIds: string[]): Promise<void>
  size(): Promise<number>
}

/**
 * The outbox on the Koishi database. Several instances may share the database, each with its own
 * index: an instance's work is filed under its own name (`<instance>/<table>` in the `table` column),
 * so it is done on its index and no other; rows filed under the bare table name (written before
 * instances had names) are anyone's.
 */
export class KoishiOutbox implements Outbox {
  constructor(
    private ctx: Context,
    private readonly instance = '',
  ) {}

  private filed(table: string) {
    return this.instance ? `${this.instance}/${table}` : table
  }

  /** Where this instance's work for `table` may be filed. */
  private own(table: string) {
    return [...new Set([this.filed(table), table])]
  }

  async add(table: string, rowId: string, op: OutboxRow['op']) {
    await this.addMany(table, [rowId], op)
  }

  async addMany(table: string, rowIds: string[], op: OutboxRow['op']) {
    const createdAt = new Date()
    const filed = this.filed(table)
    for (const part of chunks([...new Set(rowIds)])) {
      await this.ctx.database.upsert(
        'memory_outbox',
        part.map((rowId) => ({ table: filed, rowId, op, attempts: 0, createdAt })),
        ['table', 'rowId'],
      )
    }
  }

  async take(table: string, limit: number) {
    const rows = await this.ctx.database.get('memory_outbox', { table: { $in: this.own(table) } }, { limit, sort: { id: 'asc' } })
    return rows.map((row) => ({ ...row, table }))
  }

  async done(ids: number[]) {
    if (ids.length) await this.ctx.database.remove('memory_outbox', { id: { $in: ids } })
  }

  async retry(ids: number[]) {
    if (ids.length) await this.ctx.database.set('memory_outbox', { id: { $in: ids } }, (row) => ({ attempts: $.add(row.attempts, 1) }))
  }

  async forget(table: string, rowIds: string[]) {
    if (rowIds.length) await this.ctx.database.remove('memory_outbox', { table: { $in: this.own(table) }, rowId: { $in: rowIds } })
  }

  async size() {
    if (!this.instance) return this.ctx.database.eval('memory_outbox', (row) => $.count(row.id), {})
    // instance names are hex: nothing in them needs escaping
    return this.ctx.database.eval('memory_outbox', (row) => $.count(row.id), { table: { $regex: `^${this.instance}/` } })
  }
}
