import type { BuiltContext, ContextOptions, ContextTarget } from '../context'
import type { RecalledEpisode } from '../episodes'
import type { NodeResult, ReplyState } from './state'

/**
 * The recall node (design §7.3): the context `buildContext` chooses within the
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
    if (!route?.needsMemory) return { update: {}, chose: { code: 'skipped' } }
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
    const found = {
      messages: context?.messages.length ?? 0,
      memories: context?.longTerm.length ?? 0,
      group: context?.group?.length ?? 0,
      episodes: earlier.length,
      summary: context?.summary ? 1 : 0,
      profile: profile ? 1 : 0,
      fallback: context?.fallback ? 1 : 0,
    }
    return {
      update: { recalled: { context, episodes: earlier, profile } },
      chose: Object.values(found).some(Boolean) ? { code: 'found', params: found } : { code: 'nothing' },
      tokensOut: context?.tokens,
    }
  }
}
