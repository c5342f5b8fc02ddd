import { slotTerm } from './slots'
import { stem } from './stem'
import { isQuestionWord, isStopword } from './stopwords'
import { isAllCjk, pieces } from './tokens'
import { baseForm } from './word-forms'

export { stem } from './stem'

/**
 * Content terms of a text, CJK-aware: the words of `Intl.Segmenter` (Chinese split by its dictionary),
 * without function words of English and Chinese (question words among them), without
 * tokens that carry no letter or digit of meaning (single Latin letters), possessives folded
 * ("caroline's" → "caroline"), irregular forms to their base (`baseForm`: went → go) and English
 * inflections folded by `stem` so "paintings", "painted" and "painting" meet.
 */
export function contentTerms(text: string): string[] {
  const out: string[] = []
  for (const piece of pieces(text)) {
    if (!piece.cjk) pushLatin(piece.text, out)
    else for (const word of piece.words) if (!isStopword(word)) out.push(word)
  }
  return out
}

/** The term of a Latin word, if it is one, pushed to `out`. */
function pushLatin(raw: string, out: string[], slots = false) {
  const word = raw.replace(/'s$/, '').replace(/'$/, '')
  if (!word || isStopword(word) || isStopword(raw)) return
  if (word.length < 2 && !/\d/.test(word)) return
  out.push((slots && slotTerm(word)) || stem(baseForm(word)))
}

/**
 * Terms for lexical matching (BM25): the content terms (a word that fills a slot as its slot's term,
 * so 名字 and 叫 meet), plus the
 * characters and character bigrams of each run of CJK text, each kind marked so it never equals a word.
 * Characters of question words (什么, 哪里 …) and function characters (的, 了 …) yield none, and a
 * bigram never spans one.
 * Chinese is segmented differently in different sentences ("订好位子" / "订位"); shared characters
 * and bigrams still match, and their rarity in the channel says how much.
 */
export function matchTerms(text: string): string[] {
  const out: string[] = []
  for (const piece of pieces(text)) {
    if (!piece.cjk) {
      pushLatin(piece.text, out, true)
      continue
    }
    const { words } = piece
    for (const word of words) if (!isStopword(word)) out.push(slotTerm(word) ?? word)
    pushNgrams(words, out)
  }
  return out
}

/**
 * Characters and bigrams of a CJK run's words (the parts of a long word among them: 元旦晚会 → 晚会), none from a question word (什么 yields no 什) or a function-word
 * character. The characters of other function words still count: a word the list drops can share a
 * character with what the answer says (一起 / 起).
 */
function pushNgrams(words: string[], out: string[]) {
  const chars: string[] = []
  const content: boolean[] = []
  for (const word of words) {
    const question = isQuestionWord(word)
    for (const ch of word) {
      chars.push(ch)
      content.push(!question && !isStopword(ch))
    }
  }
  for (let i = 0; i < chars.length; i++) {
    if (!content[i]) continue
    out.push(`\u0001${chars[i]}`)
    if (content[i + 1]) out.push(`\u0002${chars[i]}${chars[i + 1]}`)
  }
}

export interface Keyword {
  word: string
  weight: number
}

/** Weight of a single CJK character relative to a multi-character word: single characters are vague. */
const SINGLE_CJK_WEIGHT = 0.5

/**
 * Weighted keywords of a text, heaviest first: term frequency (sublinear, 1 + ln tf) times a weight
 * for how specific the term looks (a single CJK character counts half), times `idf(word)` when
 * given (a corpus statistic such as the channel's document frequencies). At most `limit` keywords.
 */
export function extractKeywords(text: string, options: { limit?: number; idf?: (word: string) => number } = {}): Keyword[] {
  const tf = new Map<string, number>()
  for (const term of contentTerms(text)) tf.set(term, (tf.get(term) ?? 0) + 1)
  const out: Keyword[] = []
  for (const [word, count] of tf) {
    const specificity = isAllCjk(word) && [...word].length === 1 ? SINGLE_CJK_WEIGHT : 1
    out.push({ word, weight: (1 + Math.log(count)) * specificity * (options.idf?.(word) ?? 1) })
  }
  out.sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1))
  return options.limit === undefined ? out : out.slice(0, options.limit)
}
