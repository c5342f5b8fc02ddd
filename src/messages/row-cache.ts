import { rowBytes } from './channel-rows'
import type { MessageRow } from './table'

/**
 * Message rows this process has read, by row id, the least recently used dropped past `capBytes`
 * (each row estimated by `rowBytes`). A captured message never changes but for its topic, so a
 * cached row stands for the stored one as long as the table still has it: the store that serves rows
 * from here reads their ids and topics first (another instance may have erased or attributed them
 * meanwhile). A cap of 0 keeps none.
 */
export class RowCache {
  private rows = new Map<string, { row: MessageRow; bytes: number }>()
  private bytes = 0

  constructor(private readonly capBytes: number) {}

  get(id: string): MessageRow | undefined {
    const entry = this.rows.get(id)
    if (entry) {
      this.rows.delete(id)
      this.rows.set(id, entry)
    }
    return entry?.row
  }

  keep(rows: MessageRow[]): void {
    for (const row of rows) {
      this.drop([row.id])
      const bytes = rowBytes(row)
      if (bytes > this.capBytes) continue
      this.rows.set(row.id, { row, bytes })
      this.bytes += bytes
    }
    for (const [id, entry] of this.rows) {
      if (this.bytes <= this.capBytes) break
      this.rows.delete(id)
      this.bytes -= entry.bytes
    }
  }

  drop(ids: string[]): void {
    for (const id of ids) {
      const entry = this.rows.get(id)
      if (!entry) continue
      this.rows.delete(id)
      this.bytes -= entry.bytes
    }
  }

  held(): { bytes: number; entries: number } {
    return { bytes: this.bytes, entries: this.rows.size }
  }
}
