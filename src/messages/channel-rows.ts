import type { MessageRow } from './table'
import type { Neighbours } from './types'
import { firstAtOrAfter, nearest, timelineOrder } from './neighbours'

/** What one held row costs besides its strings: the object, its Date, the map entry and the array slot. */
const ROW_OVERHEAD = 250

/** An estimate of the memory a row holds. */
export function rowBytes(row: MessageRow): number {
  let strings = 0
  for (const value of Object.values(row)) if (typeof value === 'string') strings += value.length
  return ROW_OVERHEAD + 2 * strings
}

/** Rows in timeline order, placed and found by binary search. */
class Timeline {
  readonly rows: MessageRow[]

  constructor(rows: MessageRow[] = []) {
    this.rows = rows
  }

  insert(row: MessageRow): void {
    this.rows.splice(this.place(row), 0, row)
  }

  remove(row: MessageRow): void {
    const at = this.place(row)
    if (this.rows[at]?.id === row.id) this.rows.splice(at, 1)
  }

  replace(row: MessageRow, by: MessageRow): void {
    const at = this.place(row)
    if (this.rows[at]?.id === row.id) this.rows[at] = by
  }

  /** The newest `limit` rows before `before`, oldest first. */
  newest(options: { before?: Date; limit: number }): MessageRow[] {
    const end = options.before ? firstAtOrAfter(this.rows, options.before.getTime()) : this.rows.length
    return this.rows.slice(Math.max(0, end - options.limit), end)
  }

  /** Where `row` is, or would go. */
  private place(row: MessageRow): number {
    let lo = 0
    let hi = this.rows.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (timelineOrder(this.rows[mid], row) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/** Timelines by a key of their rows (a topic, a thread); a row with an empty key is in none. */
class Timelines {
  private readonly lists = new Map<string, Timeline>()

  constructor(private readonly keyOf: (row: MessageRow) => string) {}

  add(row: MessageRow): void {
    const key = this.keyOf(row)
    if (!key) return
    let list = this.lists.get(key)
    if (!list) this.lists.set(key, (list = new Timeline()))
    list.insert(row)
  }

  delete(row: MessageRow): void {
    const key = this.keyOf(row)
    const list = this.lists.get(key)
    if (!list) return
    list.remove(row)
    if (!list.rows.length) this.lists.delete(key)
  }

  newest(key: string, options: { before?: Date; limit: number }): MessageRow[] {
    return this.lists.get(key)?.newest(options) ?? []
  }
}

/**
 * Every message of one channel, in timeline order, and the reads the context builder makes of a
 * channel answered from them (by topic and by thread through timelines of their own). Rows are never
 * changed in place (callers keep them): a new topic replaces the row.
 */
export class ChannelRows {
  private readonly all: Timeline
  private readonly byId = new Map<string, MessageRow>()
  private readonly topics = new Timelines((row) => row.topicId)
  private readonly threads = new Timelines((row) => row.rootMessageId)
  private byteCount = 0

  constructor(rows: MessageRow[]) {
    this.all = new Timeline([...rows].sort(timelineOrder))
    for (const row of this.all.rows) this.index(row)
  }

  get size(): number {
    return this.all.rows.length
  }

  /** An estimate of the memory the rows hold (`rowBytes`). */
  get bytes(): number {
    return this.byteCount
  }

  get(id: string): MessageRow | undefined {
    return this.byId.get(id)
  }

  upsert(row: MessageRow): void {
    this.remove(row.id)
    this.all.insert(row)
    this.index(row)
  }

  remove(id: string): void {
    const row = this.byId.get(id)
    if (!row) return
    this.all.remove(row)
    this.unindex(row)
  }

  setTopic(id: string, topicId: string): void {
    const row = this.byId.get(id)
    if (!row || row.topicId === topicId) return
    const moved = { ...row, topicId }
    this.all.replace(row, moved)
    this.unindex(row)
    this.index(moved)
  }

  /** As `MessageStore.window`: in [since, before), the newest `limit`, oldest first. */
  window(options: { since?: Date; before: Date; limit: number }): MessageRow[] {
    const rows = this.all.newest(options)
    if (!options.since) return rows
    const start = firstAtOrAfter(rows, options.since.getTime())
    return rows.slice(start)
  }

  /** As `MessageStore.around`, for one moment. */
  around(time: Date, turns: number): Neighbours {
    return nearest(this.all.rows, time.getTime(), turns)
  }

  /** As `MessageStore.byTopic`. */
  byTopic(topicId: string, options: { before?: Date; limit: number }): MessageRow[] {
    return this.topics.newest(topicId, options)
  }

  /** As `MessageStore.byRoot`. */
  byRoot(rootMessageId: string, options: { before: Date; limit: number }): MessageRow[] {
    return this.threads.newest(rootMessageId, options)
  }

  private index(row: MessageRow) {
    this.byId.set(row.id, row)
    this.topics.add(row)
    this.threads.add(row)
    this.byteCount += rowBytes(row)
  }

  private unindex(row: MessageRow) {
    this.byId.delete(row.id)
    this.topics.delete(row)
    this.threads.delete(row)
    this.byteCount -= rowBytes(row)
  }
}
