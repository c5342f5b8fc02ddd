import { isCjkCodePoint } from './tokens'

export type Language = 'zh' | 'en'

/**
 * Share of CJK characters among all letters at or above which a text counts as Chinese. Chinese
 * packs a word into one or two characters while an English word takes about five letters, so a line
 * of Chinese mixed with English names ("明天去看Avengers") is still Chinese at a share well below ½.
 */
export const CJK_SHARE_THRESHOLD = 0.2

const LETTER = /\p{L}/u

/**
 * `'zh'` when CJK characters make up at least `CJK_SHARE_THRESHOLD` of the letters of `text`, else
 * `'en'`. Digits, punctuation, emoji and whitespace are not letters. A text with no letters at all
 * gets `fallback` (default `'en'`).
 */
export function detectLanguage(text: string, fallback: Language = 'en'): Language {
  let letters = 0
  let cjk = 0
  for (const ch of text.normalize('NFKC')) {
    const cp = ch.codePointAt(0)!
    if (isCjkCodePoint(cp)) {
      cjk++
      letters++
    } else if (cp < 0x80 ? (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a : LETTER.test(ch)) letters++
  }
  if (letters === 0) return fallback
  return cjk / letters >= CJK_SHARE_THRESHOLD ? 'zh' : 'en'
}

/** One prompt in each language the plugin speaks. */
export interface LocalizedPrompt {
  zh: string
  en: string
}
