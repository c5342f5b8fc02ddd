import type { Outbox, OutboxRow } from '../../src/store/outbox'

/** An in-memory `Outbox`: one pending row per (table, row id), the newest op wins. */
export class MemoryOutbox implements Outbox {
  rows: OutboxRow[] = []
  private next = 1
  async add(table: string, rowId: string, op: OutboxRow['op']) {
    this.rows = this.rows.filter((r) => !(r.table === table && r.rowId === rowId))
    this.rows.push({ id: this.next++, table, rowId, op, attempts: 0, createdAt: new Date() })
  }
  async addMany(table: string, rowIds: string[], op: OutboxRow['op']) {
    for (const rowId of rowIds) await this.add(table, rowId, op)
  }
  async take(table: string, limit: number) {
    return this.rows.filter((r) => r.table === table).slice(0, limit)
  }
  async done(ids: number[]) {
    this.rows = this.rows.filter((r) => !ids.includes(r.id))
  }
  async retry(ids: number[]) {
    for (const r of this.rows) if (ids.includes(r.id)) r.attempts++
  }
  async forget(table: string, rowIds: string[]) {
    this.rows = this.rows.filter((r) => !(r.table === table && rowIds.includes(r.rowId)))
  }
  async size() {
    return this.rows.length
  }
}
