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

export class KoishiOutbox implements Outbox {
  constructor(private ctx: Context) {}

  async add(table: string, rowId: string, op: OutboxRow['op']) {
    await this.addMany(table, [rowId], op)
  }

  async addMany(table: string, rowIds: string[], op: OutboxRow['op']) {
    const createdAt = new Date()
    for (const part of chunks([...new Set(rowIds)])) {
      await this.ctx.database.upsert(
        'memory_outbox',
        part.map((rowId) => ({ table, rowId, op, attempts: 0, createdAt })),
        ['table', 'rowId'],
      )
    }
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
