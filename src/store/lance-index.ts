import * as fs from 'node:fs'
import { join } from 'node:path'
import type * as LanceDB from '@lancedb/lancedb'
import type { Scope } from '../scope'
import { lanceIdIn, lanceWhere } from '../scope'
import type { Counters, Logger } from '../core/observability'
import type { EmbedderCheck, IndexHit, IndexRow, IndexState, VectorIndex } from './vector-index'
import { chunks, ID_CHUNK } from '../core/chunks'
import { checkEmbedder, checkLimit, checkQueryVector, checkTableName, fuse, isZero, uniqueRows, WORDLIKE } from './index-checks'
import { TableBreakers } from './lance-breakers'
import { rankHits, toArrow, toHits, toRows } from './lance-codec'
import { errorLine, IndexUnavailableError } from './lance-errors'
import { loadLib } from './lance-library'
import { TableOptimizer } from './lance-optimizer'
import { LanceQueries } from './lance-queries'
import { TableRepair } from './lance-repair'
import type { TableMeta } from './lance-schema'
import { COLUMNS, mismatchOf, schemaOf } from './lance-schema'
import { SearchIndexes } from './lance-search-indexes'

/**
 * The LanceDB implementation of `VectorIndex`: one LanceDB table per memory kind, each row a copy of a
 * Koishi row's text and scope plus its vector, the embedder id and the dimension.
 *
 * - A cockatiel circuit breaker sits in front of every LanceDB call. `open()` never throws; while the
 *   breaker is open every call rejects at once with `IndexUnavailableError`, and the first call after
 *   `halfOpenAfterMs` probes by reconnecting.
 * - Writes (upsert, delete, optimize, prepare) are serialised by one queue per table; reads do not wait.
 * - Upserts are one `mergeInsert` on `id` (one commit, atomic). Vector lengths are checked before
 *   writing because LanceDB silently pads or truncates a vector of the wrong length.
 * - Full-text search uses the `ngram` tokenizer (1–2 characters), which works for Chinese without a
 *   dictionary. Rows written since the last optimize are not in the FTS index yet; LanceDB searches
 *   them with a flat scan, so they are found all the same, and `optimize()` folds them into the index.
 * - `optimize()` runs every `optimizeEveryWrites` writes or `optimizeEveryMs`: compaction, pruning of
 *   versions older than `cleanupOlderThanMs`, index updates, and an IVF_RQ vector index once the table
 *   holds `vectorIndexMinRows` rows (retrained when the table has doubled since).
 */

export interface LanceIndexOptions {
  /** The LanceDB directory. Created when missing. */
  dir: string
  logger: Logger
  counters?: Counters
  /** How long the breaker stays open before the next call probes the store again. Default 30 s. */
  halfOpenAfterMs?: number
  /** Consecutive failures that open the breaker. A failure to connect opens it at once. Default 3. */
  breakerThreshold?: number
  /** Optimize a table after this many write operations (upsert or delete calls). Default 100; 0 disables. */
  optimizeEveryWrites?: number
  /** Optimize tables written since the last optimize this often. Default 5 min; 0 disables. */
  optimizeEveryMs?: number
  /** Versions older than this are pruned by optimize. Default 2 min: a flood of small writes keeps few versions on disk. */
  cleanupOlderThanMs?: number
  /** Build a vector index once a table holds this many rows. Default 5000. */
  vectorIndexMinRows?: number
  /** Refine factor for vector queries once a table has a vector index. Default 3. */
  refineFactor?: number
  /**
   * How hybrid search runs. `'lancedb'` (default): one LanceDB hybrid query,
   * `fullTextSearch().nearestTo().rerank(RRFReranker)`. `'parallel'`: the vector and the full-text
   * query run concurrently and are fused here with the same reciprocal-rank formula (k = 60).
   */
  hybrid?: 'lancedb' | 'parallel'
  /**
   * Memory LanceDB may keep in its caches of index data and of file metadata, in bytes (the memory
   * budget's `lancedb` share). Default: LanceDB's own, 6 GB and 1 GB, which a flood of writes fills.
   */
  cacheBytes?: { index: number; metadata: number }
  /**
   * Called when a table had to be created or recreated outside `prepare()` (e.g. the directory was
   * wiped while the plugin ran): its rows must be re-added from the database.
   */
  onReindexNeeded?: (table: string, check: EmbedderCheck) => void
}

/** The `id` column of a query's Arrow table. */
function idsOf(table: { getChild(name: string): { toArray(): unknown[] } | null }): string[] {
  return Array.from(table.getChild('id')?.toArray() ?? [], String)
}

/** Rows per mergeInsert call. */
const WRITE_CHUNK = 10_000

export class LanceIndex implements VectorIndex {
  private readonly dir: string
  private readonly logger: Logger
  private readonly counters?: Counters
  private readonly hybrid: 'lancedb' | 'parallel'
  private readonly onReindexNeeded?: (table: string, check: EmbedderCheck) => void

  private readonly breakers: TableBreakers
  private readonly searchIndexes: SearchIndexes
  private readonly optimizer: TableOptimizer
  private readonly repairs: TableRepair
  private readonly queries: LanceQueries
  private started = false
  private closed = false

  private conn?: LanceDB.Connection
  private readonly cacheBytes?: { index: number; metadata: number }
  private session?: LanceDB.Session
  private readonly meta = new Map<string, TableMeta>()
  private readonly handles = new Map<string, LanceDB.Table>()
  private readonly queues = new Map<string, Promise<void>>()

  constructor(options: LanceIndexOptions) {
    this.dir = options.dir
    this.logger = options.logger
    this.counters = options.counters
    this.hybrid = options.hybrid ?? 'lancedb'
    this.onReindexNeeded = options.onReindexNeeded
    this.cacheBytes = options.cacheBytes

    const { dir, logger, counters } = options
    this.breakers = new TableBreakers({
      dir,
      logger,
      counters,
      threshold: options.breakerThreshold ?? 3,
      halfOpenAfterMs: options.halfOpenAfterMs ?? 30_000,
      connected: () => this.conn?.isOpen() === true,
      connect: () => this.connect(),
      onBreak: (table, cause) => this.onBreak(table, cause),
    })
    this.searchIndexes = new SearchIndexes({ logger, counters, vectorIndexMinRows: options.vectorIndexMinRows ?? 5000 })
    this.optimizer = new TableOptimizer({
      logger,
      counters,
      searchIndexes: this.searchIndexes,
      everyWrites: options.optimizeEveryWrites ?? 100,
      everyMs: options.optimizeEveryMs ?? 5 * 60_000,
      cleanupOlderThanMs: options.cleanupOlderThanMs ?? 2 * 60_000,
      queue: (table) => this.optimize(table),
      isClosed: () => this.closed,
    })
    this.repairs = new TableRepair({
      dir,
      logger,
      counters,
      searchIndexes: this.searchIndexes,
      metaOf: (table) => this.metaOf(table),
      setHandle: (table, handle) => (handle ? this.handles.set(table, handle) : this.handles.delete(table)),
      makeAnew: (table) => this.ensureTable(table, true),
    })
    this.queries = new LanceQueries(options.refineFactor ?? 3)
  }

  /** The worst state of any table's breaker. */
  /** What LanceDB's caches hold now (nothing before the first connection). */
  cached(): { bytes: number; entries: number } {
    return this.session ? { bytes: Number(this.session.sizeBytes()), entries: this.session.approxNumItems() } : { bytes: 0, entries: 0 }
  }

  get state(): IndexState {
    if (!this.started || this.closed) return 'uninitialised'
    return this.breakers.state
  }

  async open(): Promise<void> {
    this.closed = false
    this.optimizer.start()
    try {
      await this.run('', async () => {})
    } catch {
      // The breaker has logged and counted it; `state` says 'open'.
    }
  }

  async prepare(table: string, embedderId: string, dims: number): Promise<EmbedderCheck> {
    checkTableName(table)
    checkEmbedder(embedderId, dims)
    const previous = this.meta.get(table)
    this.meta.set(table, { embedderId, dims })
    if (previous && (previous.embedderId !== embedderId || previous.dims !== dims)) this.handles.delete(table)
    this.rejectIfOpen(table)
    // the read check of every row waits for `verify`, after the start
    return this.enqueue(table, () => this.run(table, () => this.ensureTable(table, false, false)))
  }

  async upsert(table: string, rows: IndexRow[]): Promise<void> {
    const meta = this.metaOf(table)
    if (!rows.length) return
    // Last row wins for duplicate ids: mergeInsert with two source rows for one id is undefined.
    const unique = uniqueRows(rows, meta.dims)
    this.rejectIfOpen(table)
    await this.enqueue(table, () =>
      this.run(table, async () => {
        const handle = await this.handle(table, true)
        for (const part of chunks(unique, WRITE_CHUNK)) {
          await handle.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(toArrow(meta, part))
        }
      }),
    )
    this.counters?.inc('index.rows-upserted', unique.length)
    this.optimizer.noteWrite(table)
  }

  async delete(table: string, ids: string[]): Promise<void> {
    this.metaOf(table)
    const unique = [...new Set(ids)]
    if (!unique.length) return
    const filters = chunks(unique, ID_CHUNK).map(lanceIdIn)
    this.rejectIfOpen(table)
    await this.enqueue(table, () =>
      this.run(table, async () => {
        const handle = await this.handle(table, true)
        for (const filter of filters) await handle.delete(filter)
      }),
    )
    this.optimizer.noteWrite(table)
  }

  async clear(table: string): Promise<void> {
    this.metaOf(table)
    this.rejectIfOpen(table)
    await this.enqueue(table, () =>
      this.run(table, async () => {
        const handle = await this.handle(table, true)
        await handle.delete('true')
      }),
    )
    this.optimizer.noteWrite(table)
  }

  async search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }): Promise<IndexHit[]> {
    const meta = this.metaOf(table)
    checkQueryVector(query.vector, meta.dims)
    const where = lanceWhere(query.scope)
    const limit = checkLimit(query.limit)
    const text = (query.text ?? '').trim()
    const useText = WORDLIKE.test(text)
    const useVector = !isZero(query.vector)
    if ((!useText && !useVector) || !limit) return []
    this.rejectIfOpen(table)
    return this.run(table, async () => {
      const handle = await this.handle(table, false)
      if (!useText) return rankHits(await this.queries.vector(handle, query.vector, where, limit).toArrow(), query.vector)
      if (!useVector) return rankHits(await this.queries.text(handle, text, where, limit).toArrow(), query.vector)
      if (this.hybrid === 'parallel') {
        const [byVector, byText] = await Promise.all([
          this.queries.vector(handle, query.vector, where, limit).toArrow(),
          this.queries.text(handle, text, where, limit).toArrow(),
        ])
        return fuse([rankHits(byVector, query.vector), rankHits(byText, query.vector)], limit)
      }
      const rows = await this.queries.hybrid(handle, text, query.vector, where, limit)
      return toHits(rows, query.vector, (i) => Number(rows.getChild('_relevance_score')?.get(i) ?? 0))
    })
  }

  async nearest(table: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    const meta = this.metaOf(table)
    checkQueryVector(vector, meta.dims)
    const where = lanceWhere(scope)
    const checked = checkLimit(limit)
    if (isZero(vector) || !checked) return []
    this.rejectIfOpen(table)
    return this.run(table, async () => {
      const handle = await this.handle(table, false)
      return rankHits(await this.queries.vector(handle, vector, where, checked).toArrow(), vector)
    })
  }

  async count(table: string, scope?: Scope): Promise<number> {
    this.metaOf(table)
    const where = scope ? lanceWhere(scope) : undefined
    this.rejectIfOpen(table)
    return this.run(table, async () => (await this.handle(table, false)).countRows(where))
  }

  scopeRows(table: string, scope: Scope, limit: number): Promise<IndexRow[]> {
    return this.rowsWhere(table, lanceWhere(scope), limit)
  }

  scopesRows(table: string, scopes: readonly Scope[], limit: number): Promise<IndexRow[]> {
    if (!scopes.length) return Promise.resolve([])
    return this.rowsWhere(table, scopes.map((scope) => `(${lanceWhere(scope)})`).join(' OR '), limit)
  }

  private async rowsWhere(table: string, where: string, limit: number): Promise<IndexRow[]> {
    const meta = this.metaOf(table)
    const checked = Math.max(0, Math.floor(limit))
    if (!checked) return []
    this.rejectIfOpen(table)
    return this.run(table, async () => {
      const rows = await (
        await this.handle(table, false)
      )
        .query()
        .where(where)
        .select([...COLUMNS])
        .limit(checked)
        .toArrow()
      return toRows(rows, meta.dims)
    })
  }

  optimizedAt(table: string): Date | undefined {
    return this.optimizer.optimizedAt(table)
  }

  async texts(table: string, ids: string[]): Promise<string[]> {
    this.metaOf(table)
    const unique = [...new Set(ids)]
    if (!unique.length) return []
    this.rejectIfOpen(table)
    return this.run(table, async () => {
      const handle = await this.handle(table, false)
      const out: string[] = []
      for (const part of chunks(unique, ID_CHUNK)) {
        const rows = await handle
          .query()
          .where(lanceIdIn(part))
          .select(['text'])
          .limit(part.length * 2)
          .toArray()
        for (const row of rows) out.push(String(row.text))
      }
      return out
    })
  }

  async purge(table: string): Promise<void> {
    const meta = this.metaOf(table)
    this.rejectIfOpen(table)
    await this.enqueue(table, () =>
      this.run(table, async () => {
        const handle = await this.handle(table, true)
        // A deleted row stays in its data file until the fragment is rewritten, and compaction skips
        // fragments with few deletions: writing the live rows anew leaves no erased text in any file
        // the table still uses, and the cleanup below removes the files of every older version.
        const live = toRows(await handle.query().toArrow(), meta.dims)
        if (live.length) await handle.add(toArrow(meta, live), { mode: 'overwrite' })
        else await handle.delete('true')
        // nothing else writes this table while its queue runs this, so unverified files are safe to delete
        await handle.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true })
        this.searchIndexes.forget(table)
        await this.searchIndexes.ensure(handle, table, true)
      }),
    )
    this.counters?.inc('index.purged')
  }

  async optimize(table?: string): Promise<void> {
    const tables = table === undefined ? [...this.meta.keys()] : [table]
    if (table !== undefined) this.metaOf(table)
    if (!tables.length) return
    for (const name of tables) this.rejectIfOpen(name)
    await Promise.all(tables.map((name) => this.enqueue(name, () => this.run(name, () => this.optimizeTable(name)))))
  }

  async close(): Promise<void> {
    this.optimizer.stop()
    await Promise.all([...this.queues.values()])
    this.closed = true
    for (const handle of this.handles.values()) {
      try {
        handle.close()
      } catch {
        // already closed: nothing to release
      }
    }
    this.handles.clear()
    try {
      this.conn?.close()
    } catch {
      // already closed: nothing to release
    }
    this.conn = undefined
    this.started = false
  }

  // ── breaker, connection, queues ────────────────────────────────────────────

  /** Ids of every row of a table (to find rows the database has and the index lacks); only those of `among` when given. */
  async ids(table: string, among?: readonly string[]): Promise<string[]> {
    this.metaOf(table)
    this.rejectIfOpen(table)
    return this.run(table, async () => {
      const handle = await this.handle(table, false)
      // as Arrow columns, not a JS object a row: a table of many rows is read once natively
      if (!among) return idsOf(await handle.query().select(['id']).toArrow())
      const out: string[] = []
      for (const part of chunks([...new Set(among)], ID_CHUNK)) {
        out.push(...idsOf(await handle.query().where(lanceIdIn(part)).select(['id']).limit(part.length).toArrow()))
      }
      return out
    })
  }

  /** The read check a start once made before it answered: every row's id, a scoped vector query, a full-text query. */
  async verify(table: string): Promise<EmbedderCheck> {
    this.metaOf(table)
    this.rejectIfOpen(table)
    return this.enqueue(table, () =>
      this.run(table, async () => {
        const handle = await this.handle(table, true)
        const damage = await this.repairs.damage(handle)
        return damage ? this.repairs.repair(await this.connect(), handle, damage) : 'ok'
      }),
    )
  }

  private async run<T>(table: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new IndexUnavailableError('the LanceDB index is closed')
    try {
      return await this.breakers.execute(table, fn)
    } finally {
      this.started = true
    }
  }

  /** Rejects at once while the table's breaker is open, instead of waiting in a write queue to find out. */
  private rejectIfOpen(table: string) {
    if (this.closed) throw new IndexUnavailableError('the LanceDB index is closed')
    this.breakers.rejectIfOpen(table)
  }

  private onBreak(table: string, cause: unknown) {
    // the handle may point at files that are gone; the probe after the pause reopens it
    this.handles.delete(table)
    if (cause instanceof IndexUnavailableError) this.conn = undefined
    else if (table) void this.checkDamage(table, cause)
  }

  // ── damaged tables ────────────────────────────────────────────────────────

  /**
   * A table's breaker opened while the store itself answers: when the table cannot be read, its search
   * indexes are rebuilt, and when that is not enough the table is made anew and its rows re-added from
   * the database. Never throws.
   */
  private async checkDamage(table: string, cause: unknown): Promise<void> {
    if (this.closed || !this.meta.has(table)) return
    try {
      await this.enqueue(table, async () => {
        const check = await this.repairs.afterFailure(await this.connect(), table, cause)
        if (check === 'created') this.onReindexNeeded?.(table, 'created')
      })
    } catch (error) {
      this.logger.debug('could not check LanceDB table %s: %s', table, errorLine(error))
    }
  }

  private async connect(): Promise<LanceDB.Connection> {
    if (this.conn?.isOpen()) return this.conn
    try {
      const { lancedb } = loadLib()
      // LanceDB "connects" to a regular file without complaint and fails later; check the folder first.
      fs.mkdirSync(this.dir, { recursive: true })
      if (!fs.statSync(this.dir).isDirectory()) throw new Error(`${this.dir} is not a directory`)
      fs.accessSync(this.dir, fs.constants.R_OK | fs.constants.W_OK)
      // one session for every connection this index makes: a reconnect keeps its caches, never doubles them
      const caches = this.cacheBytes
      this.session ??= caches && new lancedb.Session(BigInt(caches.index), BigInt(caches.metadata))
      const conn = await lancedb.connect(this.dir, this.session && { session: this.session })
      await conn.tableNames()
      this.conn = conn
      return conn
    } catch (error) {
      // Not transient: open the breaker now rather than after `threshold` attempts.
      this.breakers.tripStoreNext()
      throw new IndexUnavailableError(`cannot open LanceDB at ${this.dir}: ${errorLine(error)}`, { cause: error })
    }
  }

  private enqueue<T>(table: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(table) ?? Promise.resolve()
    const next = previous.then(fn)
    const settled = next.then(
      () => {},
      () => {},
    )
    this.queues.set(table, settled)
    void settled.then(() => {
      if (this.queues.get(table) === settled) this.queues.delete(table)
    })
    return next
  }

  // ── tables ────────────────────────────────────────────────────────────────

  private metaOf(table: string): TableMeta {
    const meta = this.meta.get(table)
    if (!meta) throw new Error(`LanceDB table ${JSON.stringify(table)} is not prepared; call prepare(table, embedderId, dims) first`)
    return meta
  }

  /**
   * The open handle of a prepared table. After an outage the handles are dropped and the table is
   * reopened (and, if it vanished, recreated empty — the caller is told to re-add its rows).
   */
  private async handle(table: string, inQueue: boolean): Promise<LanceDB.Table> {
    const cached = this.handles.get(table)
    if (cached) return cached
    const reopen = async () => {
      const check = await this.ensureTable(table)
      if (check !== 'ok') {
        this.logger.warn(
          'LanceDB table %s had to be %s; its rows must be re-added (memory.reindex)',
          table,
          check === 'created' ? 'created again' : 'rebuilt',
        )
        this.counters?.inc('index.table-lost')
        this.onReindexNeeded?.(table, check)
      }
      return this.handles.get(table)!
    }
    // Writes already hold the table's queue; reads join it only in this rare reopen path.
    return inQueue ? reopen() : this.enqueue(table, reopen)
  }

  /**
   * Opens or creates `table` for its prepared embedder; drops and recreates it on a mismatch. With
   * `checkReads`, a table that opens is read through (`TableRepair.damage`) and repaired when it cannot be.
   */
  private async ensureTable(table: string, remade = false, checkReads = true): Promise<EmbedderCheck> {
    const meta = this.metaOf(table)
    const conn = await this.connect()
    let result: EmbedderCheck = 'created'
    if ((await conn.tableNames()).includes(table)) {
      let handle: LanceDB.Table
      try {
        handle = await conn.openTable(table)
      } catch (error) {
        if (remade) throw error
        this.counters?.inc('index.table-damaged')
        this.logger.warn(
          'LanceDB table %s cannot be opened (%s); it is made anew and its rows are re-added from the database',
          table,
          errorLine(error),
        )
        await this.repairs.drop(conn, table)
        return this.ensureTable(table, true)
      }
      let mismatch: string | undefined
      try {
        mismatch = await mismatchOf(handle, meta)
      } catch (error) {
        if (!remade) return this.repairs.repair(conn, handle, errorLine(error))
        throw error
      }
      if (!mismatch) {
        const damage = remade || !checkReads ? undefined : await this.repairs.damage(handle)
        if (damage) return this.repairs.repair(conn, handle, damage)
        this.handles.set(table, handle)
        await this.searchIndexes.ensure(handle, table, false)
        return 'ok'
      }
      this.logger.info('LanceDB table %s holds %s; dropping it for %s/%d', table, mismatch, meta.embedderId, meta.dims)
      handle.close()
      await this.repairs.drop(conn, table)
      result = 'reindex'
    }
    // what a write through a handle opened before the folder was deleted left behind is no table
    fs.rmSync(join(this.dir, `${table}.lance`), { recursive: true, force: true })
    const handle = await conn.createEmptyTable(table, schemaOf(meta))
    this.handles.set(table, handle)
    this.optimizer.noteCreated(table)
    this.searchIndexes.forget(table)
    await this.searchIndexes.ensure(handle, table, false)
    return result
  }

  private async optimizeTable(table: string) {
    await this.optimizer.optimize(table, await this.handle(table, true))
  }
}
