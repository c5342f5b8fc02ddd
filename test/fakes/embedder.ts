import type { EmbedOptions, Embedder } from '../../src/providers/types'
import { l2normalize } from '../../src/providers/vectors'

/** How a fake makes its vectors: wrap a real embedder, or a function of one text. */
export type VectorSource = { inner: Embedder } | { id: string; dims: number; lexical?: boolean; vector: (text: string) => Float32Array }

export interface FailureOptions {
  /** The first `failures` calls throw `error()`. */
  failures?: number
  /** What a failing call throws; `Error('embedder down')` by default. */
  error?: () => Error
}

export type FakeEmbedderOptions = VectorSource & FailureOptions

/** `values` scaled to length 1 (all zeros stay zeros). */
export function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values) || 1
  return Float32Array.from(values, (x) => x / norm)
}

/**
 * The one fake embedder of the tests. Its vectors come from a wrapped embedder or from a function
 * of the text (see the static constructors); `down = true` makes every call throw, `failures` the
 * first few; `calls` counts the calls.
 */
export class FakeEmbedder implements Embedder {
  /**
   * Concept word lists for `FakeEmbedder.concepts()`: a text's vector counts the lists it touches,
   * so "群组的技术背景是什么？" and "成员多为前端开发者" meet on *tech* although they share no word.
   */
  static readonly CONCEPTS: readonly string[][] = [
    ['技术', '开发', '前端', '后端', '程序', '代码', 'tech', 'developer', 'code'],
    ['动漫', '新番', '番剧', '动画', 'anime'],
    ['游戏', '开黑', 'game'],
    ['美食', '火锅', '吃', 'food'],
    ['政治', 'politics'],
  ]

  readonly id: string
  readonly dims: number
  readonly lexical?: boolean
  down = false
  calls = 0
  private failures: number
  private readonly error: () => Error
  private readonly make: (texts: string[], options?: EmbedOptions) => Promise<Float32Array[]>

  constructor(options: FakeEmbedderOptions) {
    if ('inner' in options) {
      const inner = options.inner
      this.id = inner.id
      this.dims = inner.dims
      this.lexical = inner.lexical
      this.make = (texts, embedOptions) => inner.embed(texts, embedOptions)
    } else {
      this.id = options.id
      this.dims = options.dims
      this.lexical = options.lexical
      this.make = async (texts) => texts.map(options.vector)
    }
    this.failures = options.failures ?? 0
    this.error = options.error ?? (() => new Error('embedder down'))
  }

  async embed(texts: string[], options?: EmbedOptions) {
    this.calls++
    if (this.down || this.failures-- > 0) throw this.error()
    return this.make(texts, options)
  }

  /** A real embedder a test can switch off (`down = true`): same id, dims and `lexical`. */
  static wrap(inner: Embedder, options: FailureOptions = {}) {
    return new FakeEmbedder({ inner, ...options })
  }

  /** Vectors chosen by the test: each text maps to a direction; an unknown text throws. */
  static table(table: Record<string, number[]>) {
    const dims = Object.values(table)[0]?.length ?? 0
    return new FakeEmbedder({
      id: 'table-v1',
      dims,
      vector: (text) => {
        const v = table[text]
        if (!v) throw new Error(`no vector for ${text}`)
        return unit(v)
      },
    })
  }

  /** The direction of the first rule whose substring the text contains, else `fallback`. */
  static rules(rules: [string, number[]][], fallback = [0, 0, 1]) {
    return new FakeEmbedder({
      id: 'rules-v1',
      dims: fallback.length,
      vector: (text) => unit(rules.find(([needle]) => text.includes(needle))?.[1] ?? fallback),
    })
  }

  /** A scripted "semantic" embedder standing in for a real model (the offline one is lexical). */
  static concepts() {
    const concepts = FakeEmbedder.CONCEPTS
    const dims = concepts.length + 1
    return new FakeEmbedder({
      id: 'concepts-v1',
      dims,
      vector: (text) => {
        const vector = new Float32Array(dims)
        const lower = text.toLowerCase()
        concepts.forEach((words, i) => {
          for (const word of words) if (lower.includes(word)) vector[i] += 1
        })
        vector[dims - 1] = 0.05 // a little shared mass so unrelated texts are not exactly orthogonal
        return l2normalize(vector)
      },
    })
  }
}
