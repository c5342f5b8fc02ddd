import { isCjkCodePoint, normalizeText } from '../text/tokens'

/**
 * Full-text matching without a full-text index, for the database index: a query's terms are looked up
 * in each row's text. Like LanceDB's `ngram` tokenizer, a run of Chinese (or other CJK) characters
 * gives each character and each pair, so no dictionary is needed; other words are matched whole, as
 * substrings ("live" finds "lives").
 */

const RUN = /[\p{L}\p{N}]+/gu

/** The distinct terms of a query; one-letter Latin words match too much to count. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>()
  for (const [run] of normalizeText(text).matchAll(RUN)) {
    let word = ''
    let cjk: string[] = []
    const flush = () => {
      if (word.length > 1 || /\p{N}/u.test(word)) terms.add(word)
      cjk.forEach((ch, i) => {
        terms.add(ch)
        if (i + 1 < cjk.length) terms.add(ch + cjk[i + 1])
      })
      word = ''
      cjk = []
    }
    for (const ch of run) {
      if (isCjkCodePoint(ch.codePointAt(0)!)) {
        if (word) flush()
        cjk.push(ch)
      } else {
        if (cjk.length) flush()
        word += ch
      }
    }
    flush()
  }
  return [...terms]
}

/**
 * Positions of the texts that hold at least one of `terms`, best first: each term found adds its
 * inverse document frequency over `texts` (as in BM25), so rare terms weigh more than common ones.
 */
export function rankByTerms(terms: string[], texts: string[]): number[] {
  const n = texts.length
  if (!terms.length || !n) return []
  const normalized = texts.map(normalizeText)
  const scores = new Float64Array(n)
  for (const term of terms) {
    const found: number[] = []
    normalized.forEach((text, i) => {
      if (text.includes(term)) found.push(i)
    })
    const idf = Math.log(1 + (n - found.length + 0.5) / (found.length + 0.5))
    for (const i of found) scores[i] += idf
  }
  const matching: number[] = []
  scores.forEach((score, i) => {
    if (score > 0) matching.push(i)
  })
  return matching.sort((a, b) => scores[b] - scores[a])
}
