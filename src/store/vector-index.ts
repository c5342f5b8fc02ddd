import type { Scope } from '../scope'

/** One row of a LanceDB table. Its text and scope are copies of the Koishi row with the same id. */
export interface IndexRow {
  id: string
  text: string
  vector: Float32Array
  platform: string
  user_id: string
  guild_id: string
  channel_id: string
  /** Milliseconds since the epoch. */
  created_at: number
}

export interface IndexHit {
  id: string
  text: string
  /** Cosine similarity of the row's vector to the query vector, in [-1, 1]. */
  similarity: number
  /** The rank-fused relevance the hits are ordered by (higher is better). */
  relevance: number
  created_at: number
  platform: string
  user_id: string
  guild_id: string
  channel_id: string
}

export type IndexState = 'uninitialised' | 'ready' | 'open' | 'half-open'

export type EmbedderCheck = 'ok' | 'created' | 'reindex'

export interface VectorIndex {
  readonly state: IndexState
  /**
   * Opens the store. Never throws: on failure the breaker opens and later calls probe it again.
   */
  open(): Promise<void>
  /**
   * Makes sure `table` exists for vectors of this embedder. When the table holds vectors of another
   * embedder id or dimension it is dropped and `'reindex'` is returned: the caller re-adds every row.
   */
  prepare(table: string, embedderId: string, dims: number): Promise<EmbedderCheck>
  /** Adds or replaces rows by id. Throws when the store is unavailable (the caller keeps an outbox). */
  upsert(table: string, rows: IndexRow[]): Promise<void>
  /** Removes rows by id. Throws when the store is unavailable. */
  delete(table: string, ids: string[]): Promise<void>
  /** Removes every row of a prepared table (before it is rebuilt). Throws when the store is unavailable. */
  clear(table: string): Promise<void>
  /** Hybrid vector + full-text search within a scope. Throws when the store is unavailable. */
  search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }): Promise<IndexHit[]>
  /** Vector-only nearest neighbours within a scope (for de-duplication). */
  nearest(table: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]>
  /**
   * Cosine of `vector` to the rows `ids` of a scope, where the index can tell it at once (a scope held
   * in memory): undefined when it cannot, and undefined for a row it does not hold.
   */
  similarities?(table: string, vector: Float32Array, scope: Scope, ids: readonly string[]): (number | undefined)[] | undefined
  count(table: string, scope?: Scope): Promise<number>
  /** Up to `limit` rows of one scope, with their vectors (to hold a scope in memory). Throws when the store is unavailable. */
  scopeRows(table: string, scope: Scope, limit: number): Promise<IndexRow[]>
  /** Up to `limit` rows that lie in any of `scopes`, with their vectors, in one read. Throws when the store is unavailable. */
  scopesRows?(table: string, scopes: readonly Scope[], limit: number): Promise<IndexRow[]>
  /** Ids of every row of a table (to find what the database has and the index lacks); only those of `among` when given. */
  ids(table: string, among?: readonly string[]): Promise<string[]>
  /**
   * Reads every row and search index of a prepared table, and repairs what cannot be read: its search
   * indexes rebuilt, or the table made anew (`'created'`: every row must be re-added). Engines that keep
   * nothing to damage leave it out.
   */
  verify?(table: string): Promise<EmbedderCheck>
  /** Texts of rows matching `ids`, used to prove that forgotten text is gone. */
  texts(table: string, ids: string[]): Promise<string[]>
  /**
   * Rewrites a table so that no file it keeps holds a removed row, and deletes the files of older
   * versions: after an erasure, none of the erased text stays on disk. Throws when the store is unavailable.
   */
  purge(table: string): Promise<void>
  /** Compacts fragments and prunes old versions. */
  optimize(table?: string): Promise<void>
  /** When `table` was last optimized by this process; absent for an engine that never optimizes. */
  optimizedAt?(table: string): Date | undefined
  close(): Promise<void>
}
