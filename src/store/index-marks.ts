import type { Context } from 'koishi'

/**
 * How far the comparison of one index table with the database has come, on one instance: the start
 * of the last comparison that went through every row, and the one under way (its start and the last
 * id it compared), so a comparison cut off by a stop or a kill goes on from there.
 */
export interface IndexMark {
  /** When the last whole comparison began: a start compares only what changed since. */
  checkedFrom?: Date
  /** When the comparison under way began; unset while none is. */
  sweepFrom?: Date
  /** The last id the comparison under way compared (in the database's order). */
  cursor: string
}

export interface IndexMarkRow {
  /** `<instance>/<table>`, as the outbox names an instance's work. */
  id: string
  checkedFrom: Date | null
  sweepFrom: Date | null
  cursor: string
}

declare module 'koishi' {
  interface Tables {
    memory_index_mark: IndexMarkRow
  }
}

export function defineIndexMarkTable(ctx: Context) {
  ctx.model.extend(
    'memory_index_mark',
    {
      id: 'string(127)',
      checkedFrom: { type: 'timestamp', nullable: true },
      sweepFrom: { type: 'timestamp', nullable: true },
      cursor: { type: 'string', length: 255, initial: '' },
    },
    { primary: 'id' },
  )
}

/** The marks of this instance's index tables. */
export interface IndexMarks {
  get(table: string): Promise<IndexMark | undefined>
  set(table: string, mark: IndexMark): Promise<void>
}

/** The marks on the Koishi database, one row per instance and table. */
export class KoishiIndexMarks implements IndexMarks {
  constructor(
    private readonly ctx: Context,
    private readonly instance: string,
  ) {}

  async get(table: string): Promise<IndexMark | undefined> {
    const [row] = await this.ctx.database.get('memory_index_mark', { id: this.idOf(table) })
    if (!row) return undefined
    return { checkedFrom: row.checkedFrom ?? undefined, sweepFrom: row.sweepFrom ?? undefined, cursor: row.cursor }
  }

  async set(table: string, mark: IndexMark): Promise<void> {
    await this.ctx.database.upsert('memory_index_mark', [
      { id: this.idOf(table), checkedFrom: mark.checkedFrom ?? null, sweepFrom: mark.sweepFrom ?? null, cursor: mark.cursor },
    ])
  }

  private idOf(table: string) {
    return `${this.instance}/${table}`
  }
}
