import type { Counters, Logger } from '../core/observability'
import type { Scope } from '../scope'
import { cleanId, lanceWhere } from '../scope'
import { checkLimit } from './index-checks'
import { ScopeTable } from './scope-table'
import type { EmbedderCheck, IndexHit, IndexRow, IndexState, VectorIndex } from './vector-index'

export interface ScopeCacheOptions {
  /** The most memory the scopes may hold, in bytes; 0 turns the cache off. */
  capBytes: number
  /**
   * A scope of more rows is searched by the store: scoring every row exactly costs more than the
   * store's vector index past this size. Given the dimensions a query of the table uses (all of them
   * for a dense embedding, a few dozen for the offline embedder's). Default: 4 million multiplications.
   */
  maxScopeRows?: (queryDims: number) => number
  /** How long a scope found too large is not loaded again. Default 10 minutes. */
  oversizedRetryMs?: number
  /**
   * A full cache loads no new scope while its least recently used one was searched this recently: when
   * the scopes in use do not fit, swapping them in and out costs more than the store's own search.
   * Default 1 minute.
   */
  busyWithinMs?: number
  /** How many loads run at once (each reads several scopes of a table). Default `DEFAULT_CONCURRENT_LOADS`. */
  concurrentLoads?: number
  logger: Logger
  counters?: Counters
}

export interface ScopeCacheStats {
  capBytes: number
  bytes: number
  scopes: number
  rows: number
  hits: number
  misses: number
}

interface Write {
  rows: IndexRow[]
  removed: string[]
}

interface Entry {
  table: string
  /** The scope's fields as the rows hold them. */
  scope: Partial<Record<'platform' | 'user_id' | 'guild_id' | 'channel_id', string>>
  rows: ScopeTable
  usedAt: number
}

interface Wanted {
  table: string
  scope: Scope
  dims: number
}

const SCOPE_COLUMNS = [
  ['platform', 'platform'],
  ['userId', 'user_id'],
  ['guildId', 'guild_id'],
  ['channelId', 'channel_id'],
] as const

const defaultMaxRows = (queryDims: number) => Math.floor(4_000_000 / Math.max(1, queryDims))
/** Most scopes waiting to be warmed; the oldest requests go first when more come. */
const MAX_WARMING = 1000
/**
 * Loads running at once. A load reads the scopes of one table that wait, many in one query: a few loads
 * at a time fill the cache quickly when a busy bot starts or many chats wake at once, and keep what is
 * read at once to a few times the rows of the largest scope the cache holds.
 */
const DEFAULT_CONCURRENT_LOADS = 2
/** Most scopes one load reads. */
const MAX_BATCH = 64
/** The share of the cap past which the cache counts as full. */
const FULL = 0.9

/**
 * The hot scopes of every table in memory, in front of a `VectorIndex`. A query always lies within one
 * scope (a user, a group, a channel), which holds far fewer rows than the table: the store answers the
 * first query of a scope while its rows load beside it (one read), later ones are answered from memory
 * exactly (`ScopeTable`). Writes go to the store first and, once it has them, to every cached scope they fall
 * in; a write that fails drops the table's scopes, so memory never answers what the store does not
 * hold. The least recently used scopes leave when the cap is reached; a scope too large to score
 * quickly is left to the store.
 */
export class ScopeCache implements VectorIndex {
  private readonly entries = new Map<string, Entry>()
  /** Scopes loading, each with the load (of several scopes at once) it is part of. */
  private readonly loading = new Map<string, Promise<void>>()
  /** Scopes searches asked for, oldest first, waiting for a load: they load before any warmed scope. */
  private readonly asked = new Map<string, Wanted>()
  /** Scopes warmed ahead of their searches, oldest first, waiting for a load. */
  private readonly warming = new Map<string, Wanted>()
  /** Loads running. */
  private running = 0
  private readonly oversized = new Map<string, number>()
  private readonly dims = new Map<string, number>()
  private readonly queryDims = new Map<string, number>()
  /** Per table: how often its cached scopes were dropped (a load that saw it happen is not kept). */
  private readonly drops = new Map<string, number>()
  /** Per table, while scopes of it load: the writes that landed meanwhile, to apply to them once loaded. */
  private readonly landed = new Map<string, Write[]>()
  private bytes = 0
  private hits = 0
  private misses = 0
  private readonly capBytes: number

  constructor(
    private readonly inner: VectorIndex,
    private readonly options: ScopeCacheOptions,
  ) {
    this.capBytes = Math.max(0, options.capBytes)
  }

  get state(): IndexState {
    return this.inner.state
  }

  stats(): ScopeCacheStats {
    let rows = 0
    for (const entry of this.entries.values()) rows += entry.rows.size
    return { capBytes: this.capBytes, bytes: this.bytes, scopes: this.entries.size, rows, hits: this.hits, misses: this.misses }
  }

  /** Forgets every cached scope of `table` (its store was rebuilt outside the write path). */
  invalidate(table: string): void {
    this.drops.set(table, (this.drops.get(table) ?? 0) + 1)
    for (const [key, entry] of this.entries) if (entry.table === table) this.drop(key)
    for (const key of this.oversized.keys()) if (key.startsWith(`${table}\u0000`)) this.oversized.delete(key)
    for (const waiting of [this.asked, this.warming]) {
      for (const key of waiting.keys()) if (key.startsWith(`${table}\u0000`)) waiting.delete(key)
    }
  }

  open(): Promise<void> {
    return this.inner.open()
  }

  async prepare(table: string, embedderId: string, dims: number): Promise<EmbedderCheck> {
    this.invalidate(table)
    const check = await this.inner.prepare(table, embedderId, dims)
    this.dims.set(table, dims)
    return check
  }

  upsert(table: string, rows: IndexRow[]): Promise<void> {
    return this.write(
      table,
      () => this.inner.upsert(table, rows),
      () => this.apply(table, rows, []),
    )
  }

  delete(table: string, ids: string[]): Promise<void> {
    return this.write(
      table,
      () => this.inner.delete(table, ids),
      () => this.apply(table, [], ids),
    )
  }

  clear(table: string): Promise<void> {
    return this.write(
      table,
      () => this.inner.clear(table),
      () => this.invalidate(table),
    )
  }

  async search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }): Promise<IndexHit[]> {
    const entry = this.cached(table, query.scope, query.vector)
    if (!entry) return this.inner.search(table, query)
    return entry.rows.search(query.vector, query.text ?? '', checkLimit(query.limit))
  }

  async nearest(table: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    const entry = this.cached(table, scope, vector)
    if (!entry) return this.inner.nearest(table, vector, scope, limit)
    return entry.rows.nearest(vector, checkLimit(limit))
  }

  similarities(table: string, vector: Float32Array, scope: Scope, ids: readonly string[]): (number | undefined)[] | undefined {
    if (!this.capBytes || this.dims.get(table) !== vector.length) return undefined
    return this.entries.get(keyOf(table, scope))?.rows.similarity(vector, ids)
  }

  count(table: string, scope?: Scope): Promise<number> {
    const entry = scope && this.capBytes ? this.entries.get(keyOf(table, scope)) : undefined
    return entry ? Promise.resolve(entry.rows.size) : this.inner.count(table, scope)
  }

  scopeRows(table: string, scope: Scope, limit: number): Promise<IndexRow[]> {
    return this.inner.scopeRows(table, scope, limit)
  }

  ids(table: string, among?: readonly string[]): Promise<string[]> {
    return this.inner.ids(table, among)
  }

  async verify(table: string): Promise<EmbedderCheck> {
    const check = (await this.inner.verify?.(table)) ?? 'ok'
    // a table made anew holds none of the rows its cached scopes hold
    if (check !== 'ok') this.invalidate(table)
    return check
  }

  texts(table: string, ids: string[]): Promise<string[]> {
    return this.inner.texts(table, ids)
  }

  purge(table: string): Promise<void> {
    return this.inner.purge(table)
  }

  optimize(table?: string): Promise<void> {
    return this.inner.optimize(table)
  }

  optimizedAt(table: string): Date | undefined {
    return this.inner.optimizedAt?.(table)
  }

  async close(): Promise<void> {
    for (const key of [...this.entries.keys()]) this.drop(key)
    this.oversized.clear()
    this.asked.clear()
    this.warming.clear()
    await this.inner.close()
  }

  private async write(table: string, run: () => Promise<void>, apply: () => void): Promise<void> {
    try {
      await run()
    } catch (error) {
      // the store may hold part of it, or none: only the store knows now
      this.invalidate(table)
      throw error
    }
    apply()
  }

  private apply(table: string, rows: IndexRow[], removed: string[]) {
    this.landed.get(table)?.push({ rows, removed })
    for (const [key, entry] of this.entries) {
      if (entry.table !== table) continue
      const before = entry.rows.bytes
      applyTo(entry, { rows, removed })
      this.bytes += entry.rows.bytes - before
      if (entry.rows.size > this.maxRows(table)) this.drop(key)
    }
    this.evict()
  }

  /** The scope in memory, or undefined when the store answers (and the scope starts loading when it may). */
  private cached(table: string, scope: Scope, vector: Float32Array): Entry | undefined {
    const dims = vector.length
    if (!this.capBytes || this.dims.get(table) !== dims) return undefined
    this.noteQuery(table, vector)
    const key = keyOf(table, scope)
    const entry = this.touch(key)
    if (entry) {
      this.hits++
      this.options.counters?.inc('index.cache-hit')
      return entry
    }
    const until = this.oversized.get(key)
    if (until !== undefined) {
      if (until > Date.now()) return undefined
      this.oversized.delete(key)
    }
    this.misses++
    this.options.counters?.inc('index.cache-miss')
    // the store answers this search; the scope loads beside it (a few at a time) for the next one
    this.startLoad(table, scope, key, dims)
    return undefined
  }

  /**
   * Queues a scope that searches are about to read (a reply to a message just captured reads its speaker's
   * and its channel's scopes) to load while no search waits for a load of its own; a cached scope counts
   * as used.
   */
  warm(table: string, scope: Scope): void {
    const dims = this.dims.get(table)
    if (!this.capBytes || dims === undefined) return
    const key = keyOf(table, scope)
    if (this.touch(key)) return
    if ((this.oversized.get(key) ?? 0) > Date.now() || this.loading.has(key) || this.asked.has(key)) return
    this.warming.delete(key)
    this.warming.set(key, { table, scope, dims })
    if (this.warming.size > MAX_WARMING) this.warming.delete(this.warming.keys().next().value!)
    this.pump()
  }

  /** The cached scope, marked as used now (the most recently used last). */
  private touch(key: string): Entry | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    entry.usedAt = Date.now()
    return entry
  }

  /** A load a search asked for: it goes before every warmed scope that has not started. */
  private startLoad(table: string, scope: Scope, key: string, dims: number) {
    this.warming.delete(key)
    if (this.loading.has(key) || this.asked.has(key) || this.thrashing()) return
    this.asked.set(key, { table, scope, dims })
    this.pump()
  }

  /** Starts loads while fewer than `concurrentLoads` run and scopes wait. */
  private pump(): void {
    while (this.running < Math.max(1, this.options.concurrentLoads ?? DEFAULT_CONCURRENT_LOADS)) {
      const batch = this.nextBatch()
      if (!batch) return
      this.running++
      const keys = new Set(batch.keys())
      const done = this.loadBatch(batch, keys).finally(() => {
        for (const key of keys) this.loading.delete(key)
        this.running--
        this.pump()
      })
      for (const key of keys) this.loading.set(key, done)
    }
  }

  /**
   * The scopes the next load reads: the oldest a search asked for (or else the oldest warmed) and more of
   * its table, those asked for first. One at a time from a store that cannot read several at once.
   */
  private nextBatch(): Map<string, Wanted> | undefined {
    const most = this.inner.scopesRows ? MAX_BATCH : 1
    for (;;) {
      const first = this.asked.values().next().value ?? this.warming.values().next().value
      if (!first) return undefined
      const batch = new Map<string, Wanted>()
      for (const waiting of [this.asked, this.warming]) {
        for (const [key, wanted] of waiting) {
          if (batch.size >= most) break
          if (wanted.table !== first.table || wanted.dims !== first.dims) continue
          waiting.delete(key)
          // a full cache loads what searches ask for, and drops what was only warmed
          if (this.entries.has(key) || this.loading.has(key) || (waiting === this.warming && this.thrashing())) continue
          batch.set(key, wanted)
        }
      }
      if (batch.size) return batch
    }
  }

  /** Whether the cache is full of scopes still in use, so that loading another would only push one of them out. */
  private thrashing(): boolean {
    if (this.bytes < this.capBytes * FULL) return false
    const [oldest] = this.entries.values()
    return !!oldest && Date.now() - oldest.usedAt < (this.options.busyWithinMs ?? 60_000)
  }

  /** Resolves once the scopes being loaded or warmed are in memory (or were found too large, or failed to load). */
  async settled(): Promise<void> {
    while (this.loading.size || this.asked.size || this.warming.size) {
      this.pump()
      await Promise.all(this.loading.values())
    }
  }

  private async loadBatch(batch: Map<string, Wanted>, keys: ReadonlySet<string>): Promise<void> {
    const { table, dims } = batch.values().next().value!
    const drops = this.drops.get(table) ?? 0
    const landed = this.landed.get(table) ?? []
    this.landed.set(table, landed)
    const from = landed.length
    const maxRows = this.maxRows(table)
    try {
      // a write may land while the rows are read: whether the read saw it or not, it is applied again below
      for (const [key, rows] of await this.read(table, batch, maxRows)) {
        if (!rows) {
          this.leaveToStore(key)
          continue
        }
        if ((this.drops.get(table) ?? 0) !== drops || this.dims.get(table) !== dims) return
        const entry: Entry = { table, scope: rowScope(batch.get(key)!.scope), rows: new ScopeTable(dims, rows), usedAt: Date.now() }
        for (const write of landed.slice(from)) applyTo(entry, write)
        if (entry.rows.bytes > this.capBytes / 2 || entry.rows.size > maxRows) {
          this.leaveToStore(key)
          continue
        }
        this.entries.set(key, entry)
        this.bytes += entry.rows.bytes
        this.evict()
      }
    } catch (error) {
      // the store answers the searches of these scopes, and fails as the store fails
      this.options.logger.debug('could not load %d scopes of %s into memory: %s', batch.size, table, (error as Error).message)
    } finally {
      if (![...this.loading.keys()].some((other) => !keys.has(other) && other.startsWith(`${table}\u0000`))) this.landed.delete(table)
    }
  }

  /**
   * The rows of each scope of `batch`, or undefined for a scope of more than `maxRows`. Several scopes are
   * read in one query of at most `maxRows` rows in all; when they hold more, each is read on its own.
   */
  private async read(table: string, batch: Map<string, Wanted>, maxRows: number): Promise<Map<string, IndexRow[] | undefined>> {
    const read = new Map<string, IndexRow[] | undefined>()
    if (batch.size > 1 && this.inner.scopesRows) {
      const rows = await this.inner.scopesRows(
        table,
        [...batch.values()].map((wanted) => wanted.scope),
        maxRows + 1,
      )
      if (rows.length <= maxRows) return rowsByScope(rows, batch)
    }
    for (const [key, wanted] of batch) {
      const rows = await this.inner.scopeRows(table, wanted.scope, maxRows + 1)
      read.set(key, rows.length > maxRows ? undefined : rows)
    }
    return read
  }

  /** Searches of this scope go to the store for a while (it holds too many rows, or too many bytes). */
  private leaveToStore(key: string) {
    this.oversized.set(key, Date.now() + (this.options.oversizedRetryMs ?? 10 * 60_000))
  }

  /** Keeps a running mean of the dimensions the table's queries use (the scan reads only those). */
  private noteQuery(table: string, vector: Float32Array) {
    let used = 0
    for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) used++
    const mean = this.queryDims.get(table)
    this.queryDims.set(table, mean === undefined ? used : mean + (used - mean) / 16)
  }

  private maxRows(table: string): number {
    const queryDims = this.queryDims.get(table) ?? this.dims.get(table) ?? 1
    return (this.options.maxScopeRows ?? defaultMaxRows)(Math.ceil(queryDims))
  }

  private evict() {
    for (const key of this.entries.keys()) {
      if (this.bytes <= this.capBytes) break
      this.drop(key)
    }
  }

  private drop(key: string) {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.bytes -= entry.rows.bytes
  }
}

function applyTo(entry: Entry, { rows, removed }: Write) {
  for (const id of removed) entry.rows.remove(id)
  for (const row of rows) {
    if (inScope(row, entry.scope)) entry.rows.upsert(row)
    else entry.rows.remove(row.id)
  }
}

function keyOf(table: string, scope: Scope): string {
  return `${table}\u0000${lanceWhere(scope)}`
}

function rowScope(scope: Scope): Entry['scope'] {
  const out: Entry['scope'] = {}
  for (const [field, column] of SCOPE_COLUMNS) {
    const value = scope[field]
    if (value !== undefined) out[column] = cleanId(value)
  }
  return out
}

/** The rows of each scope of `batch` among `rows`: one pass over them per kind of scope (a user, a channel…). */
function rowsByScope(rows: readonly IndexRow[], batch: Map<string, Wanted>): Map<string, IndexRow[]> {
  const byScope = new Map<string, IndexRow[]>()
  // per kind of scope (the columns it sets), the batch's scopes by their values of those columns
  const kinds = new Map<string, { columns: (typeof SCOPE_COLUMNS)[number][1][]; keys: Map<string, string> }>()
  for (const [key, wanted] of batch) {
    byScope.set(key, [])
    const scope = rowScope(wanted.scope)
    const columns = SCOPE_COLUMNS.map(([, column]) => column).filter((column) => scope[column] !== undefined)
    const kind = kinds.get(columns.join()) ?? { columns, keys: new Map() }
    kinds.set(columns.join(), kind)
    kind.keys.set(columns.map((column) => scope[column]).join('\u0000'), key)
  }
  for (const { columns, keys } of kinds.values()) {
    for (const row of rows) {
      const key = keys.get(columns.map((column) => row[column]).join('\u0000'))
      if (key !== undefined) byScope.get(key)!.push(row)
    }
  }
  return byScope
}

function inScope(row: IndexRow, scope: Entry['scope']): boolean {
  for (const [, column] of SCOPE_COLUMNS) {
    const value = scope[column]
    if (value !== undefined && row[column] !== value) return false
  }
  return true
}
