import { countTokens, truncateToTokens } from '../text/token-count'
import type { NodeResult, ReplyState } from './state'

/**
 * The retrieve node (design §7.4, conditional): when the route says so and the model cannot
 * call tools, the deep searches run here — the channel's earlier messages and topics, and what the
 * memory knows — and what they find is handed to the prompt, within its own token share.
 */

export interface RetrievePorts {
  /** Earlier messages and topics of the channel for a query, as lines, leaving out what recall chose; '' when nothing matches. */
  searchHistory(state: Readonly<ReplyState>, query: string, maxTokens: number): Promise<string>
  /** Facts, preferences and relations for a query, as lines, beyond those recall already chose. */
  searchKnowledge(state: Readonly<ReplyState>, query: string): Promise<string>
}

export function retrieveNode(ports: RetrievePorts, options: { maxTokens: number }) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    const deep = state.route?.deep
    if (deep !== 'direct' && deep !== 'both') return { update: {}, chose: { code: 'skipped', params: { deep: deep ?? 'none' } } }
    const query = state.target.content
    const knowledge = truncateToTokens(await ports.searchKnowledge(state, query).catch(() => ''), Math.floor(options.maxTokens / 3))
    const left = options.maxTokens - countTokens(knowledge)
    const history = truncateToTokens(await ports.searchHistory(state, query, left).catch(() => ''), left)
    const retrieved = [knowledge, history].filter((text) => text.trim())
    const tokens = retrieved.reduce((sum, text) => sum + countTokens(text), 0)
    return {
      update: { retrieved },
      chose: retrieved.length
        ? { code: 'found', params: { memories: knowledge.trim() ? 1 : 0, history: history.trim() ? 1 : 0 } }
        : { code: 'nothing' },
      tokensOut: tokens,
    }
  }
}
