/**
 * Every token budget of the plugin (the context builder, the prompt assembler, the metrics) is
 * counted with `countTokens`: an estimate of OpenAI's `o200k_base` (GPT-4o and later) that errs on
 * the high side, so a budget holds for what is sent. Other models split text differently, so a budget
 * is an estimate for them too, but the same everywhere. It is an estimate and not the tokenizer
 * itself because the tokenizer's tables would be the largest part of the plugin's install;
 * test/unit/token-estimate.test.ts holds it against the real count.
 */
export const ESTIMATED_ENCODING = 'o200k_base'

const CONTRACTION = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
/** The encoding's own split of a text into pieces (its pattern, with the case-insensitive contraction written out). */
const PIECE = new RegExp(
  [
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+${CONTRACTION}`,
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*${CONTRACTION}`,
    '\\p{N}{1,3}',
    ' ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*',
    '\\s*[\\r\\n]+',
    '\\s+(?!\\S)',
    '\\s+',
  ].join('|'),
  'gu',
)
const HAN = /\p{Script=Han}/u
const KANA_HANGUL = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const LATIN = /\p{Script=Latin}/u
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
const LETTER = /\p{L}/u
const MARK = /\p{M}/u

/**
 * What one piece costs: at least one token, for a piece is encoded on its own. Per class, from the
 * real counts of prose, chat and code: ASCII letters one token up to six, then one per six (a word
 * the encoding knows is one token; a rare or long one splits); Chinese characters one each (common
 * ones and pairs are one token, rare ones two or three), kana and hangul 0.6 each, and half a token
 * more for the run; accented Latin letters one each, other letters (Cyrillic, Greek, Arabic…) half a
 * token; ASCII punctuation one per two characters; any other symbol one, and a character outside the
 * basic plane (emoji, rare characters) two; numbers one per three digits, white space one a run.
 */
function pieceCost(piece: string): number {
  const first = piece.charCodeAt(0)
  if (first >= 0x30 && first <= 0x39) return 1
  if (/^\s+$/.test(piece)) return 1
  let cost = 0
  let ascii = 0
  let punctuation = 0
  let cjk = 0
  const chars = [...piece]
  // a leading sign before a word is a token of its own (a leading space is part of the word)
  const lead = chars.length > 1 && !LETTER_OR_DIGIT.test(chars[0]) && chars[0] !== ' ' && LETTER.test(chars[1]) ? 1 : 0
  cost += lead
  for (let i = lead; i < chars.length; i++) {
    const char = chars[i]
    const code = char.codePointAt(0)!
    if (code < 0x80) {
      if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) ascii++
      else if (code === 0x27) ascii++
      else if (code > 0x20) punctuation++
    } else if (code > 0xffff) cost += 2
    else if (HAN.test(char)) cjk++
    else if (KANA_HANGUL.test(char)) cjk += 0.6
    else if (LATIN.test(char)) cost += 1
    else if (LETTER.test(char) || MARK.test(char)) cost += 0.5
    else cost += 1
  }
  if (ascii) cost += Math.max(1, ascii / 6)
  if (cjk) cost += cjk + 0.5
  if (punctuation) cost += Math.max(1, punctuation / 2)
  // every piece is at least one token
  return Math.max(1, cost)
}

/** Tokens of `text` under `ESTIMATED_ENCODING`, estimated from above (see `pieceCost`). */
export function countTokens(text: string): number {
  if (!text) return 0
  let sum = 0
  for (const [piece] of text.matchAll(PIECE)) sum += pieceCost(piece)
  return Math.ceil(sum)
}

/**
 * A message as it is rendered in a context or a prompt transcript: `name: content`. Token counts of
 * context messages are taken on exactly this line, so a budget holds for what is actually sent.
 */
export function renderLine(name: string, content: string): string {
  return name ? `${name}: ${content}` : content
}

/**
 * The longest prefix of `text` within `maxTokens`: whole sentences (or lines) when at least one
 * fits, else a cut by characters ending in "…". Returns '' when nothing fits.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const trimmed = text.trim()
  if (!trimmed || maxTokens <= 0) return ''
  if (countTokens(trimmed) <= maxTokens) return trimmed
  let out = ''
  for (const sentence of trimmed.match(/[^。！？.!?\n]+[。！？.!?\n]*/g) ?? [trimmed]) {
    if (countTokens((out + sentence).trim()) > maxTokens) break
    out += sentence
  }
  out = out.trim()
  if (out) return out
  const length = cutLength(trimmed, maxTokens)
  return length ? trimmed.slice(0, length) + '…' : ''
}

/**
 * Length of the longest prefix of `text` that, with "…" after it, fits `maxTokens` (binary search), and
 * that does not end between the halves of a surrogate pair (a lone half is not valid text to send).
 */
export function cutLength(text: string, maxTokens: number): number {
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (countTokens(text.slice(0, mid) + '…') <= maxTokens) lo = mid
    else hi = mid - 1
  }
  return lo > 0 && /[\ud800-\udbff]/.test(text[lo - 1]) ? lo - 1 : lo
}
