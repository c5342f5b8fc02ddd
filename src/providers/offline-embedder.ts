import type { Embedder } from './types'
import { l2normalize } from './vectors'
import { FNV_BASIS, hash32 as hash } from '../text/hash'
import { isAllCjk, tokenize } from '../text/tokens'

export interface OfflineEmbedderOptions {
  /** Vector length. Default 512. */
  dims?: number
}

// Feature namespaces: each kind of feature hashes from its own seed, so the word "ab" and the
// character bigram "ab" land in different buckets.
const SEED_WORD = FNV_BASIS
const SEED_CHAR = 0x050c5d1f
const SEED_BIGRAM = 0x1b873593
const SEED_TRIGRAM = 0x7feb352d

// Relative weights of the feature kinds. Whole words carry the most; single CJK characters are
// common across unrelated sentences (的, 了, 我), so they only break ties.
const WORD = 0
const CHAR = 1
const BIGRAM = 2
const TRIGRAM = 3
const WEIGHTS = [1, 0.35, 0.7, 0.45] // indexed by kind

/**
 * An offline, deterministic, key-less embedder for when no embedding model is configured, and for
 * tests. It is **lexical**: two texts are similar when they share words, CJK characters or
 * character n-grams — it matches shared words, not meanings. "我喜欢猫" and "我爱小猫咪" come out
 * close only because they share 我 and 猫; "I like cats" and "felines are my favourite" do not
 * come out close at all. Use a real embedding model (Gemini, an OpenAI-compatible endpoint) for
 * semantic recall.
 *
 * Features (signed feature hashing into `dims` buckets, each kind from its own hash seed):
 * - every word from `Intl.Segmenter` (`tokenize()` in `text/tokens`), lowercased and NFKC-normalised;
 * - CJK character unigrams and bigrams over each run of CJK text;
 * - character trigrams of each non-CJK word, padded with boundary marks (`^cat$` → `^ca`, `cat`, `at$`),
 *   so "like" and "likes" share most of their features.
 * Term frequencies are sublinear (1 + ln tf) and the vector is L2-normalised, so cosine similarity is a
 * dot product. A text with no word-like content (empty, only emoji or punctuation) maps to the zero vector.
 */
export class OfflineEmbedder implements Embedder {
  readonly id = 'offline-ngram-v1'
  readonly dims: number
  readonly lexical = true

  constructor(options: OfflineEmbedderOptions = {}) {
    const dims = options.dims ?? 512
    if (!Number.isInteger(dims) || dims < 8) throw new RangeError(`OfflineEmbedder: dims must be an integer ≥ 8, got ${dims}`)
    this.dims = dims
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text))
  }

  /** Synchronous form of `embed` for one text. */
  embedOne(text: string): Float32Array {
    // feature hash → term frequency × 4 + feature kind (0–3), one map lookup per feature
    const features = new Map<number, number>()
    const add = (h: number, kind: number) => {
      const entry = features.get(h)
      features.set(h, entry === undefined ? 4 + kind : entry + 4)
    }

    const { words, cjkRuns } = tokenize(text)
    for (const word of words) {
      add(hash(SEED_WORD, word), WORD)
      // CJK words are covered by the run n-grams below; Latin (and other) words get trigrams.
      if (isAllCjk(word)) continue
      const padded = '^' + word + '$'
      if (padded.length <= 3) add(hash(SEED_TRIGRAM, padded), TRIGRAM)
      else for (let i = 0; i + 3 <= padded.length; i++) add(hash(SEED_TRIGRAM, padded, i, i + 3), TRIGRAM)
    }
    for (const run of cjkRuns) {
      // Walk code points by UTF-16 offsets (extension ideographs are surrogate pairs).
      let prev = -1
      for (let i = 0; i < run.length;) {
        const next = i + (run.codePointAt(i)! > 0xffff ? 2 : 1)
        add(hash(SEED_CHAR, run, i, next), CHAR)
        if (prev >= 0) add(hash(SEED_BIGRAM, run, prev, next), BIGRAM)
        prev = i
        i = next
      }
    }

    const vector = new Float32Array(this.dims)
    for (const [h, entry] of features) {
      const value = WEIGHTS[entry & 3] * (1 + Math.log(entry >>> 2))
      // The bucket comes from the low bits, the sign from the top bit.
      vector[h % this.dims] += h & 0x80000000 ? -value : value
    }
    return l2normalize(vector)
  }
}
