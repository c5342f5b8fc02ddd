import { describe, expect, it } from 'vitest'
import type { Reading } from '../../src/console/series'
import { MetricsSeries } from '../../src/console/series'

function reading(counters: Record<string, number>, overrides: Partial<Reading> = {}): Reading {
  return {
    counters,
    contexts: { contexts: 2, averageBuildMs: 12.5, averageTokens: 300, tokenSavings: 0.6 },
    replies: { replies: 3, offline: 1, toolCalls: 2 },
    modelled: true,
    ...overrides,
  }
}

describe('console: the series behind the health charts', () => {
  it('starts with a baseline, then each point holds what changed in its interval', async () => {
    let now = 1_000_000
    const readings = [
      reading({ 'memorize.extractions': 5, 'memorize.dialogues-stored': 3, 'memorize.skipped.short': 2, 'group.llm-call': 1 }),
      reading({
        'memorize.extractions': 9,
        'memorize.dialogues-stored': 5,
        'memorize.rejected': 1,
        'memorize.skipped.short': 3,
        'memorize.skipped.command': 4,
        'group.llm-call': 1,
        'summary.llm': 2,
      }),
    ]
    const spans: number[] = []
    const series = new MetricsSeries({
      capacity: 10,
      now: () => new Date(now),
      read: async (since, at) => {
        spans.push(at.getTime() - since.getTime())
        return readings.shift()!
      },
    })
    expect(await series.sample()).toBeUndefined()
    now += 60_000
    const point = await series.sample()
    expect(spans).toEqual([0, 60_000])
    expect(point).toEqual({
      at: now,
      span: 60_000,
      contexts: 2,
      buildMs: 12.5,
      tokens: 300,
      tokenSavings: 0.6,
      calls: { extract: 4, evolve: 0, summary: 2, topic: 0, profile: 0, reply: 4 },
      memorised: 2,
      rejected: 1,
      skipped: 5,
    })
  })

  it('counts no model call for what the offline rules did, and keeps at most its capacity', async () => {
    let now = 0
    let extractions = 0
    const series = new MetricsSeries({
      capacity: 3,
      now: () => new Date(now),
      read: async () =>
        reading({ 'memorize.extractions': (extractions += 10) }, { modelled: false, replies: { replies: 2, offline: 2, toolCalls: 0 } }),
    })
    for (let i = 0; i < 6; i++) {
      await series.sample()
      now += 1000
    }
    const points = await series.read()
    // three kept, and the interval under way
    expect(points.map((point) => point.at)).toEqual([3000, 4000, 5000, 6000])
    expect(points.every((point) => point.calls.extract === 0 && point.calls.reply === 0)).toBe(true)
  })
})
