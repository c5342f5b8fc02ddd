import { describe, expect, it } from 'vitest'
import type { ContextRecord } from '../../src/context/table'
import { computeMetrics, ContextLog } from '../../src/context/context-log'
import { InMemoryContextLogStore } from '../fakes/context-log'
import type { BuiltContext, ContextMessage } from '../../src/context/types'
import { Counters } from '../../src/core/observability'
import { quiet } from '../fakes/logger'
import { T0, target } from '../fakes/message-rows'

const flush = () => new Promise((resolve) => setTimeout(resolve, 0))
function built(scores: number[], extra: Partial<BuiltContext> = {}): BuiltContext {
  const messages = scores.map((score, i): ContextMessage => ({
    id: `m${i}`,
    messageId: `m${i}`,
    userId: 'u',
    userName: 'U',
    role: 'user',
    content: 'x',
    createdAt: new Date(T0),
    score,
    tokens: 10,
    sources: ['semantic'],
    signals: {},
  }))
  return { longTerm: [], summary: '', messages, tokens: 11 * scores.length, windowTokens: 100, fallback: false, buildMs: 20, ...extra }
}

describe('ContextLog', () => {
  it('records each context with its trigger, choices and scores, and attaches the reply', async () => {
    const store = new InMemoryContextLogStore()
    let now = T0
    const log = new ContextLog(store, { counters: new Counters(), logger: quiet, now: () => new Date(now) })
    log.record(target('ann', 'where is the key?', 0, { messageId: 'q1' }), built([0.9, 0.5]))
    await flush()
    expect(store.records).toHaveLength(1)
    expect(store.records[0]).toMatchObject({
      platform: 'test',
      guildId: 'g1',
      channelId: 'c1',
      userId: 'ann',
      triggerMessageId: 'q1',
      triggerText: 'where is the key?',
      chosenIds: ['m0', 'm1'],
      scores: [0.9, 0.5],
      tokens: 22,
      windowTokens: 100,
      fallback: false,
      reply: '',
    })
    await log.reply({ platform: 'test', channelId: 'c1' }, 'q1', 'At the front desk.')
    expect(store.records[0].reply).toBe('At the front desk.')
    now += 1
  })

  it('computes the metrics of design §5.5', () => {
    const base = { platform: 'p', channelId: 'c', userId: 'u', triggerMessageId: '', triggerText: '', reply: '', createdAt: new Date(T0) }
    const records: ContextRecord[] = [
      {
        ...base,
        id: '1',
        guildId: 'g1',
        chosenIds: ['a', 'b'],
        scores: [0.8, 0.6],
        tokens: 40,
        windowTokens: 200,
        fallback: false,
        buildMs: 10,
      },
      { ...base, id: '2', guildId: 'g2', chosenIds: ['a'], scores: [0.4], tokens: 20, windowTokens: 100, fallback: false, buildMs: 30 },
      {
        ...base,
        id: '3',
        guildId: 'g1',
        chosenIds: ['c', 'd', 'e'],
        scores: [0, 0, 0],
        tokens: 60,
        windowTokens: 0,
        fallback: true,
        buildMs: 5000,
      },
      { ...base, id: '4', guildId: '', chosenIds: [], scores: [], tokens: 0, windowTokens: 0, fallback: false, buildMs: 4 },
    ]
    expect(computeMetrics(records, 2)).toEqual({
      contexts: 4,
      periodHours: 2,
      averageBuildMs: 1261,
      averageRelevance: 0.55,
      averageMessages: 1.5,
      averageTokens: 30,
      tokenSavings: 0.6,
      contextsPerHour: 2,
      groupsServed: 2,
      fallbackRate: 0.25,
    })
    expect(computeMetrics([], 24)).toMatchObject({ contexts: 0, tokenSavings: 0, fallbackRate: 0, averageRelevance: 0 })
  })

  it('reads metrics over a period and keeps records within the retention limits', async () => {
    const store = new InMemoryContextLogStore()
    let now = T0
    const log = new ContextLog(store, {
      counters: new Counters(),
      logger: quiet,
      now: () => new Date(now),
      retentionDays: 1,
      maxRecords: 3,
    })
    for (let i = 0; i < 3; i++) {
      log.record(target('ann', 'q', 0), built([0.5]))
      now += 3_600_000
    }
    await flush()
    expect((await log.metrics(2)).contexts).toBe(2)
    now += 3 * 86_400_000
    expect(await store.prune(new Date(now - 86_400_000), 3)).toBe(3)
    for (let i = 0; i < 5; i++) await store.add({ ...(store.records[0] ?? {}), id: `x${i}`, createdAt: new Date(now) } as ContextRecord)
    expect(await store.prune(new Date(now - 86_400_000), 3)).toBe(2)
    expect(store.records).toHaveLength(3)
  })

  it('never throws when the store fails, and counts it', async () => {
    const counters = new Counters()
    const failing = new InMemoryContextLogStore()
    failing.add = async () => {
      throw new Error('db down')
    }
    failing.since = async () => {
      throw new Error('db down')
    }
    failing.setReply = async () => {
      throw new Error('db down')
    }
    const log = new ContextLog(failing, { counters, logger: quiet })
    log.record(target('ann', 'q', 0), built([0.5]))
    await flush()
    await log.reply({ platform: 'test', channelId: 'c1' }, 'q1', 'r')
    expect((await log.metrics()).contexts).toBe(0)
    expect(counters.get('context-log.failed')).toBe(3)
  })
})
