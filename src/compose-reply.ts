import type { Context, Session } from 'koishi'
import type { Memory } from './compose'
import type { Config } from './config'
import type { ContextTarget } from './context'
import type { Counters, Logger } from './core/observability'
import { knowledgeScope } from './knowledge'
import { createChatModel } from './providers/factory'
import { createReplier, foundLines, personaFor, renderOutcome, searchMemoriesTool } from './reply'
import type { ReplyState } from './reply'
import { personOf, sessionScope } from './scope'
import { detectLanguage } from './text/language'
import type { LLM, ToolDefinition } from './providers/types'
import { BudgetedLLM, budgetOwnerOf } from './budget'

/**
 * The reply pipeline wired to the memory: recall through the context builder, episodes and profiles;
 * the deep searches through topic search, facts and knowledge, each bound to the message's own
 * scope; the chat model the `chat` settings name (or the memory's own); the persona and the texts in
 * the language of the message.
 */
export function composeReplier(ctx: Context, config: Config, memory: Memory, counters: Counters, log: Logger) {
  const { recall, providers } = memory
  const settings = config.chat
  const model =
    settings.model.provider === 'memory'
      ? { llm: providers.llm, choice: providers.choices.llm }
      : createChatModel(
          ctx.http,
          { ...settings.model, provider: settings.model.provider, chatlunaModel: config.chatluna.model },
          config.store.retryIntervalSeconds,
          counters,
          log,
          { label: 'chat', chatluna: providers.chatluna },
        )
  // only for a chat that answers: with it off, its settings wait unused and a warning would only alarm
  if (settings.enabled && model.choice.fallback)
    log.warn(ctx.i18n.text([], [`memory.log.fallback-chat-${model.choice.fallback}`], [model.choice.configured]))

  const knowledgeOn = config.knowledge.enabled
  const tokenBudget = config.context.tokenBudget

  /** The deep-search tools of a message, each bound to its scope: the model chooses only what to look for. */
  const toolsFor = (target: ContextTarget): ToolDefinition[] => {
    const tools: ToolDefinition[] = [
      recall.searchTool({ platform: target.platform, channelId: target.channelId }),
      searchMemoriesTool((query, limit, history) => recall.memories(sessionScope(target), query, { topK: limit, history })),
    ]
    if (knowledgeOn) {
      const user = personOf(target)
      tools.push(...recall.knowledgeTools(knowledgeScope(user), user))
    }
    return tools
  }

  const budgeted = model.llm && new BudgetedLLM(model.llm, memory.budgets)
  const replierWith = (llm: LLM | undefined) =>
    createReplier({
      model: llm,
      recall: {
        buildContext: (target, options) => recall.buildContext(target, options),
        recallEpisodes: (target, query) => recall.episodes(target, query),
        profile: (target) => recall.profileText(personOf(target)),
      },
      retrieve: {
        async searchHistory(state, query, maxTokens) {
          const channel = { platform: state.target.platform, channelId: state.target.channelId }
          const found = await recall.searchTool(channel, { around: 0, limit: 12 }).handler({ query })
          const chosen = new Set(state.recalled?.context?.messages.map((message) => message.id))
          const current = state.target.messageId
          return foundLines(found.result, (message) => chosen.has(message.id) || (!!current && message.messageId === current), maxTokens)
        },
        async searchKnowledge(state, query) {
          const known = new Set(state.recalled?.context?.longTerm.map((memory) => memory.content))
          const items = await recall.withKnowledge(personOf(state.target), query, config.retrieval.topK * 2)
          return items
            .filter((item) => !known.has(item.text) && item.text !== state.target.content)
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
      trace: (record) => memory.modules.part('context').log.trace(record),
    })
  const [modelled, offline] = [replierWith(budgeted), replierWith(undefined)]
  /** The model while the message's group (or private chat) has calls left today; else the offline answer. */
  const replierFor = async (target: ContextTarget) => {
    if (!budgeted) return offline
    const owner = budgetOwnerOf(target)
    if (await memory.budgets.allows(owner)) return modelled
    await memory.budgets.noteOffline(owner)
    return offline
  }

  /**
   * Answers a message in its language (a session's locale when the text does not tell), with the
   * channel's persona; what the user reads is sent to the session, or given to `send`.
   */
  const reply = async (
    target: ContextTarget,
    session: Session | undefined,
    send: (text: string) => Promise<string[]>,
  ): Promise<ReplyState> => {
    const fallback = session?.locales?.some((locale) => locale.startsWith('en')) ? 'en' : 'zh'
    const language = detectLanguage(target.content, fallback)
    const replier = await replierFor(target)
    return memory.budgets.run(budgetOwnerOf(target), () =>
      replier({
        target,
        language,
        system: personaFor(`${target.platform}:${target.channelId}`, language, settings),
        deliver: (outcome) =>
          send(renderOutcome(outcome, language, (locale, path, params) => ctx.i18n.render([locale], [path], params ?? []).join(''))),
      }),
    )
  }
  return { reply, tools: toolsFor, model: model.choice }
}
