import { describe, expect, it } from 'vitest'
import { DEFAULT_PROMPTS, fillPrompt } from '../../src/facts/prompts'

describe('DEFAULT_PROMPTS', () => {
  it('has one extraction prompt in each language, with each placeholder once', () => {
    for (const lang of ['zh', 'en'] as const) {
      expect(DEFAULT_PROMPTS.extraction[lang].split('{conversation}')).toHaveLength(2)
      expect(DEFAULT_PROMPTS.extraction[lang].split('{now}')).toHaveLength(2)
    }
  })

  it('asks for a JSON list of facts, an empty list for nothing', () => {
    for (const lang of ['zh', 'en'] as const) {
      expect(DEFAULT_PROMPTS.extraction[lang]).toContain('{"facts": [')
      expect(DEFAULT_PROMPTS.extraction[lang]).toContain('{"facts": []}')
    }
  })

  it('asks for one third-person statement per fact, no questions or assistant words, and absolute dates', () => {
    const { zh, en } = DEFAULT_PROMPTS.extraction
    expect(zh).toMatch(/第三人称/)
    expect(zh).toMatch(/一条陈述一个事实/)
    expect(zh).toMatch(/提问/)
    expect(zh).toMatch(/助手说的任何话/)
    expect(zh).toMatch(/绝对日期/)
    expect(en).toMatch(/third person/)
    expect(en).toMatch(/One fact per statement/)
    expect(en).toMatch(/questions/)
    expect(en).toMatch(/anything the assistant said/)
    expect(en).toMatch(/absolute date/)
  })
})

describe('fillPrompt', () => {
  it('replaces every placeholder literally, even with $ patterns in the conversation', () => {
    expect(fillPrompt('A {conversation} B {conversation}', "x: costs $& and $'")).toBe("A x: costs $& and $' B x: costs $& and $'")
  })

  it('puts the time in, and never a {now} the conversation itself contains', () => {
    expect(fillPrompt('at {now}: {conversation}', 'Tom: {now}', '2026-11-26')).toBe('at 2026-11-26: Tom: {now}')
  })

  it('appends the conversation to a custom prompt without the placeholder', () => {
    expect(fillPrompt('Decide.\n', 'Tom: hi')).toBe('Decide.\n\nTom: hi')
  })
})
