import { describe, expect, it } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0)
const norm = (a: Float32Array) => Math.sqrt(dot(a, a))

describe('OfflineEmbedder', () => {
  const embedder = new OfflineEmbedder()

  it('has a stable id and the default dimension', () => {
    expect(embedder.id).toBe('offline-ngram-v1')
    expect(embedder.dims).toBe(512)
    expect(new OfflineEmbedder({ dims: 64 }).dims).toBe(64)
  })

  it('rejects a nonsensical dimension', () => {
    expect(() => new OfflineEmbedder({ dims: 0 })).toThrow(RangeError)
    expect(() => new OfflineEmbedder({ dims: 12.5 })).toThrow(RangeError)
  })

  it('returns one L2-normalised Float32Array of length dims per text', async () => {
    const vectors = await new OfflineEmbedder({ dims: 128 }).embed(['我喜欢吃烤鸭', 'I like pizza', '明天见'])
    expect(vectors).toHaveLength(3)
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array)
      expect(v.length).toBe(128)
      expect(norm(v)).toBeCloseTo(1, 5)
    }
  })

  it('is deterministic across instances', async () => {
    const [a] = await new OfflineEmbedder().embed(['我女朋友下周三过生日'])
    const [b] = await new OfflineEmbedder().embed(['我女朋友下周三过生日'])
    expect(Array.from(a)).toEqual(Array.from(b))
  })

  it('maps text with no words to the zero vector', async () => {
    const [v] = await embedder.embed(['😀！！'])
    expect(norm(v)).toBe(0)
  })

  it('ranks a Chinese text sharing words above an unrelated one', async () => {
    const [q, near, far] = await embedder.embed(['我喜欢吃烤鸭', '他爱吃北京烤鸭', '明天会下雨吗'])
    expect(dot(q, near)).toBeGreaterThan(0.2)
    expect(dot(q, near)).toBeGreaterThan(dot(q, far) + 0.2)
  })

  it('ranks an English text sharing word forms above an unrelated one (trigrams link like/likes)', async () => {
    const [q, near, far] = await embedder.embed(['I like pizza', 'She likes pizza a lot', 'The train leaves at noon'])
    expect(dot(q, near)).toBeGreaterThan(0.2)
    expect(dot(q, near)).toBeGreaterThan(dot(q, far) + 0.2)
  })

  it('treats case and full-width forms as the same text', async () => {
    const [a, b] = await embedder.embed(['Hello World 2024', 'ｈｅｌｌｏ　ｗｏｒｌｄ　２０２４'])
    expect(dot(a, b)).toBeCloseTo(1, 5)
  })

  it('is lexical: a paraphrase with no shared words is not similar', async () => {
    const [a, b] = await embedder.embed(['I adore cats', 'felines are my favourite'])
    expect(Math.abs(dot(a, b))).toBeLessThan(0.2)
  })

  it('handles surrogate-pair ideographs', async () => {
    const [a, b] = await embedder.embed(['𠀀𠀁', '𠀀𠀁'])
    expect(norm(a)).toBeCloseTo(1, 5)
    expect(dot(a, b)).toBeCloseTo(1, 5)
  })
})
