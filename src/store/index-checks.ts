import type { IndexHit, IndexRow } from './vector-index'

/**
 * What every `VectorIndex` checks and computes the same way: the rows and queries it accepts, and
 * reciprocal rank fusion of its ranked lists.
 */

/** The k of reciprocal rank fusion, as in LanceDB's `RRFReranker` (score = Σ 1 / (k + rank), rank from 0). */
export const RRF_K = 60
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/
/** A query with none of these characters has no words for the full-text leg. */
export const WORDLIKE = /[\p{L}\p{N}]/u

export function isZero(vector: ArrayLike<number>): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false
  return true
}

export function checkTableName(table: string) {
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) throw new TypeError(`invalid index table name: ${JSON.stringify(table)}`)
}

export function checkEmbedder(embedderId: string, dims: number) {
  if (!embedderId) throw new TypeError('embedderId must be a non-empty string')
  if (!Number.isInteger(dims) || dims <= 0) throw new TypeError(`dims must be a positive integer, got ${dims}`)
}

export function checkRow(row: IndexRow, dims: number) {
  if (!row || typeof row.id !== 'string' || !row.id) throw new TypeError('every index row needs a non-empty string id')
  for (const key of ['text', 'platform', 'user_id', 'guild_id', 'channel_id'] as const) {
    if (typeof row[key] !== 'string') throw new TypeError(`index row ${row.id}: ${key} must be a string`)
  }
  if (typeof row.created_at !== 'number' || !Number.isFinite(row.created_at))
    throw new TypeError(`index row ${row.id}: created_at must be a finite number`)
  const vector = row.vector
  if (!vector || typeof vector.length !== 'number') throw new TypeError(`index row ${row.id}: vector is missing`)
  // LanceDB pads a short vector with zeros and truncates a long one without a word.
  if (vector.length !== dims) throw new RangeError(`index row ${row.id}: vector has ${vector.length} dimensions, the table holds ${dims}`)
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) throw new RangeError(`index row ${row.id}: vector[${i}] is not a finite number`)
  }
}

/** Last row wins for duplicate ids. Throws before anything is written when one row is invalid. */
export function uniqueRows(rows: IndexRow[], dims: number): IndexRow[] {
  const byId = new Map<string, IndexRow>()
  for (const row of rows) {
    checkRow(row, dims)
    byId.set(row.id, row)
  }
  return [...byId.values()]
}

export function checkQueryVector(vector: Float32Array, dims: number) {
  if (!vector || vector.length !== dims) throw new RangeError(`query vector has ${vector?.length} dimensions, the table holds ${dims}`)
}

/** The limit as a whole number of rows, capped at 10,000; 0 when there is nothing to fetch. */
export function checkLimit(limit: number): number {
  if (typeof limit !== 'number' || !(limit >= 1)) return 0
  return Math.min(Math.floor(limit), 10_000)
}

/** The relevance of the hit at `rank` in a single ranked list, as reciprocal rank fusion scores it. */
export function rankRelevance(rank: number): number {
  return 1 / (RRF_K + rank)
}

/** Reciprocal rank fusion of ranked lists: Σ 1 / (k + rank), ties broken by similarity. */
export function fuse(lists: IndexHit[][], limit: number): IndexHit[] {
  // a hit both lists hold is the first list's
  const byId = new Map<string, IndexHit>()
  for (const hit of lists.flat()) if (!byId.has(hit.id)) byId.set(hit.id, hit)
  return fuseRanks(
    lists.map((list) => list.map((hit) => hit.id)),
    (id) => byId.get(id)!.similarity,
    limit,
  ).map(([id, relevance]) => ({ ...byId.get(id)!, relevance }))
}

/**
 * `fuse` over keys of any kind (the in-memory scopes fuse row slots, and make hits only of the
 * result): the `limit` best keys with their relevance, ties broken by `similarity`, then by the order
 * the lists first name them.
 */
export function fuseRanks<K>(lists: K[][], similarity: (key: K) => number, limit: number): [K, number][] {
  const relevance = new Map<K, number>()
  for (const list of lists) list.forEach((key, rank) => relevance.set(key, (relevance.get(key) ?? 0) + rankRelevance(rank)))
  return [...relevance].sort((a, b) => b[1] - a[1] || similarity(b[0]) - similarity(a[0])).slice(0, limit)
}
