import { describe, expect, it } from 'vitest'
import { RuleJudge } from '../../src/facts/rule-judge'
import { reportScore, scoreJudge } from '../fakes/judge-score'
import { EN_CHAT_DEV, EN_CHAT_HELD_OUT, ZH_CHAT_DEV, ZH_CHAT_HELD_OUT } from './chat-lines'

const judge = new RuleJudge()
const now = new Date(2026, 10, 26, 10, 0)

/**
 * The offline judge on casual chat between friends (test/unit/chat-lines.ts): personal facts said in
 * passing must become facts, the reactions, questions, compliments and small talk around them must
 * not. Development lines (tuned on; 1.0 / 0.98 recall, 1.0 rejection in en / zh): the floors are 0.9.
 * Held-out lines (never tuned on; scored once when the rules were done: recall 0.91 (32/35) in
 * English, 1.0 (24/24) in Chinese, rejection 1.0 in both; before the rules were widened the first
 * batch's held-out lines measured recall 0.48 / 0.53): the floors are 0.85, the aim, so a miss or two
 * more still passes and a rule that costs real recall or lets small talk in fails.
 * `npx vitest run test/unit/rule-judge-chat-measure.test.ts` prints the figures and the misses.
 */
describe('RuleJudge on casual chat between friends', () => {
  it.each([
    ['English', EN_CHAT_DEV, 'Alice'],
    ['Chinese', ZH_CHAT_DEV, '小明'],
  ] as const)('%s (development lines): keeps the personal facts and leaves the chatter out', async (language, lines, name) => {
    const result = await scoreJudge(judge, lines, { name, now })
    reportScore(`${language} chat (development)`, result)
    expect(result.recall).toBeGreaterThanOrEqual(0.9)
    expect(result.rejection).toBeGreaterThanOrEqual(0.9)
    expect(result.precision).toBeGreaterThanOrEqual(0.9)
  })

  it.each([
    ['English', EN_CHAT_HELD_OUT, 'Alice'],
    ['Chinese', ZH_CHAT_HELD_OUT, '小明'],
  ] as const)('%s (held out): keeps most personal facts and leaves the chatter out', async (language, lines, name) => {
    const result = await scoreJudge(judge, lines, { name, now })
    reportScore(`${language} chat (held out)`, result)
    expect(result.recall).toBeGreaterThanOrEqual(0.85)
    expect(result.rejection).toBeGreaterThanOrEqual(0.85)
  })

  it('has at least 200 lines, about 60/40 English and Chinese, a third held out, facts and noise of every kind', () => {
    const en = [...EN_CHAT_DEV, ...EN_CHAT_HELD_OUT]
    const zh = [...ZH_CHAT_DEV, ...ZH_CHAT_HELD_OUT]
    const all = [...en, ...zh]
    expect(all.length).toBeGreaterThanOrEqual(200)
    expect(en.length / all.length).toBeGreaterThan(0.55)
    expect(en.length / all.length).toBeLessThan(0.65)
    const heldOut = EN_CHAT_HELD_OUT.length + ZH_CHAT_HELD_OUT.length
    expect(heldOut / all.length).toBeGreaterThan(0.3)
    expect(heldOut / all.length).toBeLessThan(0.36)
    for (const lines of [en, zh]) {
      const kinds = (fact: boolean) => new Set(lines.filter((line) => line.fact === fact).map((line) => line.kind))
      for (const kind of ['event', 'activity', 'plan', 'family', 'pet', 'possession', 'feeling', 'mixed'] as const) {
        expect(kinds(true), kind).toContain(kind)
      }
      for (const kind of ['question', 'reaction', 'compliment', 'encouragement', 'greeting', 'thanks', 'opinion', 'smalltalk'] as const) {
        expect(kinds(false), kind).toContain(kind)
      }
    }
  })
})
