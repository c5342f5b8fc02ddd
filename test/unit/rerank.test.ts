import { describe, expect, it } from 'vitest'
import { defaultLexicalShare, LINE_DECAY, queryTerms, Reranker } from '../../src/facts/rerank'
import { matchTerms } from '../../src/text/keywords'

const hit = (id: string, text: string, similarity: number) => ({ id, text, similarity })

describe('queryTerms', () => {
  it('weighs the last line 1 and each earlier line LINE_DECAY of the next', () => {
    const weights = queryTerms('cats purr\n\nhorses gallop\ndogs bark').words
    expect(weights.get(matchTerms('dogs')[0])).toBe(1)
    expect(weights.get(matchTerms('horses')[0])).toBeCloseTo(LINE_DECAY)
    expect(weights.get(matchTerms('cats')[0])).toBeCloseTo(LINE_DECAY ** 2)
  })

  it('keeps the heaviest weight of a term said on several lines', () => {
    expect(queryTerms('dogs\ncats\ndogs').words.get(matchTerms('dogs')[0])).toBe(1)
  })

  it('keeps the names of people apart from the words', () => {
    const { words, names } = queryTerms("Which bonds are in Alice's portfolio?")
    expect([...names.keys()]).toEqual(matchTerms('Alice'))
    expect([...words.keys()].sort()).toEqual([...matchTerms('bonds portfolio')].sort())
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

  it('does not let the name of the person asked about outweigh what is asked', () => {
    const english = [
      hit('colleague', 'Alice Chen is my colleague', 0.5),
      hit('classmate', 'Alice Chen is my classmate', 0.5),
      hit('boyfriend', 'Alice Chen is my boyfriend', 0.5),
      hit('answer', 'Most of her savings sit in long-dated treasury bonds that she bought through her bank during the pandemic', 0.5),
      hit('hiking', 'Bob goes hiking in the mountains every weekend', 0.5),
      hit('move', 'The user moved to Chengdu in 2021', 0.5),
      hit('car', 'Carol bought a new car', 0.5),
    ]
    expect(new Reranker().rerank("Which bonds are in Alice Chen's portfolio?", english, 1)[0].id).toBe('answer')
    const chinese = [
      hit('colleague', '小红是我的同事', 0.5),
      hit('classmate', '小红是我的同学', 0.5),
      hit('answer', '她去年买了不少国债和地方政府债券，打算长期持有', 0.5),
      hit('other', '我每个周末都去爬山', 0.5),
    ]
    expect(new Reranker().rerank('小红的投资组合里有哪些债券？', chinese, 1)[0].id).toBe('answer')
    // without anything else to go by, the facts about the person named still come first
    const ranked = new Reranker().rerank('What about Alice Chen?', english, 1)
    expect(ranked.slice(0, 3).map((h) => h.id)).toEqual(expect.arrayContaining(['colleague', 'classmate', 'boyfriend']))
  })

  it('finds the fact that fills the slot a question asks about (叫 answers 名字)', () => {
    const hits = [hit('school', 'alice的妹妹在北京上学', 0.5), hit('name', 'alice的妹妹叫小雨', 0.5)]
    expect(new Reranker().rerank('我妹妹的名字是什么？', hits, 1)[0].id).toBe('name')
    const cats = [hit('food', 'Ann feeds her cat twice a day', 0.5), hit('name', 'Ann has a cat called Mimi', 0.5)]
    expect(new Reranker().rerank("What is my cat's name?", cats, 1)[0].id).toBe('name')
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
