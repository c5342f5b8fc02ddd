import type { TermStatsView } from './bm25'
import { bm25Of, listStats } from './bm25'
import { FNV_BASIS, hash32 } from './hash'

/**
 * Term lists kept as 32-bit hashes: a few bytes a term instead of a string each, for texts whose terms
 * are matched again and again (the context builder's candidates). Two different terms share a hash
 * about once in four billion pairs.
 */

export function termHash(term: string): number {
  return hash32(FNV_BASIS, term) | 0
}

/** The hashes of a text's terms (`matchTerms`), in their order. */
export function hashTerms(terms: readonly string[]): Int32Array {
  const out = new Int32Array(terms.length)
  for (let i = 0; i < terms.length; i++) out[i] = termHash(terms[i])
  return out
}

/** Query terms (distinct) that score hashed documents by BM25, as `bm25` scores counted ones. */
export class HashedQuery {
  private readonly at = new Map<number, number>()
  private readonly idfs: number[]
  private readonly counts: Float64Array

  constructor(
    terms: readonly string[],
    private readonly stats: TermStatsView,
  ) {
    this.idfs = terms.map((term) => stats.idf(term))
    terms.forEach((term, i) => this.at.set(termHash(term), i))
    this.counts = new Float64Array(terms.length)
  }

  score(doc: Int32Array): number {
    if (!doc.length || !this.idfs.length) return 0
    const counts = this.counts.fill(0)
    for (let i = 0; i < doc.length; i++) {
      const at = this.at.get(doc[i])
      if (at !== undefined) counts[at]++
    }
    return bm25Of(this.idfs, counts, doc.length, this.stats.averageLength)
  }
}

/** The statistics of a handful of hashed term lists (`termStatsOf` for them). */
export function hashedStats(lists: readonly Int32Array[]): TermStatsView {
  return listStats(lists, termHash)
}
