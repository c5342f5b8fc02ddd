import { describe, expect, it } from 'vitest'
import { bm25, countTerms, termStatsOf } from '../../src/text/bm25'
import { matchTerms } from '../../src/text/keywords'
import { hashedStats, HashedQuery, hashTerms, termHash } from '../../src/text/term-hashes'

const texts = [
  '小明周末去北京吃烤鸭，烤鸭很好吃',
  'I went running with Caroline on Sunday morning',
  '明天下雨吗？要不要带伞',
  '小红说她的猫叫咪咪',
  'running shoes are on sale, the shoes I love',
  '周末一起去爬山吧，北京的香山',
  '',
]

describe('hashed term lists', () => {
  it('score every document exactly as BM25 over the counted terms does', () => {
    const stats = termStatsOf(texts)
    for (const query of ['北京烤鸭好吃吗', 'who loves running shoes', '周末去哪儿', '猫', 'nothing shared here']) {
      const terms = [...new Set(matchTerms(query))]
      const hashed = new HashedQuery(terms, stats)
      for (const text of texts) {
        const list = matchTerms(text)
        expect(hashed.score(hashTerms(list))).toBe(bm25(terms, countTerms(list), stats))
      }
    }
  })

  it('give the statistics of the texts they were made of', () => {
    const lists = texts.map((text) => matchTerms(text))
    const counted = termStatsOf(lists)
    const hashed = hashedStats(lists.map((list) => hashTerms(list)))
    expect(hashed.documents).toBe(counted.documents)
    expect(hashed.averageLength).toBe(counted.averageLength)
    for (const term of [...new Set(lists.flat()), 'absent', '\u0001龘']) expect(hashed.idf(term)).toBe(counted.idf(term))
  })

  it('keep a term as a 32-bit number, the same each time', () => {
    expect(hashTerms(['\u0001小', 'running'])).toEqual(Int32Array.of(termHash('\u0001小'), termHash('running')))
    expect(termHash('烤鸭')).not.toBe(termHash('\u0002烤鸭'))
    expect(Number.isInteger(termHash('x')) && termHash('x') >= -(2 ** 31) && termHash('x') < 2 ** 31).toBe(true)
  })
})
