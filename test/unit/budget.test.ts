import { describe, expect, it } from 'vitest'
import { BudgetedLLM } from '../../src/budget/budgeted-llm'
import { BudgetSpentError } from '../../src/providers/types'
import { budgetDay } from '../../src/budget/day'
import { BudgetGate } from '../../src/budget/gate'
import { callAllowed, effectiveLimits, replyTokens, validLimit } from '../../src/budget/limits'
import { budgetOwnerOf, ownerKey } from '../../src/budget/owner'
import type { BudgetLimits } from '../../src/budget/limits'
import type { GenerateOptions, LLM } from '../../src/providers/types'
import { generateSummary } from '../../src/topic-summaries/generate'
import { Counters } from '../../src/core/observability'
import type { Logger } from '../../src/core/observability'
import { MemoryBudgetStore } from '../fakes/budget-store'
import { message } from '../fakes/message-rows'
import { quiet } from '../fakes/logger'

const g1 = budgetOwnerOf({ platform: 'qq', guildId: 'g1', userId: 'alice' })
const g2 = budgetOwnerOf({ platform: 'qq', guildId: 'g2' })
const alice = budgetOwnerOf({ platform: 'qq', guildId: '', userId: 'alice' })

function gateOf(defaults: BudgetLimits = {}, store = new MemoryBudgetStore(), clock = { at: new Date(2026, 10, 28, 12) }) {
  return { gate: new BudgetGate({ store, defaults, now: () => clock.at, logger: quiet }), store, clock }
}

class CountingLLM implements LLM {
  readonly id = 'counting'
  prompts: string[] = []
  async generate(prompt: string, _options?: GenerateOptions) {
    this.prompts.push(prompt)
    return 'ok'
  }
}

describe('budget limits', () => {
  it('lets an owner’s own field win and falls through to the default for the other', () => {
    expect(effectiveLimits({ calls: 5 }, { calls: 100, tokens: 800 })).toEqual({ calls: 5, tokens: 800 })
    expect(effectiveLimits(undefined, {})).toEqual({ calls: undefined, tokens: undefined })
  })

  it('refuses every call at 0, none without a limit, and the call past the limit', () => {
    expect(callAllowed({ calls: 0 }, { calls: 0, tokens: 0 })).toBe(false)
    expect(callAllowed({}, { calls: 10_000, tokens: 0 })).toBe(true)
    expect(callAllowed({ calls: 2 }, { calls: 1, tokens: 0 })).toBe(true)
    expect(callAllowed({ calls: 2 }, { calls: 2, tokens: 0 })).toBe(false)
  })

  it('trims a reply’s tokens to the owner’s, never widens them', () => {
    expect(replyTokens({ tokens: 300 }, 2000)).toBe(300)
    expect(replyTokens({ tokens: 5000 }, 2000)).toBe(2000)
    expect(replyTokens({}, 2000)).toBe(2000)
  })

  it('takes only whole numbers within a field’s range', () => {
    expect(validLimit('calls', 0)).toBe(true)
    expect(validLimit('tokens', 99)).toBe(false)
    for (const bad of [-1, 1.5, NaN, Infinity, '3', null, 2e9]) expect(validLimit('calls', bad)).toBe(false)
  })

  it('tells a group from a private chat, and one user’s private chat from another’s', () => {
    expect(ownerKey(g1)).not.toBe(ownerKey(alice))
    expect(ownerKey(g1)).toBe(ownerKey(budgetOwnerOf({ platform: 'qq', guildId: 'g1', userId: 'bob' })))
    expect(ownerKey(alice)).not.toBe(ownerKey(budgetOwnerOf({ platform: 'qq', userId: 'bob' })))
  })

  it('counts days in local time', () => {
    expect(budgetDay(new Date(2026, 0, 2, 0, 5))).toBe('2026-01-02')
    expect(budgetDay(new Date(2026, 0, 1, 23, 59))).toBe('2026-01-01')
  })
})

describe('the budget gate', () => {
  it('charges calls and tokens to their owner and refuses the one past the limit', async () => {
    const { gate } = gateOf({ calls: 2 })
    expect(await gate.take(g1, 100)).toBe(true)
    expect(await gate.take(g1, 50)).toBe(true)
    expect(await gate.take(g1, 10)).toBe(false)
    expect(await gate.take(g2, 10)).toBe(true)
    expect(await gate.status(g1)).toMatchObject({ spent: { calls: 2, tokens: 150 }, offline: 1, exhausted: true })
    expect(await gate.status(g2)).toMatchObject({ spent: { calls: 1, tokens: 10 }, exhausted: false })
  })

  it('starts every owner afresh on a new day', async () => {
    const { gate, clock } = gateOf({ calls: 1 })
    await gate.take(g1, 1)
    expect(await gate.allows(g1)).toBe(false)
    clock.at = new Date(2026, 10, 29, 0, 1)
    expect(await gate.allows(g1)).toBe(true)
    expect((await gate.status(g1)).day).toBe('2026-11-29')
  })

  it('keeps the day’s spend and the owners’ own budgets across a restart', async () => {
    const first = gateOf({ calls: 10 })
    await first.gate.set(g1, { calls: 1 })
    await first.gate.take(g1, 40)
    await first.gate.flush()
    const { gate } = gateOf({ calls: 10 }, first.store)
    expect(await gate.allows(g1)).toBe(false)
    expect(await gate.status(g1)).toMatchObject({ own: true, limits: { calls: 1 }, spent: { calls: 1, tokens: 40 } })
  })

  it('adds the calls of two instances on one database to the same day’s figure', async () => {
    const store = new MemoryBudgetStore()
    const [one, two] = [gateOf({ calls: 10 }, store).gate, gateOf({ calls: 10 }, store).gate]
    await one.take(g1, 10)
    await two.take(g1, 20)
    await two.take(g1, 30)
    await Promise.all([one.flush(), two.flush()])
    const [seen] = await one.spendToday()
    expect(seen).toMatchObject({ spent: { calls: 3, tokens: 60 } })
  })

  it('sets one field, leaves the other, and resets to the default', async () => {
    const { gate } = gateOf({ calls: 100, tokens: 2000 })
    expect((await gate.set(g1, { tokens: 500 })).limits).toEqual({ calls: 100, tokens: 500 })
    expect((await gate.set(g1, { calls: 0 })).limits).toEqual({ calls: 0, tokens: 500 })
    expect((await gate.set(g1, { calls: null })).limits).toEqual({ calls: 100, tokens: 500 })
    expect(await gate.reset(g1)).toMatchObject({ own: false, limits: { calls: 100, tokens: 2000 } })
  })

  it('lists today’s spend per owner, most calls first', async () => {
    const { gate } = gateOf({ calls: 5 })
    await gate.take(g2, 1)
    await gate.take(g1, 1)
    await gate.take(g1, 1)
    await gate.noteOffline(alice)
    expect((await gate.spendToday()).map((one) => [ownerKey(one.owner), one.spent.calls, one.offline])).toEqual([
      [ownerKey(g1), 2, 0],
      [ownerKey(g2), 1, 0],
      [ownerKey(alice), 0, 1],
    ])
  })
})

describe('the budgeted model', () => {
  it('charges a call made for an owner with its prompt’s tokens, and refuses it past the budget without calling', async () => {
    const { gate } = gateOf({ calls: 1 })
    const inner = new CountingLLM()
    const llm = new BudgetedLLM(inner, gate)
    await gate.run(g1, () => llm.generate('我住在成都，在一家医院工作'))
    expect((await gate.status(g1)).spent.calls).toBe(1)
    expect((await gate.status(g1)).spent.tokens).toBeGreaterThan(5)
    await expect(gate.run(g1, () => llm.generate('again'))).rejects.toBeInstanceOf(BudgetSpentError)
    expect(inner.prompts).toHaveLength(1)
    // another group's work in the same process is its own
    await gate.run(g2, () => llm.generate('hello'))
    expect(inner.prompts).toHaveLength(2)
  })

  it('leaves a call made for no one uncharged', async () => {
    const { gate } = gateOf({ calls: 0 })
    const inner = new CountingLLM()
    await new BudgetedLLM(inner, gate).generate('a profile')
    expect(inner.prompts).toHaveLength(1)
    expect(await gate.spendToday()).toEqual([])
  })

  it('charges each round of a chat with its turns and tools', async () => {
    const { gate } = gateOf()
    const inner = Object.assign(new CountingLLM(), { chat: async () => ({ text: 'hi', toolCalls: [] }) })
    const llm = new BudgetedLLM(inner, gate)
    await gate.run(g1, () =>
      llm.chat!([{ role: 'user', content: 'hello there' }], { tools: [{ name: 't', description: 'd', parameters: {} }] }),
    )
    await gate.run(g1, () => llm.chat!([{ role: 'user', content: 'hello' }]))
    expect((await gate.status(g1)).spent.calls).toBe(2)
  })
})

describe('a refused call is no failure', () => {
  it('summarises a spent group’s topic offline without counting or warning of a model failure', async () => {
    const { gate } = gateOf({ calls: 0 })
    const llm = new BudgetedLLM(new CountingLLM(), gate)
    const warnings: unknown[] = []
    const logger: Logger = { ...quiet, warn: (...args: unknown[]) => void warnings.push(args) }
    const counters = new Counters()
    const chat = [
      message({ userId: 'alice', userName: '小红', content: '周末去香山看红叶吗？', at: 0 }),
      message({ userId: 'bob', userName: '小明', content: '好啊，香山红叶这周正好', at: 10 }),
    ]
    const draft = await gate.run(g1, () => generateSummary('香山', chat, { llm, counters, logger, options: {} }))
    expect(draft.fallback).toBe(true)
    expect(draft.summary).toContain('香山')
    expect(counters.get('summary.llm_failed')).toBe(0)
    expect(counters.get('llm.error')).toBe(0)
    expect(warnings).toEqual([])
  })
})
