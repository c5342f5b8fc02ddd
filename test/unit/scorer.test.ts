import { describe, expect, it } from 'vitest'
import type { ScoringFeatures } from '../../src/context/scorer'
import { DEFAULT_WEIGHTS, keywordOverlap, RelevanceScorer, SIGNALS } from '../../src/context/scorer'

const now = new Date('2025-03-01T12:00:00Z')
function features(userId: string, extra: Partial<ScoringFeatures> = {}): ScoringFeatures {
  return { userId, userName: userId, mentions: [], keywords: [], time: now, ...extra }
}
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000)

describe('RelevanceScorer', () => {
  it('has the weights of design §5.2, a semantic weight and threshold 0.3', () => {
    expect(DEFAULT_WEIGHTS).toMatchObject({
      replyChain: 0.4,
      userContinuity: 0.15,
      timeDecay: 0.2,
      mentionRelation: 0.15,
      keywordOverlap: 0.1,
    })
    expect(DEFAULT_WEIGHTS.semantic).toBeGreaterThan(0)
    const scorer = new RelevanceScorer()
    expect(scorer.threshold).toBe(0.3)
    expect(SIGNALS).toHaveLength(7)
    expect(DEFAULT_WEIGHTS.sameTopic).toBeGreaterThan(0)
  })

  it('computes each signal in [0, 1]', () => {
    const scorer = new RelevanceScorer({ halfLifeHours: 6 })
    const target = features('ann', {
      mentions: ['bob'],
      keywords: [
        { word: 'cache', weight: 2 },
        { word: 'redis', weight: 1 },
      ],
    })
    const signals = scorer.signals(target, features('bob', { time: hoursAgo(6), keywords: [{ word: 'redis', weight: 1 }] }), {
      replyDepth: 1,
      semantic: 0.5,
    })
    expect(signals).toEqual({
      replyChain: 1,
      userContinuity: 0,
      timeDecay: 0.5,
      mentionRelation: 1,
      keywordOverlap: 1 / 3,
      semantic: 0.5,
      sameTopic: 0,
    })
  })

  it('weights reply chains by depth and threads below direct replies', () => {
    const scorer = new RelevanceScorer()
    const t = features('ann')
    expect(scorer.signals(t, features('bob'), { replyDepth: 1 }).replyChain).toBe(1)
    expect(scorer.signals(t, features('bob'), { replyDepth: 3 }).replyChain).toBeCloseTo(0.8)
    expect(scorer.signals(t, features('bob'), { replyDepth: 9 }).replyChain).toBe(0.6)
    expect(scorer.signals(t, features('bob'), { sameThread: true }).replyChain).toBe(0.6)
    expect(scorer.signals(t, features('bob')).replyChain).toBe(0)
  })

  it('scores user continuity and mention relations', () => {
    const scorer = new RelevanceScorer()
    const t = features('ann', { userName: 'Ann', mentions: ['carol'] })
    expect(scorer.signals(t, features('ann')).userContinuity).toBe(1)
    expect(scorer.signals(t, features('bob'), { answersTargetAuthor: true }).userContinuity).toBe(0.6)
    expect(scorer.signals(t, features('carol')).mentionRelation).toBe(1)
    expect(scorer.signals(t, features('bob', { mentions: ['ann'] })).mentionRelation).toBe(0.8)
    expect(scorer.signals(t, features('bot'), { botAddressed: true }).mentionRelation).toBe(0.6)
    expect(scorer.signals(t, features('bob', { mentions: ['carol'] })).mentionRelation).toBe(0.5)
    expect(scorer.signals(t, features('bob')).mentionRelation).toBe(0)
  })

  it('decays with time, halving every half-life, and never rises for future messages', () => {
    const scorer = new RelevanceScorer({ halfLifeHours: 2 })
    expect(scorer.timeDecay(now, hoursAgo(0))).toBe(1)
    expect(scorer.timeDecay(now, hoursAgo(2))).toBeCloseTo(0.5)
    expect(scorer.timeDecay(now, hoursAgo(4))).toBeCloseTo(0.25)
    expect(scorer.timeDecay(now, new Date(now.getTime() + 60_000))).toBe(1)
  })

  it('combines with the configured weights, capped at 1, against the threshold', () => {
    const scorer = new RelevanceScorer({ weights: { semantic: 0 } })
    // a reply from another user an hour ago with nothing else in common
    const reply = scorer.score(features('ann'), features('bob', { time: hoursAgo(1) }), { replyDepth: 1 })
    expect(reply.score).toBeCloseTo(0.4 + 0.2 * Math.pow(0.5, 1 / 6))
    expect(scorer.passes(reply.score)).toBe(true)
    // a day-old message of someone else, unrelated: below the threshold
    const old = scorer.score(features('ann'), features('bob', { time: hoursAgo(24) }))
    expect(scorer.passes(old.score)).toBe(false)
    const all = scorer.combine({
      replyChain: 1,
      userContinuity: 1,
      timeDecay: 1,
      mentionRelation: 1,
      keywordOverlap: 1,
      semantic: 1,
      sameTopic: 1,
    })
    expect(all).toBe(1)
    const custom = new RelevanceScorer({ weights: { replyChain: 0, timeDecay: 1, semantic: 0 }, threshold: 0.9 })
    expect(
      custom.combine({
        replyChain: 1,
        userContinuity: 0,
        timeDecay: 0.8,
        mentionRelation: 0,
        keywordOverlap: 0,
        semantic: 0,
        sameTopic: 0,
      }),
    ).toBeCloseTo(0.8)
    expect(custom.passes(0.8)).toBe(false)
  })

  it('lets carried-over content relevance stand in for a weaker own content', () => {
    const scorer = new RelevanceScorer()
    const base = { replyChain: 0, userContinuity: 0, timeDecay: 0, mentionRelation: 1, keywordOverlap: 0, semantic: 0.1, sameTopic: 0 }
    const own = scorer.combine(base)
    expect(scorer.combine({ ...base, adjacent: 0.4 })).toBeCloseTo(own - scorer.content(base) + 0.4)
    expect(scorer.combine({ ...base, adjacent: 0.01 })).toBeCloseTo(own)
  })

  it('takes a keyword overlap computed elsewhere, else overlaps the keyword lists', () => {
    const scorer = new RelevanceScorer()
    expect(scorer.signals(features('a'), features('b'), { keywordOverlap: 0.7 }).keywordOverlap).toBe(0.7)
    expect(scorer.signals(features('a'), features('b'), { keywordOverlap: 3 }).keywordOverlap).toBe(1)
    expect(
      keywordOverlap(
        [
          { word: 'x', weight: 1 },
          { word: 'y', weight: 3 },
        ],
        [{ word: 'y', weight: 1 }],
      ),
    ).toBe(0.75)
    expect(keywordOverlap([], [{ word: 'y', weight: 1 }])).toBe(0)
  })

  it('marks the same topic, and voids recency and continuity for another topic', () => {
    const scorer = new RelevanceScorer()
    const t = features('ann')
    expect(scorer.signals(t, features('ann'), { topic: 'same' })).toMatchObject({ sameTopic: 1, timeDecay: 1, userContinuity: 1 })
    expect(scorer.signals(t, features('ann'), { topic: 'other', replyDepth: 1 })).toMatchObject({
      sameTopic: 0,
      timeDecay: 0,
      userContinuity: 0,
      replyChain: 1,
    })
    expect(scorer.signals(t, features('ann'))).toMatchObject({ sameTopic: 0, timeDecay: 1, userContinuity: 1 })
  })

  it('rejects negative weights and a zero half-life', () => {
    expect(() => new RelevanceScorer({ weights: { timeDecay: -1 } })).toThrow(RangeError)
    expect(() => new RelevanceScorer({ halfLifeHours: 0 })).toThrow(RangeError)
  })
})
