/**
 * CJK-aware tokenisation on the platform's word segmenter (`Intl.Segmenter`, granularity `word`).
 * Node 20 ships full ICU, so Chinese and Japanese runs are split by dictionary ("我喜欢吃烤鸭" →
 * 我 / 喜欢 / 吃 / 烤鸭) and Latin text by the Unicode word-boundary rules ("don't" stays one word).
 *
 * Text is NFKC-normalised first (full-width "ＡＢＣ１２３" → "abc123", "，" → ","), lowercased, and
 * the typographic apostrophe (’) is folded into ('). Only word-like segments are kept: whitespace,
 * punctuation and emoji are dropped.
 */

// One segmenter for the process: constructing one costs far more than segmenting a sentence.
// Locale `zh` only picks the dictionary preference; ICU segments every script in any locale.
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' })

/** NFKC, lowercase, typographic apostrophes folded, invisible format marks dropped. The normal form every tokenizer here works on. */
export function normalizeText(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      // invisible format marks (zero-width, direction, BOM) would glue onto a word and keep it from matching
      .replace(/\p{Cf}/gu, '')
  )
}

/**
 * True for a code point in a CJK script: Han ideographs (including extensions and compatibility
 * ideographs), Hiragana, Katakana, Bopomofo and Hangul.
 */
export function isCjkCodePoint(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK Unified Ideographs
    (cp >= 0x3400 && cp <= 0x4dbf) || // Extension A
    (cp >= 0x20000 && cp <= 0x323af) || // Extensions B–H
    (cp >= 0xf900 && cp <= 0xfaff) || // Compatibility Ideographs
    (cp >= 0x3040 && cp <= 0x30ff) || // Hiragana, Katakana
    (cp >= 0x31f0 && cp <= 0x31ff) || // Katakana Phonetic Extensions
    (cp >= 0x3100 && cp <= 0x312f) || // Bopomofo
    (cp >= 0xac00 && cp <= 0xd7af) || // Hangul Syllables
    (cp >= 0x1100 && cp <= 0x11ff) || // Hangul Jamo
    (cp >= 0x3130 && cp <= 0x318f) || // Hangul Compatibility Jamo
    cp === 0x3005 || // 々
    cp === 0x3007 // 〇
  )
}

/** True when the first character of `ch` is CJK (see `isCjkCodePoint`). */
export function isCjk(ch: string): boolean {
  const cp = ch.codePointAt(0)
  return cp !== undefined && isCjkCodePoint(cp)
}

/** True when every character of a (non-empty) string is CJK. */
export function isAllCjk(text: string): boolean {
  if (!text) return false
  for (const ch of text) if (!isCjkCodePoint(ch.codePointAt(0)!)) return false
  return true
}

/** Word-like segments of already-normalised text. */
function segmentsOf(normalized: string): string[] {
  const out: string[] = []
  for (const s of segmenter.segment(normalized)) if (s.isWordLike) out.push(s.segment)
  return out
}

/**
 * Lowercased, NFKC-normalised word-like segments: "我喜欢吃北京烤鸭！" → ["我", "喜欢", "吃", "北京", "烤鸭"],
 * "I'm going, ＯＫ? 😀" → ["i'm", "going", "ok"].
 */
export function words(text: string): string[] {
  if (!text) return []
  return segmentsOf(normalizeText(text))
}

export interface Tokens {
  /** The same list `words()` returns. */
  words: string[]
  /**
   * Maximal runs of CJK text: consecutive all-CJK words not separated by punctuation, spaces or
   * other words, joined back together ("我喜欢吃烤鸭，好吃" → ["我喜欢吃烤鸭", "好吃"]). Character
   * n-grams over runs survive segmentation mistakes and cross word boundaries.
   */
  cjkRuns: string[]
}

/** A word outside CJK text, or a maximal run of CJK text (see `Tokens.cjkRuns`). */
export interface Piece {
  text: string
  cjk: boolean
  /** The words of a CJK run; a word outside CJK text is its own. */
  words: string[]
}

/** The words outside CJK text and the runs of CJK text (with their words), in their order. */
export function pieces(text: string): Piece[] {
  const out: Piece[] = []
  if (!text) return out
  let runEnd = -1
  for (const s of segmenter.segment(normalizeText(text))) {
    if (!s.isWordLike) continue
    const cjk = isAllCjk(s.segment)
    const last = out[out.length - 1]
    if (cjk && last?.cjk && s.index === runEnd) {
      last.text += s.segment
      last.words.push(s.segment)
    } else out.push({ text: s.segment, cjk, words: [s.segment] })
    if (cjk) runEnd = s.index + s.segment.length
  }
  return out
}

/** Words and CJK runs in one pass over the segmenter (what the lexical embedder needs). */
export function tokenize(text: string): Tokens {
  const result: Tokens = { words: [], cjkRuns: [] }
  if (!text) return result
  const normalized = normalizeText(text)
  let run = ''
  let runEnd = -1
  for (const s of segmenter.segment(normalized)) {
    if (!s.isWordLike) {
      continue
    }
    result.words.push(s.segment)
    if (isAllCjk(s.segment)) {
      // A run continues only when this word starts exactly where the previous CJK word ended.
      if (run && s.index === runEnd) run += s.segment
      else {
        if (run) result.cjkRuns.push(run)
        run = s.segment
      }
      runEnd = s.index + s.segment.length
    } else if (run) {
      result.cjkRuns.push(run)
      run = ''
    }
  }
  if (run) result.cjkRuns.push(run)
  return result
}
