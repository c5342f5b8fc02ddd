/**
 * The terms LanceDB's full-text index makes of a text with the tokenizer the index is built with
 * (`lance-index.ts`: `ngram`, 1–2 characters, lowercased): every character and every pair of
 * neighbouring characters, spaces and punctuation included. The in-memory scopes score with the same
 * terms, so a scope ranks alike whichever of the two answers.
 */
export function ngramTerms(text: string): Map<string, number> {
  const chars = [...text.toLowerCase()]
  const counts = new Map<string, number>()
  for (let i = 0; i < chars.length; i++) {
    counts.set(chars[i], (counts.get(chars[i]) ?? 0) + 1)
    if (i + 1 < chars.length) {
      const pair = chars[i] + chars[i + 1]
      counts.set(pair, (counts.get(pair) ?? 0) + 1)
    }
  }
  return counts
}

/** How many terms `ngramTerms` makes of a text of `length` characters (its BM25 document length). */
export function ngramLength(length: number): number {
  return length ? 2 * length - 1 : 0
}
