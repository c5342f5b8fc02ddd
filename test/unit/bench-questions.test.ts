import { describe, expect, it } from 'vitest'
import { breakdown, evidenceOf, firstHit, newlyClosed, storedFrom, summarise, within } from '../../bench/lib/questions-score'

describe('bench:questions scoring', () => {
  const factSources = new Map([
    ['f1', ['mock:c:1', 'mock:c:2']],
    ['f2', ['mock:c:3']],
  ])

  it('reads a result’s evidence from its sources, else its fact row, else its own id', () => {
    expect(evidenceOf({ id: 'f1', kind: 'fact', sources: [{ id: 'mock:c:9' }] }, factSources)).toEqual(['mock:c:9'])
    expect(evidenceOf({ id: 'f1' }, factSources)).toEqual(['mock:c:1', 'mock:c:2'])
    expect(evidenceOf({ id: 'mock:c:4', kind: 'message' }, factSources)).toEqual(['mock:c:4'])
  })

  it('finds the rank of the first result carrying any expected line', () => {
    const results = [{ id: 'f2' }, { id: 'x', sources: [{ id: 'mock:c:5' }] }, { id: 'f1' }]
    expect(firstHit(results, ['mock:c:2'], factSources)).toBe(3)
    expect(firstHit(results, ['mock:c:5', 'mock:c:3'], factSources)).toBe(1)
    expect(firstHit(results, ['mock:c:8'], factSources)).toBe(0)
    expect([within(3, 3), within(3, 1), within(0, 3)]).toEqual([true, false, false])
  })

  it('counts the items drawn from a question, by kind', () => {
    const items = [
      { kind: 'fact', id: 'f1', sourceIds: ['q1'], text: 'Ann住哪来着。' },
      { kind: 'fact', id: 'f2', sourceIds: ['s1'], text: 'Ann住在成都。' },
      { kind: 'entity', id: 'e1', sourceIds: ['s1', 'q2'] },
      { kind: 'relation', id: 'r1', sourceIds: [] },
    ]
    expect(storedFrom(items, new Set(['q1', 'q2']))).toEqual({
      total: 2,
      byKind: { fact: 1, entity: 1 },
      examples: ['fact: Ann住哪来着。'],
    })
  })

  it('names the rows closed since the snapshot: open before, or new and closed', () => {
    const day = new Date(0)
    const before = [{ id: 'a' }, { id: 'b', validTo: day }, { id: 'c', validTo: null, supersededBy: '' }]
    const after = [
      { id: 'a', validTo: day },
      { id: 'b', validTo: day },
      { id: 'c', supersededBy: 'd' },
      { id: 'd' },
      { id: 'e', validTo: day },
    ]
    expect(newlyClosed(before, after)).toEqual(['a', 'c', 'e'])
  })

  it('summarises recall overall and under every value of a key', () => {
    const outcomes = [
      { language: 'zh', kinds: ['time'], rank: 1, baselineRank: 2 },
      { language: 'zh', kinds: ['time', 'place'], rank: 3, baselineRank: 0 },
      { language: 'en', kinds: ['place'], rank: 0, baselineRank: 1 },
      { language: 'en', kinds: [], rank: 4, baselineRank: 3 },
    ]
    expect(summarise(outcomes)).toEqual({
      cases: 4,
      'recall@1': 0.25,
      'recall@3': 0.5,
      'baseline_recall@1': 0.25,
      'baseline_recall@3': 0.75,
    })
    const byKind = breakdown(outcomes, (o) => o.kinds)
    expect(Object.keys(byKind)).toEqual(['place', 'time'])
    expect(byKind.time).toMatchObject({ cases: 2, 'recall@1': 0.5, 'recall@3': 1 })
    expect(byKind.place).toMatchObject({ cases: 2, 'recall@3': 0.5, 'baseline_recall@1': 0.5 })
    expect(summarise([])['recall@3']).toBe(0)
  })
})
