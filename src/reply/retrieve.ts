import { countTokens, truncateToTokens } from '../text/token-count'
import type { NodeResult, ReplyState } from './state'

/**
 * The retrieve node (seed 004 §2.3.3, conditional): when the route says so and the model cannot
 * call tools, the deep searches run here — the channel's earlier messages and topics, and what the
 * memory knows — and what they find is handed to the prompt, within its own token share.
 */

export interface RetrievePorts {
  /** Earlier messages and topics of the channel for a query, as lines; '' when nothing matches. */
  searchHistory(state: Readonly<ReplyState>, query: string): Promise<string>
  /** Facts, preferences and relations for a query, as lines, beyond those recall already chose. */
  searchKnowledge(state: Readonly<ReplyState>, query: string): Promise<string>
}

export function retrieveNode(ports: RetrievePorts, options: { maxTokens: number }) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    if (state.route?.deep !== 'direct') return { update: {}, chose: `skipped: deep search ${state.route?.deep ?? 'none'}` }
    const query = state.target.content
    const [history, knowledge] = await Promise.all([
      ports.searchHistory(state, query).catch(() => ''),
      ports.searchKnowledge(state, query).catch(() => ''),
    ])
    const blocks = [knowledge, history].filter((text) => text.trim())
    const retrieved: string[] = []
    let left = options.maxTokens
    for (const block of blocks) {
      if (left <= 0) break
      const kept = truncateToTokens(block, left)
      left -= countTokens(kept)
      if (kept.trim()) retrieved.push(kept)
    }
    const tokens = options.maxTokens - left
    return {
      update: { retrieved },
      chose: retrieved.length
        ? `found ${[knowledge && 'memories', history && 'earlier messages'].filter(Boolean).join(' and ')}`
        : 'nothing found',
      tokensOut: tokens,
    }
  }
}
