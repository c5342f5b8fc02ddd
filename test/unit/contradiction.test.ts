import { describe, expect, it } from 'vitest'
import { claimsOf, contradicts } from '../../src/facts/contradiction'

const clash = (older: string, newer: string) => contradicts(claimsOf(newer), claimsOf(older))

describe('claimsOf', () => {
  it('reads single-valued claims of a Chinese statement', () => {
    expect(claimsOf('小明住在成都。')).toEqual([{ key: 'home', value: '成都', negated: false }])
    expect(claimsOf('小明搬到上海了。')).toEqual([{ key: 'home', value: '上海', negated: false }])
    expect(claimsOf('小明在腾讯工作。')).toEqual([{ key: 'workplace', value: '腾讯', negated: false }])
    expect(claimsOf('小明是一名大学老师。')).toEqual([{ key: 'occupation', value: '大学老师', negated: false }])
    expect(claimsOf('小明今年28岁。')).toEqual([{ key: 'age', value: '28', negated: false }])
    expect(claimsOf('小明吃素。')).toEqual([{ key: 'vegetarian', value: 'yes', negated: false }])
    expect(claimsOf('小明不再吃素了。')).toEqual([{ key: 'vegetarian', value: 'yes', negated: true }])
    expect(claimsOf('小明结婚了。')).toEqual([{ key: 'relationship', value: 'married', negated: false }])
  })

  it('reads single-valued claims of an English statement', () => {
    expect(claimsOf('Alice lives in Seattle.')).toEqual([{ key: 'home', value: 'seattle', negated: false }])
    expect(claimsOf('Alice has moved to New York.')).toEqual([{ key: 'home', value: 'new york', negated: false }])
    expect(claimsOf('Alice works at Google.')).toEqual([{ key: 'workplace', value: 'google', negated: false }])
    expect(claimsOf('Alice is a software engineer.')).toEqual([{ key: 'occupation', value: 'software engineer', negated: false }])
    expect(claimsOf('Alice is 31 years old.')).toEqual([{ key: 'age', value: '31', negated: false }])
    expect(claimsOf('Alice is vegetarian.')).toEqual([{ key: 'vegetarian', value: 'yes', negated: false }])
    expect(claimsOf('Alice is no longer vegetarian.')).toEqual([{ key: 'vegetarian', value: 'yes', negated: true }])
    expect(claimsOf('Alice got engaged.')).toEqual([{ key: 'relationship', value: 'engaged', negated: false }])
  })

  it('claims nothing for plans, the past, other people or many-valued things', () => {
    for (const statement of [
      '小明打算搬到上海。',
      '小明以前住在成都。',
      '小明的妈妈住在成都。',
      '小明和小红住在成都。',
      '小明喜欢吃火锅。',
      '小明搬到了新家。',
      'Alice is going to move to Boston.',
      'Alice used to live in Boston.',
      "Alice's brother works at Google.",
      'Alice likes sushi.',
      'Alice moved to a new apartment.',
      'Alice is a huge fan of jazz.',
    ]) {
      expect(claimsOf(statement), statement).toEqual([])
    }
  })
})

describe('contradicts', () => {
  it('holds for the same single-valued predicate with another value, in Chinese and English', () => {
    expect(clash('小明住在成都。', '小明搬到上海了。')).toBe(true)
    expect(clash('小明在腾讯工作。', '小明现在在阿里巴巴上班。')).toBe(true)
    expect(clash('小明今年28岁。', '小明今年29岁了。')).toBe(true)
    expect(clash('Alice lives in Seattle.', 'Alice moved to Portland.')).toBe(true)
    expect(clash('Alice works at Google.', 'Alice now works at Amazon.')).toBe(true)
    expect(clash('Alice is single.', 'Alice got married.')).toBe(true)
  })

  it('holds for a negation of the same claim', () => {
    expect(clash('小明吃素。', '小明不再吃素了。')).toBe(true)
    expect(clash('小明不吃素。', '小明开始吃素了。')).toBe(true)
    expect(clash('Alice is vegetarian.', 'Alice is no longer vegetarian.')).toBe(true)
  })

  it('does not hold for the same value, a refinement, another key or many-valued statements', () => {
    expect(clash('小明住在成都。', '小明住在成都。')).toBe(false)
    expect(clash('小明住在成都。', '小明住在成都高新区。')).toBe(false)
    expect(clash('小明住在成都。', '小明在腾讯工作。')).toBe(false)
    expect(clash('小明喜欢火锅。', '小明喜欢寿司。')).toBe(false)
    expect(clash('Alice likes hotpot.', 'Alice likes sushi.')).toBe(false)
    expect(clash('Alice lives in Seattle.', 'Alice works at Google.')).toBe(false)
    expect(clash('Alice is vegetarian.', 'Alice is vegetarian.')).toBe(false)
  })
})
