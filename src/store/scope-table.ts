import { fuse, isZero, rankRelevance, WORDLIKE } from './index-checks'
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
  private readonly postings = new Map<string, Posting>()
  private totalLength = 0
  private rowBytes = 0
  private terms = 0

  constructor(
    readonly dims: number,
    rows: readonly IndexRow[] = [],
  ) {
    const capacity = Math.max(8, rows.length)
    this.columns = Array.from({ length: dims }, () => new Float32Array(capacity))
    this.norms = new Float32Array(capacity)
    this.lengths = new Uint32Array(capacity)
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
    this.slotOf.set(row.id, slot)
    for (let i = 0; i < this.dims; i++) this.columns[i][slot] = vector[i]
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
    const byVector = useVector ? this.ranked(this.top(similarities, limit), similarities) : undefined
    const textSlots = useText ? this.fullText(query, limit).map(([slot]) => slot) : undefined
    const byText = textSlots && this.ranked(textSlots, similarities)
    if (byVector && byText) return fuse([byVector, byText], limit)
    return (byVector ?? byText)!
  }

  /** What `VectorIndex.nearest` answers for this scope. */
  nearest(vector: Float32Array, limit: number): IndexHit[] {
    if (isZero(vector) || !limit || !this.size) return []
    const similarities = this.similarities(vector)
    return this.ranked(this.top(similarities, limit), similarities)
  }

  /** Cosine of the query to every slot (NaN for a hole). */
  private similarities(vector: Float32Array): Float64Array {
    const { dims, columns, norms } = this
    const slots = this.infos.length
    const out = new Float64Array(slots)
    let queryNorm = 0
    // dimensions the query does not use add nothing (the offline embedder's vectors are mostly zeros)
    for (let i = 0; i < dims; i++) {
      const weight = vector[i]
      if (weight === 0) continue
      queryNorm += weight * weight
      const column = columns[i]
      for (let slot = 0; slot < slots; slot++) out[slot] += weight * column[slot]
    }
    queryNorm = Math.sqrt(queryNorm)
    for (let slot = 0; slot < slots; slot++) {
      if (!this.infos[slot]) out[slot] = NaN
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
    const slots = this.infos.length
    const bm25 = new Float64Array(slots).fill(NaN)
    const weights = new Float64Array(slots)
    const average = this.totalLength / this.size
    // the length part of each row's denominator, computed once for all the query's terms
    const lengthNorm = new Float64Array(slots)
    for (let slot = 0; slot < slots; slot++) lengthNorm[slot] = K1 * (1 - B + (B * this.lengths[slot]) / average)
    let last: Posting | undefined
    for (const term of ngramTerms(query).keys()) {
      const posting = this.postings.get(term)
      if (!posting) continue
      if (!last || posting.order > last.order) last = posting
      const idf = this.idf(posting)
      for (const entry of posting.entries) {
        const slot = entry >>> COUNT_BITS
        if (!this.infos[slot]) continue
        const count = entry & MAX_COUNT
        const weight = (count * (K1 + 1)) / (count + lengthNorm[slot])
        weights[slot] += weight
        bm25[slot] = Number.isNaN(bm25[slot]) ? idf * weight : bm25[slot] + idf * weight
      }
    }
    if (!last) return []
    const idf = this.idf(last)
    return this.top(bm25, limit)
      .map((slot): [number, number] => [slot, idf * weights[slot]])
      .sort((a, b) => b[1] - a[1])
  }

  private idf(posting: Posting): number {
    return Math.log(1 + (this.size - posting.live + 0.5) / (posting.live + 0.5))
  }

  /** The slots of the `limit` highest scores, best first (NaN is no score). */
  private top(scores: Float64Array, limit: number): number[] {
    const best: number[] = []
    for (let slot = 0; slot < scores.length; slot++) {
      const score = scores[slot]
      if (Number.isNaN(score)) continue
      if (best.length === limit && score <= scores[best[limit - 1]]) continue
      let at = best.length
      while (at > 0 && scores[best[at - 1]] < score) at--
      best.splice(at, 0, slot)
      if (best.length > limit) best.pop()
    }
    return best
  }

  private ranked(slots: number[], similarities: Float64Array): IndexHit[] {
    return slots.map((slot, rank) => {
      const info = this.infos[slot]!
      return { ...info, similarity: similarities[slot] || 0, relevance: rankRelevance(rank) }
    })
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
    this.norms = norms
    this.lengths = lengths
  }

  /** Writes the live rows anew without holes. */
  private compact() {
    const rows: IndexRow[] = []
    this.infos.forEach((info, slot) => {
      if (info) rows.push({ ...info, vector: Float32Array.from(this.columns, (column) => column[slot]) })
    })
    this.infos = []
    this.slotOf.clear()
    this.postings.clear()
    this.totalLength = 0
    this.rowBytes = 0
    this.grow(Math.max(8, rows.length * 2))
    for (const row of rows) this.upsert(row)
  }
}
