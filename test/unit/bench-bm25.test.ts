import { describe, expect, it } from 'vitest'
import { Bm25 } from '../../bench/lib/bm25'

describe('Bm25', () => {
  const docs = [
    'I adopted a puppy named Max last week',
    'We went hiking in the mountains',
    'Max the puppy loves the park',
    'The park was crowded with people and the dogs',
  ]

  it('ranks documents sharing rare query terms first', () => {
    const bm25 = new Bm25(docs)
    const ranked = bm25.rank('where does the puppy Max play?')
    expect(ranked.slice(0, 2).sort()).toEqual([0, 2])
    // plain BM25 has no stopword list and no stemming: "the" outweighs "name" ≠ "named", so the
    // document that names the puppy ranks last
    expect(bm25.rank('the name of the puppy')).toEqual([2, 3, 1, 0])
    expect(bm25.scores('hiking')[1]).toBeGreaterThan(0)
    expect(bm25.scores('hiking').filter((s) => s > 0)).toHaveLength(1)
  })

  it('matches the Okapi formula with the Lucene idf', () => {
    const bm25 = new Bm25(['a b', 'a c c', 'd'], { k1: 1.2, b: 0.75 })
    const avgdl = (2 + 3 + 1) / 3
    const idfC = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    const norm = 1 - 0.75 + 0.75 * (3 / avgdl)
    expect(bm25.scores('c')[1]).toBeCloseTo((idfC * 2 * 2.2) / (2 + 1.2 * norm), 12)
    expect(bm25.idf('a')).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 12)
    expect(bm25.idf('zzz')).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 12)
  })

  it('a repeated query term adds its score again', () => {
    const bm25 = new Bm25(docs)
    expect(bm25.scores('park park')[2]).toBeCloseTo(2 * bm25.scores('park')[2], 12)
  })

  it('tokenises CJK with words() by default', () => {
    const bm25 = new Bm25(['我喜欢吃北京烤鸭', '今天天气很好', '烤鸭店关门了'])
    const ranked = bm25.rank('烤鸭好吃吗')
    expect(ranked.slice(0, 2).sort()).toEqual([0, 2])
  })

  it('scores nothing for an empty query or corpus and keeps ties in document order', () => {
    expect(new Bm25(docs).scores('')).toEqual([0, 0, 0, 0])
    expect(new Bm25([]).rank('x')).toEqual([])
    expect(new Bm25(['x y', 'x y']).rank('x')).toEqual([0, 1])
  })

  it('accepts another tokenizer', () => {
    const chars = (text: string) => [...text]
    const bm25 = new Bm25(['abc', 'xyz'], { tokenize: chars })
    expect(bm25.rank('zy')[0]).toBe(1)
  })
})
