import { describe, expect, it } from 'vitest'
import { asksWhen, saysWhen, withoutAsker } from '../../src/recall/query-focus'

describe('the question as it counts among the asker’s memories', () => {
  it('takes the asker’s name and id out, as a word in English and anywhere in Chinese', () => {
    expect(withoutAsker("Which bonds are in Caroline's portfolio?", ['Caroline', 'u1'])).toBe('Which bonds are in   portfolio?')
    expect(withoutAsker('where does tom live', ['Tom'])).toBe('where does   live')
    // not inside another word
    expect(withoutAsker('Tommy and the tomato', ['Tom'])).toBe('Tommy and the tomato')
    expect(withoutAsker('小明的猫叫什么', ['小明'])).toBe(' 的猫叫什么')
    // a name with signs of a regular expression is read as it is
    expect(withoutAsker('what does a+b like', ['a+b'])).toBe('what does   like')
  })

  it('keeps the question when nothing else would be left', () => {
    expect(withoutAsker('Caroline', ['Caroline'])).toBe('Caroline')
    expect(withoutAsker('hotpot', ['', '  '])).toBe('hotpot')
  })

  it('knows a question about when, in both languages', () => {
    for (const q of ['When did I go to the museum?', 'what date is my interview', '我什么时候去的上海', '我哪天考试', '面试是几号来着'])
      expect(asksWhen(q), q).toBe(true)
    for (const q of ['Where do I live?', '我的猫叫什么名字', 'what is my favourite food']) expect(asksWhen(q), q).toBe(false)
  })

  it('knows a memory that says when: a date, a month, a weekday, or a time relative to when it was said', () => {
    for (const t of [
      'Alice went to Paris in May 2023.',
      '小明2026年12月3日要面试。',
      'I went there last week',
      '我昨天去了趟医院',
      '周六去爬山',
    ])
      expect(saysWhen(t), t).toBe(true)
    for (const t of ['Alice likes hotpot.', '我养了一只猫，叫咪咪', 'I may like it']) expect(saysWhen(t), t).toBe(false)
  })
})
