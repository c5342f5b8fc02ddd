import { ByteLru } from '../core/lru'
import { stringBytes } from '../core/memory-budget'
import type { TermCounts } from '../text/bm25'
import { bm25, countTerms, termStatsOf } from '../text/bm25'
import { matchTerms } from '../text/keywords'
import { nameTerms } from '../text/names'

/**
 * Reranks the candidates of a hybrid search (design §4.4's retrieval: vector + keyword) by a blend of
 * BM25 over the candidates and their embedding similarity.
 *
 * The index's own full-text leg and the rank fusion know nothing of how rare a shared word is among
 * this user's memories, and an offline (lexical) embedder has no such notion either: "Bart" or
 * "开心" in every memory of a user weighs as much as "魔术". Here the candidates are scored with BM25 over
 * `matchTerms` (words, CJK characters and bigrams, no function words), with the candidates' own
 * document frequencies, and blended with the calibrated embedding similarity:
 *   relevance = lexicalShare · bm25 / best bm25 + (1 − lexicalShare) · (similarity − min) / (max − min).
 *
 * A multi-line query (a stretch of conversation) weighs each line `LINE_DECAY` times the next one:
 * the last lines say what the talk is about now.
 *
 * Names do not outweigh what is asked: the BM25 of the names of people in the query (`nameTerms`)
 * counts fully only for a memory that also matches some other word of it, else `NAME_ONLY` of it.
 * Every fact about Alice holds "Alice"; for "Which bonds are in Alice's portfolio?" a short "Alice is
 * my colleague" must not outrank the fact about her bonds, while "Alice" still sets her facts above others.
 */
export const LINE_DECAY = 0.85
export const NAME_ONLY = 0.3

export interface Rerankable {
  id: string
  text: string
  similarity: number
}

/** The lexical share when none is configured: an embedder that only sees shared words adds nothing BM25 lacks. */
export function defaultLexicalShare(embedder: { lexical?: boolean }): number {
  return embedder.lexical ? 1 : 0.3
}

/** Query terms weighted by line (the last line 1, each earlier line `LINE_DECAY` of the next), names apart. */
export function queryTerms(query: string): { words: Map<string, number>; names: Map<string, number> } {
  const lines = query.split(/\r?\n/).filter((line) => line.trim())
  const words = new Map<string, number>()
  const names = new Map<string, number>()
  lines.forEach((line, i) => {
    const named = nameTerms(line)
    const weight = Math.pow(LINE_DECAY, lines.length - 1 - i)
    for (const term of matchTerms(line)) {
      const into = named.has(term) ? names : words
      into.set(term, Math.max(into.get(term) ?? 0, weight))
    }
  })
  for (const term of names.keys()) words.delete(term)
  return { words, names }
}

interface TextTerms {
  list: string[]
  counts: TermCounts
}

/** The cap when none is given (a standalone reranker, tests). */
const DEFAULT_CAP_BYTES = 4 * 2 ** 20

/** What a text's terms take: the objects and the array, each distinct term's string and map entry. */
function termsBytes({ list, counts }: TextTerms): number {
  let bytes = 200 + 8 * list.length
  for (const term of counts.terms.keys()) bytes += 40 + stringBytes(term)
  return bytes
}

export class Reranker {
  /** The terms of texts scored lately, by text (the same facts and lines come back query after query). */
  private readonly cache: ByteLru<TextTerms>

  constructor(capBytes = DEFAULT_CAP_BYTES) {
    this.cache = new ByteLru(capBytes, termsBytes)
  }

  /** What the kept terms take (estimated) and of how many texts. */
  held(): { bytes: number; entries: number } {
    return this.cache.held()
  }

  /** The hits, best first, each with its blended `relevance` in [0, 1]. */
  rerank<T extends Rerankable>(query: string, hits: T[], lexicalShare: number): (T & { relevance: number })[] {
    if (!hits.length) return []
    const share = Math.min(1, Math.max(0, lexicalShare))
    const terms = queryTerms(query)
    const docs = hits.map((hit) => this.terms(hit.text))
    const stats = termStatsOf(docs.map((doc) => doc.list))
    const lexical = docs.map((doc) => {
      const words = bm25(terms.words, doc.counts, stats)
      const names = terms.names.size ? bm25(terms.names, doc.counts, stats) : 0
      return words + (words > 0 ? names : NAME_ONLY * names)
    })
    const bestLexical = Math.max(0, ...lexical)
    const similarities = hits.map((hit) => hit.similarity)
    const low = Math.min(...similarities)
    const spread = Math.max(...similarities) - low
    return hits
      .map((hit, i) => {
        const lexicalPart = bestLexical > 0 ? lexical[i] / bestLexical : 0
        const embeddingPart = spread > 0 ? (hit.similarity - low) / spread : 0
        return { ...hit, relevance: share * lexicalPart + (1 - share) * embeddingPart }
      })
      .sort((a, b) => b.relevance - a.relevance || b.similarity - a.similarity)
  }

  private terms(text: string) {
    let entry = this.cache.get(text)
    if (entry) return entry
    const list = matchTerms(text)
    entry = { list, counts: countTerms(list) }
    this.cache.set(text, entry)
    return entry
  }
}
