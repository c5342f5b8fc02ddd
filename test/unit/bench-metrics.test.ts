import { describe, expect, it } from 'vitest'
import { packGreedy, packRecent } from '../../bench/lib/budget'
import { parseArgs } from '../../bench/lib/args'
import {
  evidenceRecall,
  mean,
  ndcgAtK,
  ndcgAtKStandard,
  parseEvidence,
  percentile,
  rankingMetrics,
  recallAtK,
} from '../../bench/lib/metrics'
import { countTokens, TOKENIZER } from '../../bench/lib/tokenizer'

describe('MADial metrics (embedding_score_new.py definitions)', () => {
  it('recall@k divides the hits in the top k by the number of relevant ids', () => {
    expect(recallAtK([1, 2, 3, 4], [9, 1, 8, 2, 3], 1)).toBe(0)
    expect(recallAtK([1, 2, 3, 4], [9, 1, 8, 2, 3], 3)).toBe(0.25)
    expect(recallAtK([1, 2, 3, 4], [9, 1, 8, 2, 3], 5)).toBe(0.75)
    expect(recallAtK([1], [1], 10)).toBe(1)
    expect(recallAtK([], [1, 2], 5)).toBe(0)
  })

  it('recall@k counts a repeated ranked id once', () => {
    expect(recallAtK([1, 2], [1, 1, 1], 3)).toBe(0.5)
  })

  it('nDCG@k takes its ideal from the retrieved hits, as published', () => {
    // a single hit at rank 1 is "ideal" even with four more relevant ids unretrieved
    expect(ndcgAtK([1, 2, 3, 4, 5], [1, 9, 9, 9, 9], 5)).toBe(1)
    // one hit at rank 2: (1/log2 3) / 1
    expect(ndcgAtK([1, 2], [9, 1, 8, 7, 6], 5)).toBeCloseTo(1 / Math.log2(3), 12)
    // hits at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2 3)
    expect(ndcgAtK([1, 2], [1, 9, 2, 8, 7], 5)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 12)
    expect(ndcgAtK([1], [9, 8, 7, 6, 5, 1], 5)).toBe(0)
  })

  it('standard nDCG@k takes its ideal from min(|relevant|, k) hits', () => {
    expect(ndcgAtKStandard([1, 2, 3, 4, 5], [1, 9, 9, 9, 9], 5)).toBeCloseTo(
      1 / (1 + 1 / Math.log2(3) + 0.5 + 1 / Math.log2(5) + 1 / Math.log2(6)),
      12,
    )
    expect(ndcgAtKStandard([1, 2], [2, 1, 9], 5)).toBe(1)
    expect(ndcgAtKStandard([1, 2], [9, 1, 8, 7, 6], 5)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12)
  })

  it('rankingMetrics averages over queries', () => {
    const m = rankingMetrics([
      { relevant: ['a'], ranked: ['a', 'b'] },
      { relevant: ['c', 'd'], ranked: ['x', 'y', 'c', 'z', 'w', 'v', 'u', 't', 's', 'd'] },
    ])
    expect(m['recall@1']).toBe(0.5)
    expect(m['recall@3']).toBe(0.75)
    expect(m['recall@5']).toBe(0.75)
    expect(m['recall@10']).toBe(1)
    expect(m['ndcg@5']).toBe(0.75) // 1, and 0.5 for a lone hit at rank 3
    expect(m['ndcg@5_standard']).toBeCloseTo((1 + 0.5 / (1 + 1 / Math.log2(3))) / 2, 12)
  })
})

describe('LoCoMo evidence', () => {
  const known = (id: string) => ['D1:1', 'D1:2', 'D8:6', 'D9:17'].includes(id)

  it('splits on ";", trims, de-duplicates and skips ids that match no turn', () => {
    expect(parseEvidence(['D8:6; D9:17', 'D1:1', ' D1:1 ', 'D30:5', 'D'], known)).toEqual(['D8:6', 'D9:17', 'D1:1'])
    expect(parseEvidence([], known)).toEqual([])
  })

  it('recall is the fraction of evidence turns in the context, undefined without evidence', () => {
    expect(evidenceRecall(['D1:1', 'D1:2'], ['D1:2', 'D5:5'])).toBe(0.5)
    expect(evidenceRecall(['D1:1'], new Set(['D1:1']))).toBe(1)
    expect(evidenceRecall([], ['D1:1'])).toBeUndefined()
    expect(mean([])).toBe(0)
  })
})

describe('budget packing', () => {
  const costs = [5, 3, 8, 2, 4]
  const cost = (i: number) => costs[i]

  it('greedy takes the best that fit and skips what does not', () => {
    expect(packGreedy([2, 0, 1, 3, 4], cost, 10)).toEqual([2, 3])
    expect(packGreedy([0, 2, 1, 3, 4], cost, 10)).toEqual([0, 1, 3])
    expect(packGreedy([0], cost, 4)).toEqual([])
  })

  it('recent takes a contiguous window ending before `end`, newest first', () => {
    expect(packRecent(5, cost, 6)).toEqual([4, 3])
    expect(packRecent(5, cost, 14)).toEqual([4, 3, 2])
    expect(packRecent(3, cost, 100)).toEqual([2, 1, 0])
    expect(packRecent(5, cost, 1)).toEqual([])
  })
})

describe('bench args and tokenizer', () => {
  it('parses --name value, --name=value and bare flags', () => {
    expect(parseArgs(['--data', 'x', '--out=y.json', '--quick', '--k', '3'])).toEqual({ data: 'x', out: 'y.json', quick: 'true', k: '3' })
  })

  it('counts with o200k_base', () => {
    expect(TOKENIZER).toContain('o200k_base')
    expect(countTokens('')).toBe(0)
    expect(countTokens('Hello world')).toBe(2)
    expect(countTokens('Hello world')).toBe(2) // memoised path
  })
})

describe('percentile', () => {
  it('takes the nearest rank, and 0 of nothing', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]
    expect(percentile(values, 50)).toBe(5)
    expect(percentile(values, 95)).toBe(10)
    expect(percentile(values, 10)).toBe(1)
    expect(percentile([], 95)).toBe(0)
  })
})
