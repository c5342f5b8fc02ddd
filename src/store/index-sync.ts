import type { Embedder } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { Outbox } from './outbox'
import type { IndexRow, VectorIndex } from './vector-index'

/** The part of a database row that its LanceDB copy is scoped by. */
export interface IndexedRow {
  id: string
  platform: string
  guildId: string
  /** Left out for rows that belong to a whole guild. */
  channelId?: string
  createdAt: Date
}

export function toIndexRow(row: IndexedRow, text: string, vector: Float32Array): IndexRow {
  return {
    id: row.id,
    text,
    vector,
    platform: row.platform,
    user_id: '',
    guild_id: row.guildId,
    channel_id: row.channelId ?? '',
    created_at: row.createdAt.getTime(),
  }
}

export interface IndexSyncDeps {
  index: VectorIndex
  embedder: Embedder
  outbox: Outbox
  counters: Counters
  logger: Logger
  table?: string
}

/** The LanceDB side of an `IndexSync`: the store, the outbox and the table when not the default. */
export type VectorSide = Pick<IndexSyncDeps, 'index' | 'outbox' | 'table'>

/** What differs between the tables an `IndexSync` keeps. */
export interface IndexedKind<Row> {
  /** The LanceDB table when the deps name none; the outbox files the table's work under this name too. */
  table: string
  /** The rows' name in log lines, singular and plural. */
  name: string
  plural: string
  /** The text a row is embedded and full-text indexed by. */
  text(row: Row): string
  /** Ids of every row that belongs in the index, queued again when the table held another embedder's vectors. */
  allIds(): Promise<string[]>
  /** Whether a row loaded by `drain` belongs in the index; the others are removed. Default: every row. */
  indexed?(row: Row): boolean
}

/**
 * Keeps a LanceDB table in step with database rows (the truth), as `FactIndex` does for facts: what
 * cannot be indexed now waits in the outbox (table name = the LanceDB table) and is retried by
 * `drain`. The table is prepared on first use; when it held another embedder's vectors every row
 * that belongs in it is queued again.
 */
export class IndexSync<Row extends IndexedRow> {
  readonly table: string
  private prepared = false

  constructor(protected readonly deps: IndexSyncDeps, private readonly kind: IndexedKind<Row>) {
    this.table = deps.table ?? kind.table
  }

  /** Prepares the table once. False while the vector store is unavailable. */
  async ready(): Promise<boolean> {
    if (this.prepared) return true
    const { index, embedder, outbox, logger } = this.deps
    try {
      const check = await index.prepare(this.table, embedder.id, embedder.dims)
      if (check === 'reindex') {
        const ids = await this.kind.allIds()
        for (const id of ids) await outbox.add(this.table, id, 'upsert')
        logger.info('embedder changed: %d %s will be indexed again', ids.length, this.kind.plural)
      }
      this.prepared = true
    } catch (error) {
      logger.debug('%s index not ready: %s', this.kind.name, (error as Error).message)
    }
    return this.prepared
  }

  /** Queues rows for (re-)indexing by the next `drain`. */
  async requeue(ids: string[]): Promise<void> {
    for (const id of ids) await this.deps.outbox.add(this.table, id, 'upsert')
  }

  /**
   * Indexes waiting rows in batches; stops at the first failure and leaves the rest queued. Ids that
   * `load` does not return, or returns as rows that do not belong in the index, are removed.
   */
  async drain(load: (ids: string[]) => Promise<Row[]>, batch = 64): Promise<{ indexed: number; pending: boolean }> {
    const { index, outbox } = this.deps
    let indexed = 0
    if (!await this.ready()) return { indexed, pending: (await outbox.take(this.table, 1)).length > 0 }
    for (;;) {
      const waiting = await outbox.take(this.table, batch)
      if (!waiting.length) return { indexed, pending: false }
      try {
        const wanted = waiting.filter((row) => row.op === 'upsert').map((row) => row.rowId)
        const rows = await load(wanted)
        const add = this.kind.indexed ? rows.filter((row) => this.kind.indexed!(row)) : rows
        const found = new Set(add.map((row) => row.id))
        const remove = [...new Set([...waiting.filter((row) => row.op === 'delete').map((row) => row.rowId), ...wanted.filter((id) => !found.has(id))])]
        if (remove.length) await index.delete(this.table, remove)
        if (add.length) await this.upsert(add)
        await outbox.done(waiting.map((row) => row.id))
        indexed += waiting.length
      } catch (error) {
        await outbox.retry(waiting.map((row) => row.id))
        this.deps.logger.debug('%s outbox drain stopped: %s', this.kind.name, (error as Error).message)
        return { indexed, pending: true }
      }
    }
  }

  /** Removes `remove`, then indexes `add` (`vectors`: theirs, when already made). Throws on any failure. */
  protected async write(add: Row[], remove: string[], vectors?: Float32Array[]): Promise<void> {
    if (!await this.ready()) throw new Error('the vector store is unavailable')
    if (remove.length) {
      await this.deps.outbox.forget(this.table, remove)
      await this.deps.index.delete(this.table, remove)
    }
    if (add.length) await this.upsert(add, vectors)
  }

  /** Queues the work of a failed `write` for `drain`. Never throws. */
  protected async queue(upserts: string[], deletes: string[]): Promise<void> {
    const { outbox, logger } = this.deps
    try {
      for (const id of deletes) await outbox.add(this.table, id, 'delete')
      for (const id of upserts) await outbox.add(this.table, id, 'upsert')
    } catch (error) {
      // the database failed too: `memory.reindex` rebuilds the index from the rows
      logger.warn('could not queue %s index work: %s', this.kind.name, (error as Error).message)
    }
  }

  /** The query's vector for a search. Throws when the store or the embedder is unavailable. */
  protected async queryVector(query: string): Promise<Float32Array> {
    if (!await this.ready()) throw new Error('the vector store is unavailable')
    const [vector] = await this.deps.embedder.embed([query])
    return vector
  }

  private async upsert(rows: Row[], vectors?: Float32Array[]): Promise<void> {
    const made = vectors ?? await this.deps.embedder.embed(rows.map((row) => this.kind.text(row)))
    await this.deps.index.upsert(this.table, rows.map((row, i) => toIndexRow(row, this.kind.text(row), made[i])))
  }
}

/** What a class that keeps its own LanceDB table needs (the message index, the episodes). */
export interface OwnTableDeps {
  index: VectorIndex
  embedder: Embedder
  counters: Counters
  logger: Logger
  /** The LanceDB table, when not the class's default. */
  table?: string
  /** Where removals wait while the store is down (`drainDeletes`). */
  outbox?: Outbox
}

/**
 * Removes erased rows from a LanceDB table; while the store is down, queues the deletes in the
 * outbox for `drainDeletes`, so no erased text stays in the index. Never throws.
 */
export async function removeFromIndex(
  deps: { index: VectorIndex; outbox?: Outbox; counters: Counters; logger: Logger },
  table: string,
  ids: string[],
  name: string,
): Promise<void> {
  if (!ids.length) return
  try {
    await deps.index.delete(table, ids)
  } catch (error) {
    deps.counters.inc(`${name}.remove-failed`)
    deps.logger.warn('could not remove %d %s from the index, will retry: %s', ids.length, name, (error as Error).message)
    try {
      for (const id of ids) await deps.outbox?.add(table, id, 'delete')
    } catch (queueError) {
      deps.logger.warn('could not queue the removal of %d %s: %s', ids.length, name, (queueError as Error).message)
    }
  }
}

/** Carries out the deletes `removeFromIndex` queued for `table`; stops at the first failure. */
export async function drainDeletes(index: VectorIndex, outbox: Outbox, table: string, batch = 256): Promise<{ indexed: number; pending: boolean }> {
  let indexed = 0
  for (;;) {
    const waiting = await outbox.take(table, batch)
    if (!waiting.length) return { indexed, pending: false }
    try {
      await index.delete(table, waiting.map((row) => row.rowId))
      await outbox.done(waiting.map((row) => row.id))
      indexed += waiting.length
    } catch {
      await outbox.retry(waiting.map((row) => row.id))
      return { indexed, pending: true }
    }
  }
}
