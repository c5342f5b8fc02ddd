import { words } from '../../src/text/tokens'

export interface Bm25Options {
  /** Term-frequency saturation. Default 1.2. */
  k1?: number
  /** Length normalisation. Default 0.75. */
  b?: number
  /** Tokenizer; default `words()` from `src/text/tokens` (CJK-aware, lowercased, NFKC). */
  tokenize?: (text: string) => string[]
}

/**
 * Okapi BM25 over a fixed set of documents, with the Lucene idf `ln(1 + (N − df + 0.5) / (df + 0.5))`
 * (never negative). No stopword list and no stemming: the plain baseline.
 */
export class Bm25 {
  readonly k1: number
  readonly b: number
  private tokenize: (text: string) => string[]
  private tf: Map<string, number>[] = []
  private lengths: number[] = []
  private df = new Map<string, number>()
  private avgdl = 0

  constructor(docs: string[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2
    this.b = options.b ?? 0.75
    this.tokenize = options.tokenize ?? words
    let total = 0
    for (const doc of docs) {
      const terms = this.tokenize(doc)
      const tf = new Map<string, number>()
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1)
      for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1)
      this.tf.push(tf)
      this.lengths.push(terms.length)
      total += terms.length
    }
    this.avgdl = docs.length ? total / docs.length : 0
  }

  get size() {
    return this.tf.length
  }

  idf(term: string): number {
    const n = this.df.get(term) ?? 0
    return Math.log(1 + (this.size - n + 0.5) / (n + 0.5))
  }

  /** The BM25 score of every document for `query` (a query term counts once per occurrence). */
  scores(query: string): number[] {
    const terms = this.tokenize(query)
    const out = new Array<number>(this.size).fill(0)
    if (!terms.length || !this.avgdl) return out
    for (const term of terms) {
      if (!this.df.has(term)) continue
      const idf = this.idf(term)
      for (let d = 0; d < this.size; d++) {
        const f = this.tf[d].get(term)
        if (!f) continue
        const norm = 1 - this.b + this.b * (this.lengths[d] / this.avgdl)
        out[d] += (idf * f * (this.k1 + 1)) / (f + this.k1 * norm)
      }
    }
    return out
  }

  /** Document indices, best first; ties keep document order. Documents scoring 0 come last. */
  rank(query: string): number[] {
    const scores = this.scores(query)
    return scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b)
  }
}
