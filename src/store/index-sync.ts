import type { Counters, Logger } from '../core/observability'
import type { Embedder } from '../providers/types'
import type { IndexMarks } from './index-marks'
import type { Outbox } from './outbox'
import type { Scope } from '../scope'
import type { IndexHit, IndexRow, VectorIndex } from './vector-index'

/** What a LanceDB row holds besides its vector: the text it is searched by and its scope. */
export type IndexFields = Omit<IndexRow, 'vector'>

/**
 * One kind of database row that has a LanceDB copy. The database is the truth: the kind says how a
 * row looks in the index and how to read rows back, and `IndexedTable` keeps the copy in step.
 */
export interface IndexKind<Row extends { id: string }> {
  /** The LanceDB table; the outbox files this kind's waiting work under the same name. */
  table: string
  /** The rows' name in log lines and replies (plural). */
  name: string
  /** The row as the index stores it (text and scope). */
  fields(row: Row): IndexFields
  /** Rows by id from the database. Ids it does not return are removed from the index. */
  load(ids: string[]): Promise<Row[]>
  /** Ids of every row that belongs in the index, for a rebuild. */
  allIds(): Promise<string[]>
  /**
   * Up to `limit` ids of rows that belong, in the database's order of ids, after `after` (`''`: from the
   * first): the comparison with the index goes a slice at a time. Without it, a comparison reads `allIds`.
   */
  idsAfter?(after: string, limit: number): Promise<string[]>
  /** Ids of rows that belong and were written (created or changed) since `since`: what a start compares. */
  changedSince?(since: Date): Promise<string[]>
  /** Whether a loaded row belongs in the index; the others are removed. Default: every row. */
  indexed?(row: Row): boolean
}

export interface IndexSyncDeps {
  index: VectorIndex
  embedder: Embedder
  outbox: Outbox
  /** Where each table's comparison with the database stands; without it every comparison goes through every row. */
  marks?: IndexMarks
  counters: Counters
  logger: Logger
  /** Awaited before rows are embedded and written: replies' reads go first (`Foreground.clear`). */
  yieldToReads?(): Promise<void>
}

/** The LanceDB side a domain is given: the store, the outbox and the table when not the kind's own. */
export interface VectorSide {
  index: VectorIndex
  outbox: Outbox
  table?: string
}

export interface DrainResult {
  indexed: number
  pending: boolean
}

/** One table of a rebuild: how many rows were queued and how many are indexed again. */
export interface RebuildResult extends DrainResult {
  table: string
  name: string
  queued: number
}

/** What the registry needs of a table, whatever its rows. */
export interface RegisteredTable {
  readonly table: string
  readonly name: string
  drain(): Promise<DrainResult>
  ready(rebuildNew?: boolean): Promise<boolean>
  purgeErased(): Promise<void>
  queueAll(): Promise<number>
  rebuild(): Promise<number>
  reconcile(signal?: AbortSignal): Promise<ReconcileResult>
  reconcileChanged(): Promise<ReconcileResult>
  verify(): Promise<void>
}

/** Ids the database gives per slice of a comparison. */
const SLICE = 2000
/**
 * A start compares the rows written since the last whole comparison began, and this long before it:
 * a row stamped before it may have reached the database a little later (another instance's clock, a
 * message's platform time).
 */
const CHANGED_SLACK_MS = 60 * 60_000

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** What a comparison of the index with the database found and queued. */
export interface ReconcileResult {
  /** Rows the database has and the index lacks (a write lost to a kill, an outage that outlasted the retries). */
  missing: number
  /** Rows the index has and the database not. */
  extra: number
}

/**
 * The LanceDB copy of one kind of row. What cannot be written now (store or embedder down) waits in
 * the outbox and `drain` retries it. The table is prepared on first use; when it held another
 * embedder's vectors, or LanceDB lost it, every row of the kind is queued again.
 */
export class IndexedTable<Row extends { id: string }> implements RegisteredTable {
  readonly table: string
  readonly name: string
  private prepared = false
  /** Rows were removed from the index since the last purge: their text may still be on disk. */
  private erased = false

  constructor(
    private readonly deps: IndexSyncDeps,
    readonly kind: IndexKind<Row>,
    table?: string,
  ) {
    this.table = table ?? kind.table
    this.name = kind.name
  }

  /**
   * Prepares the table once. False while the vector store is unavailable. When it held another
   * embedder's vectors every row of the kind is queued again; so is it when the table is new and
   * `rebuildNew` (at start: a lost folder, or rows stored before the index existed).
   */
  async ready(rebuildNew = false): Promise<boolean> {
    if (this.prepared) return true
    const { index, embedder, logger } = this.deps
    try {
      const check = await index.prepare(this.table, embedder.id, embedder.dims)
      this.prepared = true
      if (check === 'reindex' || (check === 'created' && rebuildNew)) {
        const queued = await this.queueAll()
        if (queued)
          logger.info(
            '%s: %d rows will be indexed (%s)',
            this.name,
            queued,
            check === 'reindex' ? 'the embedder changed' : 'the table was missing',
          )
      }
    } catch (error) {
      logger.debug('%s index not ready: %s', this.name, (error as Error).message)
    }
    return this.prepared
  }

  /** Removes `remove`, then indexes `add` (`vectors`: theirs, when already made). Throws on any failure. */
  async write(add: Row[], remove: string[] = [], vectors?: Float32Array[]): Promise<void> {
    if (!(await this.ready())) throw new Error('the vector store is unavailable')
    const { index, outbox, embedder } = this.deps
    if (remove.length) {
      await outbox.forget(this.table, remove)
      await index.delete(this.table, remove)
    }
    if (!add.length) return
    await this.deps.yieldToReads?.()
    const fields = add.map((row) => this.kind.fields(row))
    const made = vectors ?? (await embedder.embed(fields.map((row) => row.text)))
    await index.upsert(
      this.table,
      fields.map((row, i) => ({ ...row, vector: made[i] })),
    )
  }

  /**
   * Indexes `add` and removes `remove` now; whatever fails waits in the outbox. Returns whether it
   * was written now. Throws only when the outbox itself cannot be written.
   */
  async put(add: Row[], remove: string[] = [], vectors?: Float32Array[]): Promise<boolean> {
    if (!add.length && !remove.length) return true
    try {
      await this.write(add, remove, vectors)
      return true
    } catch (error) {
      const waiting = add.length + remove.length
      this.deps.counters.inc('outbox.queued', waiting)
      this.deps.logger.debug('%d %s index changes wait in the outbox: %s', waiting, this.name, (error as Error).message)
      await this.deps.outbox.addMany(this.table, remove, 'delete')
      await this.deps.outbox.addMany(
        this.table,
        add.map((row) => row.id),
        'upsert',
      )
      return false
    }
  }

  /**
   * Removes rows whose text is being erased. While the store is down the removal waits in the
   * outbox, so no erased text stays in the index. Never throws.
   */
  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return
    const { index, outbox, counters, logger } = this.deps
    try {
      await outbox.forget(this.table, ids)
      if (!(await this.ready())) throw new Error('the vector store is unavailable')
      await index.delete(this.table, ids)
      this.erased = true
    } catch (error) {
      counters.inc(`${this.table}.remove-failed`)
      logger.warn('could not remove %d %s from the index, will retry: %s', ids.length, this.name, (error as Error).message)
      try {
        await outbox.addMany(this.table, ids, 'delete')
      } catch (queueError) {
        logger.warn('could not queue the removal of %d %s: %s', ids.length, this.name, (queueError as Error).message)
      }
    }
  }

  /** After rows were removed, rewrites the table so their text leaves the disk. Never throws. */
  async purgeErased(): Promise<void> {
    if (!this.erased) return
    try {
      await this.deps.index.purge(this.table)
      this.erased = false
    } catch (error) {
      this.deps.logger.warn('could not purge erased %s from the index files, will retry: %s', this.name, (error as Error).message)
    }
  }

  /** Queues every row of the kind for indexing; `drain` does the work. Returns how many were queued. */
  async queueAll(): Promise<number> {
    const ids = await this.kind.allIds()
    await this.deps.outbox.addMany(this.table, ids, 'upsert')
    return ids.length
  }

  /**
   * Compares the index with the database and queues what differs: rows missing from the index are
   * indexed, rows the database no longer has are removed. The database is read a slice at a time, the
   * event loop free between slices; where it stands is kept (`marks`), so a comparison cut off by a stop
   * (`signal`) or a kill goes on from there next time. Only a comparison that went through every row in
   * one run can tell rows the database no longer has. Throws when the index cannot be read.
   */
  async reconcile(signal?: AbortSignal): Promise<ReconcileResult> {
    if (!(await this.ready())) throw new Error('the vector store is unavailable')
    const { index, outbox, marks } = this.deps
    const mark = await marks?.get(this.table)
    const resumed = Boolean(mark?.sweepFrom && mark.cursor)
    const from = (resumed && mark?.sweepFrom) || new Date()
    // read before the database: a row indexed since was written to the database first, so every id here that the
    // database does not give below is one it no longer has
    const present = new Set(await index.ids(this.table))
    const seen = new Set<string>()
    let cursor = resumed ? mark!.cursor : ''
    let missing = 0
    for (const slice of this.slices(() => cursor)) {
      const ids = await slice
      if (!ids.length) break
      for (const id of ids) seen.add(id)
      const lacking = ids.filter((id) => !present.has(id))
      // indexed since the index's ids were read: not missing
      const indexedSince = lacking.length ? new Set(await index.ids(this.table, lacking)) : new Set<string>()
      const queued = lacking.filter((id) => !indexedSince.has(id))
      await outbox.addMany(this.table, queued, 'upsert')
      missing += queued.length
      cursor = ids[ids.length - 1]
      if (!this.kind.idsAfter) break
      await marks?.set(this.table, { checkedFrom: mark?.checkedFrom, sweepFrom: from, cursor })
      if (signal?.aborted) return { missing, extra: 0 }
      await nextTurn()
    }
    const extra = resumed ? [] : [...present].filter((id) => !seen.has(id))
    await outbox.addMany(this.table, extra, 'delete')
    await marks?.set(this.table, { checkedFrom: from, cursor: '' })
    return { missing, extra: extra.length }
  }

  /** The database's ids in slices after the cursor (all at once for a kind that cannot slice). */
  private *slices(cursor: () => string): Generator<Promise<string[]>> {
    const { idsAfter } = this.kind
    if (!idsAfter) {
      yield this.kind.allIds()
      return
    }
    for (;;) yield idsAfter.call(this.kind, cursor(), SLICE)
  }

  /**
   * At a start: queues the rows written since the last whole comparison began that the index lacks.
   * A table with no whole comparison yet, or whose kind cannot tell what changed, is compared whole.
   */
  async reconcileChanged(): Promise<ReconcileResult> {
    if (!(await this.ready())) throw new Error('the vector store is unavailable')
    const checkedFrom = (await this.deps.marks?.get(this.table))?.checkedFrom
    if (!checkedFrom || !this.kind.changedSince) return this.reconcile()
    const changed = await this.kind.changedSince(new Date(checkedFrom.getTime() - CHANGED_SLACK_MS))
    const present = new Set(await this.deps.index.ids(this.table, changed))
    const missing = changed.filter((id) => !present.has(id))
    await this.deps.outbox.addMany(this.table, missing, 'upsert')
    return { missing: missing.length, extra: 0 }
  }

  /** Reads the whole table once and repairs it when it cannot be read; a table made anew is refilled. Never throws. */
  async verify(): Promise<void> {
    const { index, logger } = this.deps
    try {
      if (!(await this.ready())) return
      if ((await index.verify?.(this.table)) !== 'created') return
      const queued = await this.queueAll()
      if (queued) logger.info('%s: %d rows will be indexed (%s)', this.name, queued, 'the table was damaged')
    } catch (error) {
      logger.debug('could not check the %s index: %s', this.name, (error as Error).message)
    }
  }

  /** Empties the table and queues every row of the kind again (`memory.reindex`); the next drain purges the old rows' files. */
  async rebuild(): Promise<number> {
    if (!(await this.ready())) throw new Error('the vector store is unavailable')
    await this.deps.index.clear(this.table)
    this.erased = true
    return this.queueAll()
  }

  /**
   * Carries out waiting work in batches; stops at the first failure and leaves the rest queued. Ids
   * that `load` does not return, or returns as rows that do not belong in the index, are removed.
   */
  async drain(batch = 64): Promise<DrainResult> {
    const { outbox, logger } = this.deps
    let indexed = 0
    if (!(await this.ready())) return { indexed, pending: (await outbox.take(this.table, 1)).length > 0 }
    for (;;) {
      const waiting = await outbox.take(this.table, batch)
      if (!waiting.length) return { indexed, pending: false }
      try {
        const wanted = waiting.filter((row) => row.op === 'upsert').map((row) => row.rowId)
        const rows = wanted.length ? await this.kind.load(wanted) : []
        const add = this.kind.indexed ? rows.filter((row) => this.kind.indexed!(row)) : rows
        const found = new Set(add.map((row) => row.id))
        const deletes = waiting.filter((row) => row.op === 'delete').map((row) => row.rowId)
        const remove = [...new Set([...deletes, ...wanted.filter((id) => !found.has(id))])]
        if (remove.length) await this.deps.index.delete(this.table, remove)
        if (deletes.length) this.erased = true
        if (add.length) await this.write(add)
        await outbox.done(waiting.map((row) => row.id))
        indexed += waiting.length
      } catch (error) {
        await outbox.retry(waiting.map((row) => row.id))
        logger.debug('%s outbox drain stopped: %s', this.name, (error as Error).message)
        return { indexed, pending: true }
      }
    }
  }

  /** The query's vector for a search. Throws when the store or the embedder is unavailable. */
  async queryVector(query: string): Promise<Float32Array> {
    if (!(await this.ready())) throw new Error('the vector store is unavailable')
    const [vector] = await this.deps.embedder.embed([query])
    return vector
  }

  /** Hybrid vector + full-text search within a scope. Throws when the store or the embedder is down. */
  async search(query: string, scope: Scope, limit: number, vector?: Float32Array): Promise<IndexHit[]> {
    vector ??= await this.queryVector(query)
    return this.deps.index.search(this.table, { vector, text: query, scope, limit })
  }

  /** Cosine of `vector` to the rows `ids` of a scope, when the index can tell it without a search (see `VectorIndex.similarities`). */
  similarities(scope: Scope, vector: Float32Array, ids: readonly string[]): (number | undefined)[] | undefined {
    return this.deps.index.similarities?.(this.table, vector, scope, ids)
  }

  /** Vector nearest neighbours within a scope. Throws when the store or the embedder is down. */
  async nearest(query: string | Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    const vector = typeof query === 'string' ? await this.queryVector(query) : query
    if (typeof query !== 'string' && !(await this.ready())) throw new Error('the vector store is unavailable')
    return this.deps.index.nearest(this.table, vector, scope, limit)
  }
}

/**
 * Every LanceDB table the plugin keeps, registered by the domain that owns its rows: one outbox
 * drain loop, one rebuild path for all of them.
 */
export class IndexRegistry {
  private readonly tables = new Map<string, RegisteredTable>()
  private draining?: Promise<DrainResult>
  private comparing?: Promise<void>

  constructor(private readonly deps: Pick<IndexSyncDeps, 'logger'>) {}

  /** Keeps `table` in the drain loop and the rebuild path. */
  add(table: RegisteredTable): void {
    if (this.tables.has(table.table)) throw new Error(`index table ${table.table} is registered twice`)
    this.tables.set(table.table, table)
  }

  /** Names of the registered tables, in the order they were registered. */
  names(): string[] {
    return [...this.tables.keys()]
  }

  get(table: string): RegisteredTable | undefined {
    return this.tables.get(table)
  }

  /** Prepares every table at start; a table that is missing is rebuilt from the database. Never throws. */
  async prepare(): Promise<void> {
    for (const table of this.tables.values()) await table.ready(true)
  }

  /**
   * Compares every table with the database, a slice at a time, and queues what differs (every 10
   * minutes; one comparison at a time, a call while one runs joins it). Never throws.
   */
  reconcile(signal?: AbortSignal): Promise<void> {
    this.comparing ??= this.eachTable((table) => table.reconcile(signal), signal).finally(() => (this.comparing = undefined))
    return this.comparing
  }

  /** At a start: compares what changed in the database since each table's last whole comparison. Never throws. */
  reconcileChanged(signal?: AbortSignal): Promise<void> {
    this.comparing ??= this.eachTable((table) => table.reconcileChanged(), signal).finally(() => (this.comparing = undefined))
    return this.comparing
  }

  /** Reads every table once and repairs the ones that cannot be read (after a start, in the background). Never throws. */
  async verify(signal?: AbortSignal): Promise<void> {
    for (const table of this.tables.values()) {
      if (signal?.aborted) return
      await table.verify()
    }
  }

  private async eachTable(compare: (table: RegisteredTable) => Promise<ReconcileResult>, signal?: AbortSignal): Promise<void> {
    for (const table of this.tables.values()) {
      if (signal?.aborted) return
      try {
        const { missing, extra } = await compare(table)
        if (missing || extra) this.deps.logger.info('%s: %d rows will be indexed, %d removed from the index', table.name, missing, extra)
      } catch (error) {
        this.deps.logger.debug('could not compare the %s index with the database: %s', table.name, (error as Error).message)
      }
    }
  }

  /** Rewrites the tables rows were erased from, so no erased text stays in their files (after a forget). */
  async purgeErased(): Promise<void> {
    for (const table of this.tables.values()) await table.purgeErased()
  }

  /** LanceDB lost or replaced a table while running: queue its rows again. Never throws. */
  async tableLost(table: string): Promise<void> {
    try {
      const queued = await this.tables.get(table)?.queueAll()
      if (queued) this.deps.logger.info('%d %s will be indexed again', queued, this.tables.get(table)!.name)
    } catch (error) {
      this.deps.logger.warn('could not queue the rows of %s again: %s', table, (error as Error).message)
    }
  }

  /**
   * Empties every table and queues all its rows (the outbox timer indexes them): another engine kept
   * the memory meanwhile, so this copy lacks new rows and keeps erased ones. Returns whether every
   * table was emptied. Never throws.
   */
  async resetAll(): Promise<boolean> {
    let all = true
    for (const table of this.tables.values()) {
      try {
        const queued = await table.rebuild()
        if (queued) this.deps.logger.info('%s: %d rows will be indexed again (another index served meanwhile)', table.name, queued)
      } catch (error) {
        all = false
        this.deps.logger.warn('could not empty the %s index: %s', table.name, (error as Error).message)
      }
    }
    return all
  }

  /**
   * Rebuilds tables from the database (all, or the one named): empties each, queues every row and
   * indexes them. `progress` hears of each table when it is done.
   */
  async rebuild(table?: string, progress?: (result: RebuildResult) => void): Promise<RebuildResult[]> {
    const results: RebuildResult[] = []
    for (const name of table ? [table] : this.names()) {
      const indexed = this.tables.get(name)
      if (!indexed) throw new RangeError(`unknown index table ${JSON.stringify(name)}`)
      const queued = await indexed.rebuild()
      const result = { table: name, name: indexed.name, queued, ...(await indexed.drain()) }
      progress?.(result)
      results.push(result)
    }
    return results
  }

  /** Carries out the work waiting in the outbox for every table (one drain at a time). */
  drain(): Promise<DrainResult> {
    this.draining ??= this.drainAll().finally(() => (this.draining = undefined))
    return this.draining
  }

  private async drainAll(): Promise<DrainResult> {
    const result: DrainResult = { indexed: 0, pending: false }
    for (const table of this.tables.values()) {
      const one = await table.drain()
      result.indexed += one.indexed
      result.pending ||= one.pending
      await table.purgeErased()
    }
    return result
  }
}
