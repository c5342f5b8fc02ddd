import { Jieba } from '@node-rs/jieba'
import { dict } from '@node-rs/jieba/dict'

/**
 * Chinese words for matching, by jieba's dictionary (without its HMM, which glues unknown names to the
 * verb before them: 叫小红). `Intl.Segmenter` glues function characters to words ("我的", "养了",
 * "她在"), so a question and the fact that answers it share fewer words; jieba splits them off.
 * Unknown names fall apart into characters, which the character n-grams of `matchTerms` join again.
 */

let jieba: Jieba | undefined

function segmenter(): Jieba {
  return (jieba ??= Jieba.withDict(dict))
}

/** The dictionary words of a run of Chinese text, in order, covering it exactly. */
export function cjkWords(run: string): string[] {
  return segmenter().cut(run, false)
}

/** Words of a run of Chinese text with jieba's part-of-speech tags (its HMM on: unknown words are tagged `x`). */
export function cjkTags(run: string): { word: string; tag: string }[] {
  return segmenter().tag(run, true)
}
