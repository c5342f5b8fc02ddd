import { fuseRanks, isZero, WORDLIKE } from './index-checks'
import { ngramLength, ngramTerms } from './ngram-terms'
import type { IndexHit, IndexRow } from './vector-index'

/** BM25 as LanceDB's full-text index scores. */
const K1 = 1.2
const B = 0.75
/** What one row costs besides its vector, its text and its terms: the row object, its strings' headers, the id map entry. */
const ROW_OVERHEAD = 450
/** What one posting (a row holding a term) costs: one slot of an array. */
const POSTING_BYTES = 8
/** What one distinct term of a scope costs: its string, its map entry, its posting object and array. */
const TERM_OVERHEAD = 160
/** A posting packs the row's slot and the term's count in one 31-bit integer (the count capped: BM25 saturates long before). */
const COUNT_BITS = 8
const MAX_COUNT = (1 << COUNT_BITS) - 1
/** Scopes of at least this many slots search in arrays they keep (`zeroed`). */
const SCRATCH_FROM = 4096
/** A dimension not 0 in more than this share of the slots is read whole rather than through its list. */
const DENSE_SHARE = 0.25

type RowInfo = Omit<IndexRow, 'vector'>

interface Posting {
  /** slot × 2^COUNT_BITS + count, per row holding the term (removed rows' too, until compaction). */
  entries: number[]
  /** Postings whose row is still there. */
  live: number
  /** When the term entered the scope (LanceDB numbers a partition's terms in the order it meets them). */
  order: number
}

/**
 * All rows of one scope of one table, held in memory and searched exactly: cosine over every vector
 * for the vector leg, the full-text leg over `ngramTerms` scored as LanceDB scores it (`fullText`) with
 * this scope's own statistics, the two fused by reciprocal rank as `LanceIndex` fuses its legs. Rows
 * are added and removed one by one as the store's writes land; a removed row leaves a hole that is
 * reclaimed once holes outnumber rows.
 */
export class ScopeTable {
  private infos: (RowInfo | undefined)[] = []
  private readonly slotOf = new Map<string, number>()
  /** One array per dimension (the scope's vectors stored by column): a query reads each of its dimensions in one sweep. */
  private columns: Float32Array[]
  private norms: Float32Array
  private lengths: Uint32Array
  /** 1 where a slot holds a row, 0 for a hole: the scans read it instead of `infos`. */
  private live: Uint8Array
  /**
   * Per dimension, the slots where it is not 0, while they are few (a sparse embedder's vectors):
   * a query then reads only those. Undefined once a dimension is dense enough to read whole.
   */
  private nonzero: (SlotList | undefined)[]
  /** What the lists of `nonzero` hold, kept as they grow: `bytes` is read on every write. */
  private listBytes = 0
  private readonly postings = new Map<string, Posting>()
  private totalLength = 0
  private rowBytes = 0
  private terms = 0
  private readonly scratch: Float64Array[] = []

  constructor(
    readonly dims: number,
    rows: readonly IndexRow[] = [],
  ) {
    const capacity = Math.max(8, rows.length)
    this.columns = Array.from({ length: dims }, () => new Float32Array(capacity))
    this.norms = new Float32Array(capacity)
    this.lengths = new Uint32Array(capacity)
    this.live = new Uint8Array(capacity)
    this.nonzero = Array.from({ length: dims }, () => new SlotList())
    for (const row of rows) this.upsert(row)
  }

  get size(): number {
    return this.slotOf.size
  }

  /** An estimate of the memory the scope holds, for the cache's cap. */
  get bytes(): number {
    return (
      this.dims * this.norms.length * 4 +
      this.norms.byteLength +
      this.lengths.byteLength +
      this.live.byteLength +
      this.scratch.reduce((sum, array) => sum + array.byteLength, 0) +
      this.listBytes +
      this.rowBytes +
      this.postings.size * TERM_OVERHEAD
    )
  }

  has(id: string): boolean {
    return this.slotOf.has(id)
  }

  upsert(row: IndexRow): void {
    if (row.vector.length !== this.dims)
      throw new RangeError(`row ${row.id} has ${row.vector.length} dimensions, the scope holds ${this.dims}`)
    this.remove(row.id)
    const slot = this.infos.length
    if (slot === this.norms.length) this.grow(slot * 2)
    const { vector, ...info } = row
    this.infos.push(info)
    this.live[slot] = 1
    this.slotOf.set(row.id, slot)
    for (let i = 0; i < this.dims; i++) {
      this.columns[i][slot] = vector[i]
      const list = this.nonzero[i]
      if (!list || vector[i] === 0) continue
      this.listBytes += list.push(slot)
      if (list.length > this.norms.length * DENSE_SHARE) {
        this.listBytes -= list.bytes
        this.nonzero[i] = undefined
      }
    }
    let norm = 0
    for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i]
    this.norms[slot] = Math.sqrt(norm)
    const length = ngramLength([...row.text].length)
    this.lengths[slot] = length
    this.totalLength += length
    const terms = ngramTerms(row.text)
    for (const [term, count] of terms) {
      let posting = this.postings.get(term)
      if (!posting) this.postings.set(term, (posting = { entries: [], live: 0, order: this.terms++ }))
      posting.entries.push((slot << COUNT_BITS) | Math.min(count, MAX_COUNT))
      posting.live++
    }
    this.rowBytes += this.costOf(info, terms.size)
  }

  remove(id: string): boolean {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return false
    const info = this.infos[slot]!
    this.slotOf.delete(id)
    this.infos[slot] = undefined
    this.live[slot] = 0
    this.totalLength -= this.lengths[slot]
    const terms = ngramTerms(info.text)
    for (const term of terms.keys()) {
      const posting = this.postings.get(term)!
      if (--posting.live === 0) this.postings.delete(term)
    }
    this.rowBytes -= this.costOf(info, terms.size)
    if (this.infos.length - this.slotOf.size > Math.max(32, this.slotOf.size)) this.compact()
    return true
  }

  /** What `VectorIndex.search` answers for this scope. */
  search(vector: Float32Array, text: string, limit: number): IndexHit[] {
    const query = text.trim()
    const useText = WORDLIKE.test(query)
    const useVector = !isZero(vector)
    if ((!useText && !useVector) || !limit || !this.size) return []
    const similarities = this.similarities(vector)
    const lists: number[][] = []
    if (useVector) lists.push(this.top(similarities, limit))
    if (useText) lists.push(this.fullText(query, limit).map(([slot]) => slot))
    return this.fused(lists, similarities, limit)
  }

  /** What `VectorIndex.nearest` answers for this scope. */
  nearest(vector: Float32Array, limit: number): IndexHit[] {
    if (isZero(vector) || !limit || !this.size) return []
    const similarities = this.similarities(vector)
    return this.fused([this.top(similarities, limit)], similarities, limit)
  }

  /** Cosine of the query to every slot (NaN for a hole). */
  private similarities(vector: Float32Array): Float64Array {
    const { dims, columns, norms, live, nonzero } = this
    const slots = this.infos.length
    const out = this.zeroed(0, slots)
    let queryNorm = 0
    // dimensions the query does not use add nothing (the offline embedder's vectors are mostly zeros)
    for (let i = 0; i < dims; i++) {
      const weight = vector[i]
      if (weight === 0) continue
      queryNorm += weight * weight
      const column = columns[i]
      const list = nonzero[i]
      if (list) {
        // a slot missing from the list holds 0 here, and a hole's sum is overwritten below
        const { slots: listed, length } = list
        for (let k = 0; k < length; k++) out[listed[k]] += weight * column[listed[k]]
      } else for (let slot = 0; slot < slots; slot++) out[slot] += weight * column[slot]
    }
    queryNorm = Math.sqrt(queryNorm)
    for (let slot = 0; slot < slots; slot++) {
      if (!live[slot]) out[slot] = NaN
      else out[slot] = norms[slot] && queryNorm ? out[slot] / (queryNorm * norms[slot]) : 0
    }
    return out
  }

  /** The full-text leg alone: the ids and scores (LanceDB's `_score`) of the `limit` best rows, best first. */
  textScores(text: string, limit: number): { id: string; score: number }[] {
    const query = text.trim()
    if (!WORDLIKE.test(query) || !limit || !this.size) return []
    return this.fullText(query, limit).map(([slot, score]) => ({ id: this.infos[slot]!.id, score }))
  }

  /**
   * The slots and scores of LanceDB's full-text search, best first. LanceDB (lance 8) takes the `limit`
   * rows of highest BM25 (k1 1.2, b 0.75), then scores each anew: the sum of its terms' document
   * weights times a single idf, that of the query term its index partition met last (the ngram
   * tokenizer puts every query term at position 0, and LanceDB looks idfs up by position). The scope
   * stands for one partition that met its terms in the order its rows brought them.
   */
  private fullText(query: string, limit: number): [slot: number, score: number][] {
    const { live, lengths } = this
    const bm25 = this.zeroed(1, this.infos.length)
    const weights = this.zeroed(2, this.infos.length)
    const found: number[] = []
    const average = this.totalLength / this.size
    let last: Posting | undefined
    for (const term of ngramTerms(query).keys()) {
      const posting = this.postings.get(term)
      if (!posting) continue
      if (!last || posting.order > last.order) last = posting
      const idf = this.idf(posting)
      for (const entry of posting.entries) {
        const slot = entry >>> COUNT_BITS
        if (!live[slot]) continue
        const count = entry & MAX_COUNT
        const weight = (count * (K1 + 1)) / (count + K1 * (1 - B + (B * lengths[slot]) / average))
        // every term found adds a positive weight, so 0 means not found yet
        if (weights[slot] === 0) found.push(slot)
        weights[slot] += weight
        bm25[slot] += idf * weight
      }
    }
    if (!last) return []
    const idf = this.idf(last)
    return this.top(bm25, limit, found)
      .map((slot): [number, number] => [slot, idf * weights[slot]])
      .sort((a, b) => b[1] - a[1])
  }

  /**
   * Scratch array `which` of `length` zeros. A search runs start to end without yielding, so one set
   * per table serves all its searches; a big table would otherwise leave megabytes to collect per search.
   */
  private zeroed(which: number, length: number): Float64Array {
    if (length < SCRATCH_FROM) return new Float64Array(length)
    let array = this.scratch[which]
    if (!array || array.length < length) array = this.scratch[which] = new Float64Array(this.norms.length)
    array.fill(0, 0, length)
    return array.subarray(0, length)
  }

  private idf(posting: Posting): number {
    return Math.log(1 + (this.size - posting.live + 0.5) / (posting.live + 0.5))
  }

  /**
   * The slots of the `limit` highest scores, best first, ties to the lower slot; of `candidates`
   * when given, else of every slot (NaN is no score). A heap keeps the worst of the best on top.
   */
  private top(scores: Float64Array, limit: number, candidates?: number[]): number[] {
    const heap: number[] = []
    // whether slot a ranks below slot b
    const below = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b)
    const offer = (slot: number) => {
      if (heap.length === limit) {
        if (!below(heap[0], slot)) return
        heap[0] = slot
        siftDown(heap, 0, below)
        return
      }
      heap.push(slot)
      for (let at = heap.length - 1; at > 0;) {
        const up = (at - 1) >> 1
        if (!below(heap[at], heap[up])) break
        ;[heap[at], heap[up]] = [heap[up], heap[at]]
        at = up
      }
    }
    if (candidates) for (const slot of candidates) offer(slot)
    else for (let slot = 0; slot < scores.length; slot++) if (!Number.isNaN(scores[slot])) offer(slot)
    return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0))
  }

  /** The hits of ranked lists of slots fused by reciprocal rank (`fuseRanks`). */
  private fused(lists: number[][], similarities: Float64Array, limit: number): IndexHit[] {
    const similarity = (slot: number) => similarities[slot] || 0
    return fuseRanks(lists, similarity, limit).map(([slot, relevance]) => ({
      ...this.infos[slot]!,
      similarity: similarity(slot),
      relevance,
    }))
  }

  private costOf(info: RowInfo, terms: number): number {
    const strings =
      info.id.length + info.text.length + info.platform.length + info.user_id.length + info.guild_id.length + info.channel_id.length
    return ROW_OVERHEAD + 2 * strings + POSTING_BYTES * terms
  }

  private grow(capacity: number) {
    const keep = Math.min(this.norms.length, capacity)
    this.columns = this.columns.map((column) => {
      const grown = new Float32Array(capacity)
      grown.set(column.subarray(0, keep))
      return grown
    })
    const norms = new Float32Array(capacity)
    norms.set(this.norms.subarray(0, keep))
    const lengths = new Uint32Array(capacity)
    lengths.set(this.lengths.subarray(0, keep))
    const live = new Uint8Array(capacity)
    live.set(this.live.subarray(0, keep))
    this.norms = norms
    this.lengths = lengths
    this.live = live
  }

  /** Writes the live rows anew without holes. */
  private compact() {
    const rows: IndexRow[] = []
    this.infos.forEach((info, slot) => {
      if (info) rows.push({ ...info, vector: Float32Array.from(this.columns, (column) => column[slot]) })
    })
    this.infos = []
    this.nonzero = Array.from({ length: this.dims }, () => new SlotList())
    this.listBytes = 0
    this.slotOf.clear()
    this.postings.clear()
    this.totalLength = 0
    this.rowBytes = 0
    this.grow(Math.max(8, rows.length * 2))
    for (const row of rows) this.upsert(row)
  }
}

/** Restores the heap below `at` after its slot was replaced. */
function siftDown(heap: number[], at: number, below: (a: number, b: number) => boolean) {
  for (;;) {
    const left = 2 * at + 1
    if (left >= heap.length) return
    const right = left + 1
    const lower = right < heap.length && below(heap[right], heap[left]) ? right : left
    if (!below(heap[lower], heap[at])) return
    ;[heap[at], heap[lower]] = [heap[lower], heap[at]]
    at = lower
  }
}

/** A growing list of slots, in the order they were added. */
class SlotList {
  slots = new Int32Array(0)
  length = 0

  get bytes(): number {
    return this.slots.byteLength
  }

  /** Adds a slot; returns the bytes the list grew by. */
  push(slot: number): number {
    let grew = 0
    if (this.length === this.slots.length) {
      const grown = new Int32Array(Math.max(4, this.length * 2))
      grown.set(this.slots)
      grew = grown.byteLength - this.slots.byteLength
      this.slots = grown
    }
    this.slots[this.length++] = slot
    return grew
  }
}
