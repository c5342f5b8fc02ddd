import type { MessageRow } from './table'

/**
 * Message rows this process has read, by row id, the least recently used dropped past `size`. A
 * captured message never changes but for its topic, so a cached row stands for the stored one as long
 * as the table still has it: the store that serves rows from here reads their ids and topics first
 * (another instance may have erased or attributed them meanwhile).
 */
export class RowCache {
  private rows = new Map<string, MessageRow>()

  constructor(private readonly size: number) {}

  get(id: string): MessageRow | undefined {
    const row = this.rows.get(id)
    if (row) {
      this.rows.delete(id)
      this.rows.set(id, row)
    }
    return row
  }

  keep(rows: MessageRow[]): void {
    for (const row of rows) {
      this.rows.delete(row.id)
      this.rows.set(row.id, row)
    }
    while (this.rows.size > this.size) this.rows.delete(this.rows.keys().next().value!)
  }

  drop(ids: string[]): void {
    for (const id of ids) this.rows.delete(id)
  }
}
