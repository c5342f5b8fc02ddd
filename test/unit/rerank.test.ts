import { describe, expect, it } from 'vitest'
import { defaultLexicalShare, LINE_DECAY, queryTerms, Reranker } from '../../src/facts/rerank'
import { matchTerms } from '../../src/text/keywords'

const hit = (id: string, text: string, similarity: number) => ({ id, text, similarity })

describe('queryTerms', () => {
  it('weighs the last line 1 and each earlier line LINE_DECAY of the next', () => {
    const weights = queryTerms('cats purr\n\nhorses gallop\ndogs bark')
    expect(weights.get(matchTerms('dogs')[0])).toBe(1)
    expect(weights.get(matchTerms('horses')[0])).toBeCloseTo(LINE_DECAY)
    expect(weights.get(matchTerms('cats')[0])).toBeCloseTo(LINE_DECAY ** 2)
  })

  it('keeps the heaviest weight of a term said on several lines', () => {
    expect(queryTerms('dogs\ncats\ndogs').get(matchTerms('dogs')[0])).toBe(1)
  })
})

describe('Reranker', () => {
  it('puts a memory sharing a rare word above one sharing only words every memory has', () => {
    const hits = [
      hit('common', 'Bart在学校很开心，Bart和同学玩得很开心。', 0.6),
      hit('rare', 'Bart在元旦晚会上表演魔术。', 0.3),
      hit('other', 'Bart吃了冰淇淋，很开心。', 0.5),
    ]
    const ranked = new Reranker().rerank('Bart说：我在晚会上要表演魔术，好开心！', hits, 1)
    expect(ranked[0].id).toBe('rare')
    expect(ranked[0].relevance).toBe(1)
  })

  it('favours what the last lines of a conversation are about', () => {
    const hits = [hit('cat', 'Ann has a cat called Tom', 0.5), hit('trip', 'Ann is flying to Tokyo in May', 0.5)]
    const ranked = new Reranker().rerank('my cat was sick last week\nanyway, about my trip to Tokyo', hits, 1)
    expect(ranked.map((h) => h.id)).toEqual(['trip', 'cat'])
    const reversed = new Reranker().rerank('anyway, about my trip to Tokyo\nmy cat was sick last week', hits, 1)
    expect(reversed.map((h) => h.id)).toEqual(['cat', 'trip'])
  })

  it('orders by similarity alone at share 0, and breaks ties by similarity', () => {
    const hits = [hit('a', 'apples', 0.2), hit('b', 'bananas', 0.9), hit('c', 'cherries', 0.5)]
    expect(new Reranker().rerank('apples', hits, 0).map((h) => h.id)).toEqual(['b', 'c', 'a'])
    expect(new Reranker().rerank('nothing shared', hits, 1).map((h) => h.id)).toEqual(['b', 'c', 'a'])
  })

  it('blends the two parts by the share', () => {
    const hits = [hit('lex', 'the quarterly budget review', 0.1), hit('vec', 'money planning meeting', 0.9)]
    expect(new Reranker().rerank('budget review', hits, 0.8)[0].id).toBe('lex')
    expect(new Reranker().rerank('budget review', hits, 0.2)[0].id).toBe('vec')
    const [first] = new Reranker().rerank('budget review', hits, 0.5)
    expect(first.relevance).toBeCloseTo(0.5)
  })

  it("returns nothing for no hits and keeps each hit's fields", () => {
    expect(new Reranker().rerank('x', [], 1)).toEqual([])
    const [one] = new Reranker().rerank('x', [{ ...hit('a', 'x', 0.4), extra: 7 }], 1)
    expect(one).toMatchObject({ id: 'a', extra: 7, similarity: 0.4 })
  })

  it('trusts BM25 alone with a lexical embedder and mostly meaning with a semantic one', () => {
    expect(defaultLexicalShare({ lexical: true })).toBe(1)
    expect(defaultLexicalShare({})).toBe(0.3)
  })
})
