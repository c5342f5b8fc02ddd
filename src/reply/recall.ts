import type { BuiltContext, ContextOptions, ContextTarget } from '../context'
import type { RecalledEpisode } from '../episodes'
import type { NodeResult, ReplyState } from './state'

/**
 * The recall node (seed 004 §2.3.3, `recall_node`): the context `buildContext` chooses within the
 * token budget (long-term memories, the group's memories, the rolling summary, relevant messages),
 * the user's earlier exchanges with the bot and their profile — only the kinds the route asked for.
 */

export interface RecallPorts {
  buildContext(target: ContextTarget, options: ContextOptions): Promise<BuiltContext>
  recallEpisodes(target: ContextTarget, query: string): Promise<RecalledEpisode[]>
  /** The user's profile text within its token budget; undefined when there is none. */
  profile(target: ContextTarget): Promise<string | undefined>
}

export function recallNode(ports: RecallPorts, options: { tokenBudget: number }) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    const route = state.route
    if (!route?.needsMemory) return { update: {}, chose: 'skipped: the message needs no memory' }
    const wants = new Set(route.kinds)
    const { target } = state
    const [context, episodes, profile] = await Promise.all([
      wants.has('context') || wants.has('facts')
        ? ports.buildContext(target, { tokenBudget: options.tokenBudget, longTerm: wants.has('facts') })
        : undefined,
      wants.has('episodes') ? ports.recallEpisodes(target, target.content).catch(() => []) : [],
      wants.has('profile') ? ports.profile(target).catch(() => undefined) : undefined,
    ])
    const earlier = episodes.filter((episode) => episode.userMessageId !== target.messageId)
    const parts = [
      context && `${context.messages.length} messages`,
      context && `${context.longTerm.length} memories`,
      context?.group?.length && `${context.group.length} group memories`,
      context?.summary && 'summary',
      earlier.length && `${earlier.length} earlier exchanges`,
      profile && 'profile',
      context?.fallback && 'recent window (fallback)',
    ].filter(Boolean)
    return {
      update: { recalled: { context, episodes: earlier, profile } },
      chose: parts.join(', ') || 'nothing found',
      tokensOut: context?.tokens,
    }
  }
}
