import type { RetrievedMemory } from '../long-term/retrieve'
import type { Counters, Embedder, LLM, Logger } from '../providers/types'
import type { Scope } from '../scope'
import type { MessageRow } from '../store/tables'
import type { VectorIndex } from '../store/vector-index'
import { ContextBuilder, ContextBuilderConfig } from './context-builder'
import { ContextLog, ContextLogStore, ContextMetrics } from './context-log'
import { EpisodeStore, EpisodicMemory, episodeScope, RecalledEpisode } from './episodic'
import { MessageIndex } from './message-index'
import { assemblePrompt, ChatMessage, PromptInput } from './prompt'
import { RollingSummary, RollingSummaryConfig, SummaryStore } from './rolling-summary'
import { RelevanceScorer, ScorerOptions } from './scorer'
import { quickSearch, topicSearch, TopicSearchResult, topicSearchTool, TopicTitles } from './search-tool'
import { ExtractiveSummarizer, LlmSummarizer } from './summarizer'
import { TermStats } from './term-stats'
import type { BuiltContext, ContextOptions, ContextTarget, MessageStore } from './types'

/**
 * The short-term layer in one object, for the service to wire: it owns the message index, the term
 * statistics, the context builder, the rolling summary, episodic memory and the context log, and
 * takes the service's ports. Koishi-free: the service turns sessions into rows and targets, and
 * calls the hooks below.
 *
 * - `captured(rows)` after captured rows are written to the database (indexes them, counts terms,
 *   schedules summary refreshes);
 * - `replied(user, bot)` when the bot answered a user's message (episode, context log reply);
 * - `buildContext`, `assemblePrompt`, `topicSearch`, `searchTool` for callers;
 * - `metrics` for `memory.stats`; `forget` when messages are erased; `flush` on a timer.
 */

export interface ShortTermConfig {
  context: Partial<ContextBuilderConfig>
  scorer: ScorerOptions
  summary: Partial<RollingSummaryConfig> & { enabled: boolean }
  episodic: { enabled: boolean; recent: number; similar: number }
  log: { enabled: boolean; retentionDays: number; maxRecords: number }
  /** LanceDB table names. */
  messagesTable: string
  episodesTable: string
}

export const DEFAULT_SHORT_TERM: ShortTermConfig = {
  context: {},
  scorer: {},
  summary: { enabled: true },
  episodic: { enabled: true, recent: 3, similar: 3 },
  log: { enabled: true, retentionDays: 7, maxRecords: 10_000 },
  messagesTable: 'messages',
  episodesTable: 'episodes',
}

export interface ShortTermDeps {
  index: VectorIndex
  embedder: Embedder
  /** The chat model for summaries; without it the extractive summariser is used. */
  llm?: LLM
  store: MessageStore
  summaries: SummaryStore
  episodes: EpisodeStore
  contextLog: ContextLogStore
  topics?: TopicTitles
  /** The topic of a target whose row has none yet (the attribution's best guess). */
  topicOf?: (target: ContextTarget) => Promise<string | undefined>
  /** The target author's long-term memories (the service's `retrieve`). */
  longTerm?: (target: ContextTarget, topK: number) => Promise<RetrievedMemory[]>
  /** Runs background work; one key runs one job at a time (the service's keyed queue). */
  schedule: (key: string, job: () => Promise<unknown>) => void
  counters: Counters
  logger: Logger
}

export class ShortTermMemory {
  readonly messageIndex: MessageIndex
  readonly termStats = new TermStats()
  readonly builder: ContextBuilder
  readonly rolling: RollingSummary
  readonly episodic: EpisodicMemory
  readonly log: ContextLog
  readonly config: ShortTermConfig

  constructor(private deps: ShortTermDeps, config: Partial<ShortTermConfig> = {}) {
    this.config = { ...DEFAULT_SHORT_TERM, ...config }
    const { index, embedder, llm, store, counters, logger } = deps
    this.messageIndex = new MessageIndex({
      index, embedder, counters, logger, table: this.config.messagesTable,
      onReindexNeeded: () => logger.warn('the messages index was made with another embedder; run memory.reindex to index past messages again'),
    })
    this.log = new ContextLog(deps.contextLog, { counters, logger, retentionDays: this.config.log.retentionDays, maxRecords: this.config.log.maxRecords })
    this.builder = new ContextBuilder({
      store,
      search: quickSearch(this.messageIndex),
      embedder,
      termStats: this.termStats,
      longTerm: deps.longTerm,
      summary: this.config.summary.enabled ? (channel) => this.rolling.get(channel) : undefined,
      topicOf: deps.topicOf,
      onBuilt: this.config.log.enabled ? (target, built) => this.log.record(target, built) : undefined,
      scorer: new RelevanceScorer(this.config.scorer),
      counters,
      logger,
    }, this.config.context)
    this.rolling = new RollingSummary({
      store,
      summaries: deps.summaries,
      summarizer: llm ? new LlmSummarizer(llm) : undefined,
      fallback: new ExtractiveSummarizer(),
      counters,
      logger,
    }, this.config.summary)
    this.episodic = new EpisodicMemory({ store: deps.episodes, index, embedder, counters, logger, table: this.config.episodesTable })
  }

  /** Prepares the LanceDB tables. Never throws. */
  async start(): Promise<void> {
    await this.messageIndex.prepare()
  }

  /** Hook: rows were written to `memory_message`. Never throws, never waits. */
  captured(rows: MessageRow[]): void {
    this.messageIndex.add(rows)
    for (const row of rows) {
      if (row.isCommand) continue
      this.termStats.add(row, row.content)
      if (this.config.summary.enabled && this.rolling.note(row)) {
        const channel = { platform: row.platform, guildId: row.guildId, channelId: row.channelId }
        this.deps.schedule(`summary:${row.platform}:${row.channelId}`, () => this.rolling.refresh(channel))
      }
    }
  }

  /** Hook: the bot answered `user` with `bot` (both captured rows). Never throws, never waits. */
  replied(user: MessageRow, bot: MessageRow): void {
    if (this.config.log.enabled) void this.log.reply(user, user.messageId, bot.content)
    if (!this.config.episodic.enabled) return
    this.deps.schedule(`episode:${user.platform}:${user.userId}`, () => this.episodic.record(user, bot).catch((error) => {
      this.deps.counters.inc('episodes.failed')
      this.deps.logger.debug('could not record an episode: %s', (error as Error).message)
    }))
  }

  /** The context for a message. Never throws. */
  buildContext(target: ContextTarget, options?: ContextOptions): Promise<BuiltContext> {
    return this.builder.build(target, options)
  }

  /** The user's recent and similar exchanges with the bot. Never throws. */
  recallEpisodes(target: ContextTarget): Promise<RecalledEpisode[]> {
    if (!this.config.episodic.enabled) return Promise.resolve([])
    const scope = episodeScope({ platform: target.platform, userId: target.userId, guildId: target.guildId, channelId: target.channelId })
    return this.episodic.recall(scope, target.content, { recent: this.config.episodic.recent, similar: this.config.episodic.similar })
  }

  /** Builds the context (and recalls episodes) and assembles the chat messages for a model. */
  async assemblePrompt(target: ContextTarget, options: { system?: string; episodes?: boolean; style?: PromptInput['style'] } & ContextOptions = {}): Promise<{ messages: ChatMessage[]; context: BuiltContext }> {
    const [context, episodes] = await Promise.all([
      this.buildContext(target, options),
      options.episodes === false ? Promise.resolve([]) : this.recallEpisodes(target),
    ])
    const shown = new Set(context.messages.map((message) => message.content))
    const messages = assemblePrompt({
      system: options.system ?? '',
      context,
      episodes: episodes.filter((episode) => !shown.has(episode.userText)),
      current: { name: target.userName ?? target.userId, content: target.content },
      style: options.style,
    })
    return { messages, context }
  }

  /** Deep search of a channel. */
  topicSearch(query: string, scope: Scope): Promise<TopicSearchResult> {
    return topicSearch(this.searchDeps(), query, scope)
  }

  /** `topicSearch` as an LLM tool bound to a channel scope (from the caller's session). */
  searchTool(scope: Scope) {
    return topicSearchTool(this.searchDeps(), scope)
  }

  metrics(hours = 24): Promise<ContextMetrics> {
    return this.log.metrics(hours)
  }

  /** Hook: captured messages were erased. Their index entries and episodes go too. */
  async forget(rowIds: string[]): Promise<void> {
    await this.messageIndex.remove(rowIds)
    await this.episodic.remove(rowIds).catch((error) => this.deps.logger.warn('could not remove episodes: %s', (error as Error).message))
  }

  /** Retries messages waiting to be indexed (call on the outbox timer). */
  flush(): Promise<void> {
    return this.messageIndex.flush()
  }

  private searchDeps() {
    return { search: quickSearch(this.messageIndex), store: this.deps.store, topics: this.deps.topics }
  }
}
