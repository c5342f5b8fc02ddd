import { Jieba } from '@node-rs/jieba'
import { dict } from '@node-rs/jieba/dict'

/**
 * jieba, for what the platform's segmenter cannot tell: which words of a Chinese text are names
 * (`cjkTags`). For matching, `Intl.Segmenter`'s words serve as well as jieba's, at less cost.
 */

let jieba: Jieba | undefined

function segmenter(): Jieba {
  return (jieba ??= Jieba.withDict(dict))
}

/** Words of a run of Chinese text with jieba's part-of-speech tags (its HMM on: unknown words are tagged `x`). */
export function cjkTags(run: string): { word: string; tag: string }[] {
  return segmenter().tag(run, true)
}
