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
  /**
   * The vectors, stored by dimension so that a query reads each of its dimensions in one sweep. A
   * dimension that is 0 in most rows (a sparse embedder's vectors) keeps only the slots where it is not,
   * with their values (`sparse`); once it is not 0 in `DENSE_SHARE` of the slots it becomes an array of
   * every slot's value (`dense`). Each dimension has exactly one of the two.
   */
  private dense: (Float32Array | undefined)[]
  private sparse: (SlotList | undefined)[]
  private norms: Float32Array
  private lengths: Uint32Array
  /** 1 where a slot holds a row, 0 for a hole: the scans read it instead of `infos`. */
  private live: Uint8Array
  /** What the lists of `sparse` hold, kept as they grow: `bytes` is read on every write. */
  private listBytes = 0
  private denseCount = 0
  private readonly postings = new Map<string, Posting>()
  private totalLength = 0
  private rowBytes = 0
  private terms = 0
  private readonly scratch: (Float64Array | Float32Array)[] = []
  private found = new Int32Array(0)

  constructor(
    readonly dims: number,
    rows: readonly IndexRow[] = [],
  ) {
    const capacity = Math.max(8, rows.length)
    this.dense = new Array(dims).fill(undefined)
    this.sparse = Array.from({ length: dims }, () => new SlotList())
    this.norms = new Float32Array(capacity)
    this.lengths = new Uint32Array(capacity)
    this.live = new Uint8Array(capacity)
    for (const row of rows) this.upsert(row)
  }

  get size(): number {
    return this.slotOf.size
  }

  /** An estimate of the memory the scope holds, for the cache's cap. */
  get bytes(): number {
    return (
      this.denseCount * this.norms.length * 4 +
      this.norms.byteLength +
      this.lengths.byteLength +
      this.live.byteLength +
      this.scratch.reduce((sum, array) => sum + array.byteLength, 0) +
      this.found.byteLength +
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
    const { vector, id, text, platform, user_id, guild_id, channel_id, created_at } = row
    const info: RowInfo = { id, text, platform, user_id, guild_id, channel_id, created_at }
    this.infos.push(info)
    this.live[slot] = 1
    this.slotOf.set(row.id, slot)
    for (let i = 0; i < this.dims; i++) {
      const value = vector[i]
      if (value === 0) continue
      const column = this.dense[i]
      if (column) {
        column[slot] = value
        continue
      }
      const list = this.sparse[i]!
      this.listBytes += list.push(slot, value)
      if (list.length > this.norms.length * DENSE_SHARE) this.densify(i)
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

  /**
   * Cosine of the query to the rows `ids`, undefined for an id the scope does not hold: the same value
   * a search gives the row, without scoring the others.
   */
  similarity(vector: Float32Array, ids: readonly string[]): (number | undefined)[] {
    const used: number[] = []
    let queryNorm = 0
    for (let i = 0; i < this.dims; i++) {
      if (vector[i] === 0) continue
      used.push(i)
      queryNorm += vector[i] * vector[i]
    }
    queryNorm = Math.sqrt(queryNorm)
    return ids.map((id) => {
      const slot = this.slotOf.get(id)
      if (slot === undefined) return undefined
      let sum = 0
      for (const i of used) sum += vector[i] * this.valueAt(i, slot)
      return this.norms[slot] && queryNorm ? sum / (queryNorm * this.norms[slot]) : 0
    })
  }

  /** Dimension `i` of the vector in `slot`. */
  private valueAt(i: number, slot: number): number {
    const column = this.dense[i]
    if (column) return column[slot]
    // a list holds its slots in ascending order
    const { slots, values, length } = this.sparse[i]!
    let low = 0
    let high = length - 1
    while (low <= high) {
      const middle = (low + high) >> 1
      if (slots[middle] < slot) low = middle + 1
      else if (slots[middle] > slot) high = middle - 1
      else return values[middle]
    }
    return 0
  }

  /** Cosine of the query to every slot (NaN for a hole). */
  private similarities(vector: Float32Array): Float64Array {
    const { dims, dense, sparse, norms, live } = this
    const slots = this.infos.length
    const out = this.zeroed(0, slots, Float64Array)
    let queryNorm = 0
    // dimensions the query does not use add nothing (the offline embedder's vectors are mostly zeros)
    for (let i = 0; i < dims; i++) {
      const weight = vector[i]
      if (weight === 0) continue
      queryNorm += weight * weight
      const column = dense[i]
      if (column) {
        for (let slot = 0; slot < slots; slot++) out[slot] += weight * column[slot]
        continue
      }
      // a slot missing from the list holds 0 here, and a hole's sum is overwritten below
      const { slots: listed, values, length } = sparse[i]!
      for (let k = 0; k < length; k++) out[listed[k]] += weight * values[k]
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
    // single precision, as LanceDB's scorer sums (and half the memory a big scope's scan walks)
    const bm25 = this.zeroed(1, this.infos.length, Float32Array)
    const weights = this.zeroed(2, this.infos.length, Float32Array)
    // the slots met, in a list kept for the next search (a big scope meets tens of thousands)
    const found = this.found.length >= this.infos.length ? this.found : (this.found = new Int32Array(this.norms.length))
    let met = 0
    const average = this.totalLength / this.size
    let last: Posting | undefined
    for (const term of ngramTerms(query).keys()) {
      const posting = this.postings.get(term)
      if (!posting) continue
      if (!last || posting.order > last.order) last = posting
      const idf = this.idf(posting)
      const { entries } = posting
      for (let k = 0; k < entries.length; k++) {
        const entry = entries[k]
        const slot = entry >>> COUNT_BITS
        if (!live[slot]) continue
        const count = entry & MAX_COUNT
        const weight = (count * (K1 + 1)) / (count + K1 * (1 - B + (B * lengths[slot]) / average))
        // every term found adds a positive weight, so 0 means not found yet
        if (weights[slot] === 0) found[met++] = slot
        weights[slot] += weight
        bm25[slot] += idf * weight
      }
    }
    if (!last) return []
    const idf = this.idf(last)
    return this.top(bm25, limit, found.subarray(0, met))
      .map((slot): [number, number] => [slot, idf * weights[slot]])
      .sort((a, b) => b[1] - a[1])
  }

  /**
   * Scratch array `which` of `length` zeros. A search runs start to end without yielding, so one set
   * per table serves all its searches; a big table would otherwise leave megabytes to collect per search.
   */
  private zeroed<T extends Float64Array | Float32Array>(which: number, length: number, kind: { new (length: number): T }): T {
    if (length < SCRATCH_FROM) return new kind(length)
    let array = this.scratch[which] as T | undefined
    if (!array || array.length < length) array = this.scratch[which] = new kind(this.norms.length)
    array.fill(0, 0, length)
    return array.subarray(0, length) as T
  }

  private idf(posting: Posting): number {
    return Math.log(1 + (this.size - posting.live + 0.5) / (posting.live + 0.5))
  }

  /**
   * The slots of the `limit` highest scores, best first, ties to the lower slot; of `candidates`
   * when given, else of every slot (NaN is no score). A heap keeps the worst of the best on top.
   */
  private top(scores: Float64Array | Float32Array, limit: number, candidates?: Int32Array): number[] {
    const heap: number[] = []
    // whether slot a ranks below slot b
    const below = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b)
    const push = (slot: number) => {
      heap.push(slot)
      for (let at = heap.length - 1; at > 0;) {
        const up = (at - 1) >> 1
        if (!below(heap[at], heap[up])) break
        ;[heap[at], heap[up]] = [heap[up], heap[at]]
        at = up
      }
    }
    // once the heap is full, a slot must beat its top (the worst of the best) to enter: most are
    // turned away by one comparison with that score
    if (candidates) {
      let k = 0
      for (; k < candidates.length && heap.length < limit; k++) push(candidates[k])
      for (let least = scores[heap[0]]; k < candidates.length; k++) {
        const slot = candidates[k]
        if (scores[slot] < least || !below(heap[0], slot)) continue
        heap[0] = slot
        siftDown(heap, 0, below)
        least = scores[heap[0]]
      }
    } else {
      let slot = 0
      for (; slot < scores.length && heap.length < limit; slot++) if (!Number.isNaN(scores[slot])) push(slot)
      // slots come in ascending order here, so one that only ties the top ranks below it (and NaN never passes)
      for (let least = scores[heap[0]]; slot < scores.length; slot++) {
        if (!(scores[slot] > least)) continue
        heap[0] = slot
        siftDown(heap, 0, below)
        least = scores[heap[0]]
      }
    }
    return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0))
  }

  /** The hits of ranked lists of slots fused by reciprocal rank (`fuseRanks`). */
  private fused(lists: number[][], similarities: Float64Array, limit: number): IndexHit[] {
    const similarity = (slot: number) => similarities[slot] || 0
    // field by field: spreading the row into the hit costs several times more
    return fuseRanks(lists, similarity, limit).map(([slot, relevance]) => {
      const { id, text, platform, user_id, guild_id, channel_id, created_at } = this.infos[slot]!
      return { id, text, platform, user_id, guild_id, channel_id, created_at, similarity: similarity(slot), relevance }
    })
  }

  private costOf(info: RowInfo, terms: number): number {
    const strings =
      info.id.length + info.text.length + info.platform.length + info.user_id.length + info.guild_id.length + info.channel_id.length
    return ROW_OVERHEAD + 2 * strings + POSTING_BYTES * terms
  }

  /** Turns dimension `i` from a list of its slots into an array of every slot's value. */
  private densify(i: number) {
    const list = this.sparse[i]!
    const column = new Float32Array(this.norms.length)
    for (let k = 0; k < list.length; k++) column[list.slots[k]] = list.values[k]
    this.listBytes -= list.bytes
    this.sparse[i] = undefined
    this.dense[i] = column
    this.denseCount++
  }

  private grow(capacity: number) {
    const keep = Math.min(this.norms.length, capacity)
    const resized = <T extends Float32Array | Uint32Array | Uint8Array>(array: T, make: (length: number) => T) => {
      const grown = make(capacity)
      grown.set(array.subarray(0, keep))
      return grown
    }
    this.dense = this.dense.map((column) => column && resized(column, (length) => new Float32Array(length)))
    this.norms = resized(this.norms, (length) => new Float32Array(length))
    this.lengths = resized(this.lengths, (length) => new Uint32Array(length))
    this.live = resized(this.live, (length) => new Uint8Array(length))
  }

  /** Writes the live rows anew without holes. */
  private compact() {
    const { infos, dense, sparse, dims } = this
    const capacity = Math.max(8, this.size * 2)
    this.infos = []
    this.dense = new Array(dims).fill(undefined)
    this.sparse = Array.from({ length: dims }, () => new SlotList())
    this.listBytes = 0
    this.denseCount = 0
    this.slotOf.clear()
    this.postings.clear()
    this.totalLength = 0
    this.rowBytes = 0
    this.norms = new Float32Array(capacity)
    this.lengths = new Uint32Array(capacity)
    this.live = new Uint8Array(capacity)
    // the lists hold their slots in ascending order: one cursor each reads them alongside the slots
    const cursors = new Int32Array(dims)
    const vector = new Float32Array(dims)
    infos.forEach((info, slot) => {
      for (let i = 0; i < dims; i++) {
        const column = dense[i]
        if (column) {
          vector[i] = column[slot]
          continue
        }
        const list = sparse[i]!
        let k = cursors[i]
        while (k < list.length && list.slots[k] < slot) k++
        cursors[i] = k
        vector[i] = k < list.length && list.slots[k] === slot ? list.values[k] : 0
      }
      if (info) this.upsert({ ...info, vector })
    })
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

/** The arrays of every list no row has used yet: most dimensions of a small scope. */
const NO_SLOTS = new Int32Array(0)
const NO_VALUES = new Float32Array(0)

/** A growing list of slots and the values a dimension has there, in the order they were added. */
class SlotList {
  slots = NO_SLOTS
  values = NO_VALUES
  length = 0

  get bytes(): number {
    return this.slots.byteLength + this.values.byteLength
  }

  /** Adds a slot; returns the bytes the list grew by. */
  push(slot: number, value: number): number {
    let grew = 0
    if (this.length === this.slots.length) {
      const before = this.bytes
      const slots = new Int32Array(Math.max(4, this.length * 2))
      const values = new Float32Array(slots.length)
      slots.set(this.slots)
      values.set(this.values)
      this.slots = slots
      this.values = values
      grew = this.bytes - before
    }
    this.slots[this.length] = slot
    this.values[this.length++] = value
    return grew
  }
}
