/**
 * The terms LanceDB's full-text index makes of a text with the tokenizer the index is built with
 * (`lance-search-indexes.ts`: `ngram`, 1–2 characters, lowercased, ASCII-folded by default): every
 * character and every pair of neighbouring characters, spaces and punctuation included, in the order
 * the tokenizer gives them. The in-memory scopes score with the same terms, so a scope ranks alike
 * whichever of the two answers.
 */
export function ngramTerms(text: string): Map<string, number> {
  const chars: string[] = []
  for (const char of text) chars.push(foldChar(char))
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

/** Letters the folding maps to ASCII that Unicode does not decompose. */
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ĳ: 'ij',
  þ: 'th',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ħ: 'h',
  ŋ: 'n',
  ŧ: 't',
  ĸ: 'k',
  ı: 'i',
}

/**
 * One character as the index's lowercase and ASCII-folding filters leave it: full-width forms and
 * Latin letters with marks become ASCII (`，` → `,`, `é` → `e`, `ß` → `ss`); CJK characters and CJK
 * punctuation stay as they are.
 */
function foldChar(char: string): string {
  const code = char.codePointAt(0)!
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 0x20) : char
  // the common CJK blocks: no case, nothing to fold
  if (code >= 0x2e80 && code < 0xa000) return char
  // full-width ASCII (`，`, `！`, `Ａ`)
  if (code >= 0xff01 && code <= 0xff5e) return foldChar(String.fromCharCode(code - 0xfee0))
  const lower = char.toLowerCase()
  if (lower.length > 1 || lower.charCodeAt(0) < 0x80 || (code >= 0x2500 && code < 0xff00)) return lower
  if (FOLDS[lower]) return FOLDS[lower]
  const base = lower.normalize('NFKD').replace(/\p{M}/gu, '')
  return FOLDS[base] ?? (/^[!-~]$/.test(base) ? base : lower)
}
