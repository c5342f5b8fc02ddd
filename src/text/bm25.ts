import { matchTerms } from './keywords'

/** Okapi BM25 parameters. */
const K1 = 1.2
const B = 0.75

/** Corpus statistics BM25 needs. */
export interface TermStatsView {
  /** Documents counted. */
  readonly documents: number
  /** Mean number of terms per document. */
  readonly averageLength: number
  /** Smoothed inverse document frequency (BM25's form), never below 0.1. */
  idf(term: string): number
}

/** A document's terms, counted once. */
export interface TermCounts {
  terms: Map<string, number>
  length: number
}

export function countTerms(list: string[]): TermCounts {
  const terms = new Map<string, number>()
  for (const term of list) terms.set(term, (terms.get(term) ?? 0) + 1)
  return { terms, length: list.length }
}

/**
 * BM25 of a document for the query terms. A query term may carry a weight (a `Map`), e.g. less for
 * the older lines of a conversation; a plain list weighs every term 1.
 */
export function bm25(query: string[] | Map<string, number>, doc: TermCounts, stats: TermStatsView): number {
  if (!doc.length) return 0
  const entries: [string, number][] = Array.isArray(query) ? query.map((term) => [term, 1]) : [...query]
  return bm25Of(
    entries.map(([term, weight]) => weight * stats.idf(term)),
    entries.map(([term]) => doc.terms.get(term) ?? 0),
    doc.length,
    stats.averageLength,
  )
}

/**
 * BM25 from the query terms' weighted idfs and how often each occurs in a document of `length`
 * terms (the same order), for callers that count the terms their own way.
 */
export function bm25Of(idfs: readonly number[], counts: ArrayLike<number>, length: number, averageLength: number): number {
  if (!length) return 0
  const norm = K1 * (1 - B + (B * length) / Math.max(1, averageLength))
  let score = 0
  for (let i = 0; i < idfs.length; i++) {
    const tf = counts[i]
    if (tf) score += (idfs[i] * (tf * (K1 + 1))) / (tf + norm)
  }
  return score
}

/** Statistics over a handful of texts, or of their `matchTerms` when already computed. */
export function termStatsOf(texts: (string | string[])[]): TermStatsView {
  return listStats(
    texts.map((text) => (typeof text === 'string' ? matchTerms(text) : text)),
    (term) => term,
  )
}

/** Statistics over term lists whose terms are kept as keys of any kind: `keyOf` turns a term into its key. */
export function listStats<K>(lists: readonly (ArrayLike<K> & Iterable<K>)[], keyOf: (term: string) => K): TermStatsView {
  const df = new Map<K, number>()
  let terms = 0
  let documents = 0
  for (const list of lists) {
    if (!list.length) continue
    documents++
    terms += list.length
    for (const key of new Set(list)) df.set(key, (df.get(key) ?? 0) + 1)
  }
  return statsView(documents, terms, (term) => df.get(keyOf(term)) ?? 0)
}

/** The view of `documents` documents of `terms` terms in all, in which `frequency(term)` hold a term. */
export function statsView(documents: number, terms: number, frequency: (term: string) => number): TermStatsView {
  return {
    documents,
    averageLength: documents ? terms / documents : 0,
    idf(term) {
      const n = frequency(term)
      return Math.max(0.1, Math.log(1 + (documents - n + 0.5) / (n + 0.5)))
    },
  }
}
