import { describe, expect, it } from 'vitest'
import { contentTerms, extractKeywords, matchTerms, stem } from '../../src/text/keywords'
import { isStopword } from '../../src/text/stopwords'

describe('content terms', () => {
  it('drops English function words and folds inflections and possessives', () => {
    expect(contentTerms("What did Caroline's sisters paint on the weekends?")).toEqual(['carolin', 'sister', 'paint', 'weekend'])
    expect(contentTerms('I was painting; she painted; paintings')).toEqual(['paint', 'paint', 'paint'])
  })

  it('segments Chinese by words, not spaces, and drops function words', () => {
    const terms = contentTerms('我们明天去北京吃烤鸭吧')
    expect(terms).toContain('北京')
    expect(terms).toContain('烤鸭')
    expect(terms).not.toContain('我们')
    expect(terms).not.toContain('吧')
  })

  it('keeps numbers and drops single Latin letters', () => {
    expect(contentTerms('a b 2023 x5')).toEqual(['2023', 'x5'])
  })

  it('stems inflections to one key and leaves short or non-Latin words alone', () => {
    expect(stem('parties')).toBe(stem('party'))
    expect(stem('running')).toBe(stem('run'))
    expect(stem('loved')).toBe(stem('love'))
    expect(stem('loving')).toBe(stem('love'))
    expect(stem('cats')).toBe('cat')
    expect(stem('bus')).toBe('bus')
    expect(stem('café')).toBe('café')
  })

  it('knows stopwords of both languages', () => {
    expect(isStopword('the')).toBe(true)
    expect(isStopword('什么')).toBe(true)
    expect(isStopword('烤鸭')).toBe(false)
  })
})

describe('matchTerms', () => {
  it('adds CJK characters and bigrams without function-word characters', () => {
    const terms = matchTerms('订好位子了吗')
    expect(terms).toEqual(expect.arrayContaining(['位子', '\u0001订', '\u0001位', '\u0002位子']))
    expect(terms.some((term) => term.includes('了') || term.includes('吗'))).toBe(false)
    expect(matchTerms('painted walls')).toEqual(contentTerms('painted walls'))
  })
})

describe('extractKeywords', () => {
  it('weights by frequency, halves single CJK characters and applies an idf', () => {
    const keywords = extractKeywords('猫 猫 猫咪 cats cat dog')
    const weight = (word: string) => keywords.find((k) => k.word === word)?.weight
    expect(weight('cat')).toBeCloseTo(1 + Math.log(2))
    expect(weight('dog')).toBe(1)
    expect(weight('猫')).toBeCloseTo(0.5 * (1 + Math.log(2)))
    expect(weight('猫咪')).toBe(1)
    expect(keywords[0].word).toBe('cat')
    const idf = extractKeywords('cat dog', { idf: (word) => (word === 'dog' ? 3 : 1) })
    expect(idf[0]).toEqual({ word: 'dog', weight: 3 })
    expect(extractKeywords('cat dog bird', { limit: 2 })).toHaveLength(2)
  })
})
