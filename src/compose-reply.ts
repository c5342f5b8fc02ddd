import type { Context } from 'koishi'
import type { MemoryParts } from './compose'
import type { Config } from './config'
import type { ContextTarget } from './context'
import type { Counters, Logger } from './core/observability'
import { withTimeout } from './core/timeout'
import { episodeScope } from './episodes'
import { knowledgeScope } from './knowledge'
import { createChatModel } from './providers/factory'
import { createReplier, foundLines, searchMemoriesTool } from './reply'
import type { ReplyTool } from './reply'
import { truncateToTokens } from './text/token-count'

/** How long a reply waits for buffered messages to be written before it recalls without them. */
const CAPTURE_SETTLE_MS = 500

/**
 * The reply pipeline wired to the memory's parts: recall through the context builder, episodes and
 * profiles; the deep searches through topic search, facts and knowledge, each bound to the
 * message's own scope; the chat model the `chat` settings name (or the memory's own).
 */
export function composeReplier(ctx: Context, config: Config, parts: MemoryParts, counters: Counters, log: Logger) {
  const { capture, contextBuilder, episodes, knowledge, contextLog } = parts
  const settings = config.chat
  const model =
    settings.model.provider === 'memory'
      ? { llm: parts.providers.llm, choice: parts.providers.choices.llm }
      : createChatModel(
          ctx.http,
          { ...settings.model, provider: settings.model.provider, chatlunaModel: config.chatluna.model },
          config.store.retryIntervalSeconds,
          counters,
          log,
          {
            label: 'chat',
            chatluna: parts.providers.chatluna,
          },
        )
  if (model.choice.fallback) log.warn(ctx.i18n.text([], [`memory.log.fallback-chat-${model.choice.fallback}`], [model.choice.configured]))

  const userOf = (target: ContextTarget) => ({ platform: target.platform, userId: target.userId, guildId: target.guildId ?? '' })
  const scopeOf = (target: ContextTarget) => ({ platform: target.platform, userId: target.userId, guildId: target.guildId || undefined })
  const knowledgeOn = config.knowledge.enabled
  const tokenBudget = config.context.tokenBudget

  /** The deep-search tools of a message, each bound to its scope: the model chooses only what to look for. */
  const toolsFor = (target: ContextTarget): ReplyTool[] => {
    const tools: ReplyTool[] = [
      parts.searchTool({ platform: target.platform, channelId: target.channelId }),
      searchMemoriesTool((query, limit, history) => parts.recallFacts(scopeOf(target), query, limit, undefined, { history })),
    ]
    if (knowledgeOn) tools.push(...parts.knowledgeTools(knowledgeScope(userOf(target)), userOf(target)))
    return tools
  }

  const replier = createReplier({
    model: model.llm,
    recall: {
      async buildContext(target, options) {
        await withTimeout(capture.flush(), CAPTURE_SETTLE_MS).catch(() => counters.inc('context.capture-unsettled'))
        return contextBuilder.build(target, options)
      },
      recallEpisodes: (target, query) => episodes.recall(episodeScope({ ...userOf(target), channelId: target.channelId }), query),
      async profile(target) {
        const profile = await knowledge.getUserProfile(userOf(target))
        return profile?.profileText ? truncateToTokens(profile.profileText, config.knowledge.profileTokens) : undefined
      },
    },
    retrieve: {
      async searchHistory(state, query, maxTokens) {
        const channel = { platform: state.target.platform, channelId: state.target.channelId }
        const found = await parts.searchTool(channel, { around: 0, limit: 12 }).handler({ query })
        const chosen = new Set(state.recalled?.context?.messages.map((message) => message.id))
        const current = state.target.messageId
        return foundLines(found.result, (message) => chosen.has(message.id) || (!!current && message.messageId === current), maxTokens)
      },
      async searchKnowledge(state, query) {
        const known = new Set(state.recalled?.context?.longTerm.map((memory) => memory.content))
        const items = await parts.recallWithKnowledge(userOf(state.target), query, config.retrieval.topK * 2)
        return items
          .filter((item) => !known.has(item.text))
          .map((item) => `- ${item.text}`)
          .join('\n')
      },
    },
    tools: (state) => toolsFor(state.target),
    settings: {
      tokenBudget,
      retrieveTokens: Math.floor(tokenBudget / 4),
      maxToolCalls: settings.maxToolCalls,
      toolResultTokens: Math.floor(tokenBudget / 2),
      maxLength: settings.maxLength,
      temperature: settings.model.temperature,
      tools: settings.tools,
      profile: knowledgeOn && config.knowledge.profileTokens > 0,
      commandPrefixes: config.memorize.commandPrefixes,
    },
    trace: (record) => contextLog.trace(record),
  })
  return { reply: replier, tools: toolsFor, model: model.choice }
}
