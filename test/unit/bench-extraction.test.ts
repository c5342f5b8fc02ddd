import { describe, expect, it } from 'vitest'
import type { LabelledLine } from '../../bench/lib/extraction'
import { garbledBy, scoreLines, writesDate } from '../../bench/lib/extraction'

const line = (over: Partial<LabelledLine>): LabelledLine => ({
  id: 'x',
  lang: 'en',
  chat: 'private',
  speaker: 'Alice',
  time: '2026-03-14T20:30',
  text: '',
  split: 'dev',
  kind: 'fact',
  expect: 'self',
  ...over,
})

describe('bench:extraction scoring', () => {
  it.each([
    ['Alice completelies understand how that feels.', 'adverb conjugated: completelies'],
    ['Alice onces went to Paris.', 'adverb conjugated'],
    ['Alice and others did the renovation ourselves.', 'first person left in the third-person form'],
    ["On the evening of Sunday, October 15, 2023's conversation was fun.", 'date glued to a possessive'],
    ['Alice are a nurse.', 'name with a first-person verb'],
    ['小明说我喜欢猫。', '第一人称留在第三人称的事实里'],
  ])('flags %s', (fact, why) => {
    expect(garbledBy(fact, fact.startsWith('小明') ? '小明' : 'Alice')).toBe(why)
  })

  it.each([
    'Alice applies for jobs every spring.',
    'Alice said: I completely understand how that feels.',
    "Alice's wife and Alice are expecting a baby.",
    'Alice told Bob: I went to the café you recommended.',
    '小明说：我明天带你去吃火锅。',
    '小明的妈妈说："我为你骄傲"。',
  ])('passes %s', (fact) => {
    expect(garbledBy(fact, fact.startsWith('小明') ? '小明' : 'Alice')).toBeUndefined()
  })

  it('reads the labelled date at its precision, in each language', () => {
    expect(writesDate('Alice ran on Sunday, March 8, 2026.', '2026-03-08', 'en')).toBe(true)
    expect(writesDate('Alice ran on Sunday, March 8, 2025.', '2026-03-08', 'en')).toBe(false)
    expect(writesDate('Alice got her license in February 2026.', '2026-02', 'en')).toBe(true)
    expect(writesDate('小明2026年3月15日要去上海出差。', '2026-03-15', 'zh')).toBe(true)
    expect(writesDate('小明2026年4月搬家。', '2026-04', 'zh')).toBe(true)
    expect(writesDate('小明2025年结的婚。', '2025', 'zh')).toBe(true)
  })

  it('scores kept, subject, events, words lost and questions stored', () => {
    const scores = scoreLines([
      { line: line({ expect: 'self', keep: 'a cat' }), facts: ['Alice has a cat.'] },
      { line: line({ expect: 'other', about: "Alice's brother" }), facts: ['Alice is a firefighter.'] },
      { line: line({ expect: 'event', date: '2026-03-15' }), facts: ['Alice flies to Chicago on Sunday, March 15, 2026.'] },
      { line: line({ expect: 'self', keep: 'spicy food' }), facts: ['Alice likes food.'] },
      { line: line({ expect: 'none', kind: 'question' }), facts: ['Alice lives where.'] },
      { line: line({ expect: 'none', kind: 'smalltalk' }), facts: [] },
      { line: line({ expect: 'self' }), facts: [] },
    ])
    expect(scores).toEqual({
      lines: 7,
      precision: 0.8,
      recall: 0.8,
      event_kept: 1,
      subject_correct: 0.75,
      garbled: 1,
      words_lost: 1,
      questions_stored: 1,
    })
  })
})
