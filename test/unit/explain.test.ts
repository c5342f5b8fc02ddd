import { describe, expect, it } from 'vitest'
import { explainContext, explainMessage } from '../../src/short-term/explain'
import type { ContextMessage } from '../../src/short-term/types'
import { T0 } from './message-rows'

const message: ContextMessage = {
  id: 'm', messageId: 'm', userId: 'bob', userName: 'Bob', role: 'user', content: 'the build is red again after the merge', createdAt: new Date(T0),
  score: 0.6, tokens: 10, sources: ['reply-chain', 'time-window'],
  signals: { replyChain: 1, userContinuity: 0, timeDecay: 0.5, mentionRelation: 0, keywordOverlap: 0, semantic: 0, sameTopic: 0 },
}

describe('explain', () => {
  it('lists sources and contributing signals, largest first', () => {
    expect(explainMessage(message, undefined, 12)).toBe('0.60 Bob: the build is… ← reply-chain, time-window | replyChain 1.00×0.4, timeDecay 0.50×0.2')
  })

  it('explains a whole context', () => {
    const lines = explainContext({ longTerm: [], summary: 's', messages: [message], tokens: 11, windowTokens: 40, fallback: true, buildMs: 5000.4 })
    expect(lines[0]).toBe('1 messages, 11 tokens (window 40), 0 memories, summary yes, 5000 ms, FALLBACK to the recent window')
    expect(lines).toHaveLength(2)
  })
})
