import { describe, expect, it } from 'vitest'
import { DEFAULT_PROMPTS, fillPrompt } from '../../src/facts/prompts'

describe('DEFAULT_PROMPTS', () => {
  it('has a decision and a summariser prompt in both languages, each with the placeholder once', () => {
    for (const kind of ['decision', 'summarizer'] as const) {
      for (const lang of ['zh', 'en'] as const) {
        expect(DEFAULT_PROMPTS[kind][lang].split('{conversation}')).toHaveLength(2)
      }
    }
  })

  it('keeps the seed wording of the English decision prompt and its snake_case JSON keys', () => {
    expect(DEFAULT_PROMPTS.decision.en).toContain(
      'Critical information includes user preferences, facts, appointments, plans, or relationships.',
    )
    expect(DEFAULT_PROMPTS.decision.en).toContain('{"should_remember": false}')
    expect(DEFAULT_PROMPTS.decision.zh).toContain('{"should_remember": true')
    expect(DEFAULT_PROMPTS.decision.zh).toContain('{"should_remember": false}')
  })

  it('asks the Chinese summariser for one third-person statement in Chinese', () => {
    expect(DEFAULT_PROMPTS.summarizer.zh).toMatch(/一句/)
    expect(DEFAULT_PROMPTS.summarizer.zh).toMatch(/第三人称/)
    expect(DEFAULT_PROMPTS.summarizer.zh).toMatch(/中文/)
    expect(DEFAULT_PROMPTS.summarizer.en).toMatch(/third-person/)
  })
})

describe('fillPrompt', () => {
  it('replaces every placeholder literally, even with $ patterns in the conversation', () => {
    expect(fillPrompt('A {conversation} B {conversation}', "x: costs $& and $'")).toBe("A x: costs $& and $' B x: costs $& and $'")
  })

  it('appends the conversation to a custom prompt without the placeholder', () => {
    expect(fillPrompt('Decide.\n', 'Tom: hi')).toBe('Decide.\n\nTom: hi')
  })
})
