import { isStopword } from './stopwords'
import { isAllCjk, tokenize, words } from './tokens'

/**
 * Content terms of a text, CJK-aware: the words of `words()` (Intl.Segmenter, so Chinese is split by
 * dictionary, not on spaces), without function words of English and Chinese, without tokens that
 * carry no letter or digit of meaning (single Latin letters), possessives folded ("caroline's" →
 * "caroline") and English inflections folded by `stem` so "paintings", "painted" and "painting" meet.
 */
export function contentTerms(text: string): string[] {
  return termsOf(words(text))
}

/** `contentTerms` of a text's `words()`. */
function termsOf(words: string[]): string[] {
  const out: string[] = []
  for (const raw of words) {
    let word = raw
    if (!isAllCjk(word)) {
      word = word.replace(/'s$/, '').replace(/'$/, '')
      if (!word || isStopword(word) || isStopword(raw)) continue
      if (word.length < 2 && !/\d/.test(word)) continue
      word = stem(word)
    } else if (isStopword(word)) continue
    out.push(word)
  }
  return out
}

/**
 * Terms for lexical matching (BM25): the content terms, plus the characters and character bigrams
 * of each run of CJK text (none with a function-word character such as 的 / 了 / 吗), marked so they
 * never equal a word.
 * Chinese is segmented differently in different sentences ("订好位子" / "订位"); shared characters
 * and bigrams still match, and their rarity in the channel says how much.
 */
export function matchTerms(text: string): string[] {
  const { words, cjkRuns } = tokenize(text)
  const out = termsOf(words)
  for (const run of cjkRuns) {
    const chars = [...run]
    for (let i = 0; i < chars.length; i++) {
      if (isStopword(chars[i])) continue
      out.push(`\u0001${chars[i]}`)
      if (i + 1 < chars.length && !isStopword(chars[i + 1])) out.push(`\u0002${chars[i]}${chars[i + 1]}`)
    }
  }
  return out
}

const VOWEL = /[aeiouy]/

/**
 * A light English stemmer: plural and verb endings (-s, -es, -ies, -ing, -ed), doubled final
 * consonants after -ing/-ed, and a final silent e, so inflections of one word share a stem
 * ("parties" / "party", "running" / "run", "loved" / "loving" / "love"). It never produces a stem
 * shorter than three letters and leaves non-Latin words alone. Not a linguistic stemmer: it only has
 * to map a word and its inflections to the same key.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word
  let w = word
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1)

  let stripped = false
  if (w.endsWith('ied') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('ing') && w.length - 3 >= 3 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3)
    stripped = true
  } else if (w.endsWith('ed') && w.length - 2 >= 3 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2)
    stripped = true
  }
  if (stripped && w.length > 3 && w[w.length - 1] === w[w.length - 2] && !/[lsz]/.test(w[w.length - 1])) w = w.slice(0, -1)
  if (w.endsWith('y') && w.length > 3) w = w.slice(0, -1) + 'i'
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1)
  return w
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
