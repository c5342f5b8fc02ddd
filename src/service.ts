import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { Context, Service, Session } from 'koishi'
import { mentions, renderPlainText } from './capture/render'
import { DialogueTracker } from './capture/dialogue-tracker'
import { MessageRecorder } from './capture/recorder'
import type { Config } from './config'
import { KeyedQueue } from './jobs/queue'
import { Dialogue, FactOwner, memorize, MemorizeOutcome } from './facts/memorize'
import { formatForPrompt, RetrievedMemory, Retriever } from './facts/retrieve'
import { defaultLexicalShare } from './facts/rerank'
import { createProviders, Providers } from './providers/factory'
import { Counters } from './core/observability'
import { Scope } from './scope'
import { FactIndex } from './facts/fact-index'
import { KoishiOutbox } from './store/outbox'
import { KoishiFactRepository } from './facts/repository'
import { LanceIndex } from './store/lance-index'
import { drainDeletes } from './store/index-sync'
import { defineMessageTable, MessageRow } from './messages/table'
import { defineFactTable } from './facts/table'
import { defineOutboxTable } from './store/outbox'
import { defineChannelSummaryTable } from './channel-summaries/table'
import { defineEpisodeTable } from './episodes/table'
import { defineContextTable } from './context/table'
import { FactRow } from './facts/table'
import { KoishiMessageStore } from './messages/koishi-store'
import { KoishiTopicStore } from './topics/koishi-store'
import { defineTopicTable } from './topics/table'
import { LlmTopicJudge } from './topics/judge'
import { TopicAttributor } from './topics/attributor'
import { GroupMemories } from './group/memories'
import { mountGroupApi } from './http/group-routes'
import { createGroupMemories } from './group/koishi-store'
import { createTopicSummaries } from './topic-summaries/koishi-store'
import type { TopicSummaries } from './topic-summaries/summaries'
import { ContextBuilder, withTimeout } from './context/context-builder'
import { definedOnly } from './core/defined'
import { RelevanceScorer } from './context/scorer'
import { rebuildTopicWords } from './topics/keywords'
import { ContextLog } from './context/context-log'
import { EpisodicMemory } from './episodes/episodic'
import { MessageIndex } from './messages/message-index'
import { assemblePrompt, ChatMessage } from './context/prompt'
import { RollingSummary } from './channel-summaries/rolling-summary'
import { quickSearch, topicSearchTool } from './context/search-tool'
import { ExtractiveSummarizer, LlmSummarizer } from './channel-summaries/summarizer'
import { TermStats } from './context/term-stats'
import type { BuiltContext, ContextOptions, ContextTarget } from './context/types'
import { KoishiContextLog } from './context/koishi-store'
import { KoishiEpisodes } from './episodes/koishi-store'
import { KoishiChannelSummaries } from './channel-summaries/koishi-store'

declare module 'koishi' {
  interface Context {
    memory: MemoryService
  }
}

export interface RetrieveOptions {
  platform?: string
  /** The guild the caller is in; `''` for a private chat. Left out: every guild of the user. */
  guildId?: string
  topK?: number
  minScore?: number
}

export interface MemoryStatus {
  embedder: string
  llm: string
  breakers: Record<string, string>
  queue: number
  captureBuffer: number
  outbox: number
  facts: number
  counters: Record<string, number>
}

/** How long `buildContext` waits for buffered messages to be written before building without them. */
const CAPTURE_SETTLE_MS = 500

export class MemoryService extends Service {
  static inject = { database: { required: true }, http: { required: false } }

  readonly counters = new Counters()
  readonly providers: Providers
  readonly index: LanceIndex
  readonly facts: KoishiFactRepository
  private outbox: KoishiOutbox
  private factIndex: FactIndex
  private retriever: Retriever
  private queue: KeyedQueue
  private recorder: MessageRecorder
  private tracker = new DialogueTracker({ maxTurns: 20, maxDialogues: 5000 })
  readonly groups: GroupMemories
  readonly summaries: TopicSummaries
  readonly contextBuilder: ContextBuilder
  readonly contextLog: ContextLog
  readonly episodes: EpisodicMemory
  private messageIndex: MessageIndex
  private termStats = new TermStats()
  private rolling: RollingSummary
  readonly messages: KoishiMessageStore
  readonly topics: KoishiTopicStore
  private attributor: TopicAttributor
  /** Captured rows per channel waiting for topic attribution, attributed in order by one job. */
  private unattributed = new Map<string, MessageRow[]>()
  private prepared = false
  private draining?: Promise<{ indexed: number; pending: boolean }>
  private log = this.ctx.logger('memory')

  constructor(ctx: Context, public config: Config) {
    super(ctx, 'memory')
    defineMessageTable(ctx)
    defineFactTable(ctx)
    defineOutboxTable(ctx)
    defineTopicTable(ctx)
    defineChannelSummaryTable(ctx)
    defineEpisodeTable(ctx)
    defineContextTable(ctx)
    const { counters, log } = this
    this.providers = createProviders(ctx, config, counters, log)
    this.messages = new KoishiMessageStore(ctx)
    this.topics = new KoishiTopicStore(ctx)
    this.attributor = this.createAttributor()
    this.index = new LanceIndex({
      dir: resolve(ctx.baseDir ?? process.cwd(), config.store.path),
      logger: log,
      counters,
      halfOpenAfterMs: config.store.retryIntervalSeconds * 1000,
      optimizeEveryWrites: config.store.optimizeEveryWrites,
      optimizeEveryMs: config.store.optimizeIntervalMinutes * 60_000,
      // both legs at once, fused in JS with LanceDB's RRF formula: 30–50 % faster than the native
      // hybrid query at 1k–10k rows (docs/benchmarks.md)
      hybrid: 'parallel',
    })
    this.groups = createGroupMemories(ctx, {
      index: this.index,
      embedder: this.providers.embedder,
      llm: () => this.providers.llm,
      prompts: () => ({ zh: config.prompts.groupEvolveZh, en: config.prompts.groupEvolveEn }),
      counters,
      logger: log,
      options: {
        maxMemories: config.group.maxMemories,
        maxMessages: config.group.maxMessages,
        defaultDays: config.group.days,
        leaseMs: config.group.leaseMinutes * 60_000,
        includeBotMessages: config.group.includeBotMessages,
        temperature: config.llm.temperature,
        searchThreshold: config.group.searchThreshold || undefined,
      },
    })
    mountGroupApi(ctx, () => this.groups, { token: config.api.token, prefix: config.api.prefix })
    this.summaries = createTopicSummaries(ctx, {
      topics: this.topics,
      messages: this.messages,
      index: this.index,
      embedder: this.providers.embedder,
      llm: () => this.providers.llm,
      counters,
      logger: log,
      options: {
        countThreshold: config.summaries.countThreshold,
        minMessages: config.summaries.minMessages,
        searchWeights: { keyword: config.summaries.keywordWeight, vector: config.summaries.vectorWeight },
      },
    })
    this.outbox = new KoishiOutbox(ctx)
    this.messageIndex = new MessageIndex({ index: this.index, embedder: this.providers.embedder, outbox: this.outbox, counters, logger: log })
    this.rolling = new RollingSummary({
      store: this.messages,
      summaries: new KoishiChannelSummaries(ctx),
      summarizer: this.providers.llm ? new LlmSummarizer(this.providers.llm, { temperature: config.llm.temperature }) : undefined,
      fallback: new ExtractiveSummarizer(),
      counters,
      logger: log,
    })
    this.episodes = new EpisodicMemory({ store: new KoishiEpisodes(ctx), index: this.index, embedder: this.providers.embedder, outbox: this.outbox, counters, logger: log })
    this.contextLog = new ContextLog(new KoishiContextLog(ctx), { counters, logger: log })
    this.contextBuilder = new ContextBuilder({
      store: this.messages,
      search: quickSearch(this.messageIndex),
      embedder: this.providers.embedder,
      termStats: this.termStats,
      longTerm: (target, topK) => this.retrieve(target.userId, target.content, {
        platform: target.platform,
        guildId: target.guildId || undefined,
        topK,
      }),
      summary: (channel) => this.rolling.get(channel),
      // a group chat also sees what the group as a whole remembers (recall never throws)
      group: (target) => this.groups.recall({ platform: target.platform, guildId: target.guildId }, target.content, { limit: 5, threshold: 0.05 }),
      onBuilt: (target, context) => this.contextLog.record(target, context),
      counters,
      logger: log,
      scorer: new RelevanceScorer(definedOnly({ weights: definedOnly(config.context.weights ?? {}), threshold: config.context.threshold, halfLifeHours: config.context.halfLifeHours })),
    }, definedOnly({
      tokenBudget: config.context.tokenBudget,
      timeoutMs: config.context.timeoutMs,
      maxMessages: config.context.maxMessages,
      timeWindowHours: config.context.timeWindowHours,
      longTermShare: config.context.longTermShare,
      summaryShare: config.context.summaryShare,
      groupShare: config.context.groupShare,
      summaryCoverage: config.context.summaryCoverage,
      recencyFloor: config.context.recencyFloor,
      lexicalShare: config.retrieval.lexicalShare ?? defaultLexicalShare(this.providers.embedder),
    }))
    this.facts = new KoishiFactRepository(ctx)
    const table = config.store.factsTable
    this.factIndex = new FactIndex({ index: this.index, embedder: this.providers.embedder, outbox: this.outbox, table, counters, logger: log })
    this.retriever = new Retriever({ index: this.index, embedder: this.providers.embedder, table, counters, logger: log, lexicalShare: config.retrieval.lexicalShare })
    this.queue = new KeyedQueue({
      limit: config.memorize.queueLimit,
      concurrency: 2,
      counters,
      onError: (error) => log.warn('memory job failed: %s', (error as Error).message),
    })
    this.recorder = new MessageRecorder(
      {
        write: async (rows) => {
          await ctx.database.upsert('memory_message', rows)
          // indexed for semantic neighbours once stored; never waits
          this.messageIndex.add(rows)
        },
      },
      {
        batchSize: 64,
        intervalMs: 500,
        maxBuffered: 10_000,
        rootCacheSize: 20_000,
        schedule: (callback, ms) => ctx.setTimeout(callback, ms),
        counters,
        logger: log,
      },
    )

    ctx.on('message', (session) => this.captureIncoming(session))
    ctx.on('before-send', (session, options) => this.captureOutgoing(session, options?.session as Session | undefined))
  }

  private createAttributor() {
    const { config, counters, log, providers } = this
    const options = {
      topics: this.topics,
      messages: this.messages,
      embedder: providers.embedder,
      judge: config.topics.useLlm && providers.llm ? new LlmTopicJudge(providers.llm, { counters, logger: log }) : undefined,
      idleMs: config.topics.idleMinutes * 60_000,
      followMs: config.topics.followMinutes * 60_000,
      counters,
      logger: log,
    }
    try {
      return new TopicAttributor({ ...options, thresholds: { join: config.topics.joinThreshold, low: config.topics.lowThreshold } })
    } catch (error) {
      log.error('topic thresholds ignored (%s); using the defaults of the embedder', (error as Error).message)
      return new TopicAttributor(options)
    }
  }

  protected async start() {
    await this.index.open()
    void this.flushOutbox()
    if (this.config.group.timer) this.scheduleEvolution()
    this.ctx.setInterval(() => void this.closeIdleTopics(), this.config.topics.closeIntervalMinutes * 60_000)
    const { enabled, scheduleIntervalMinutes } = this.config.summaries
    if (enabled && scheduleIntervalMinutes > 0) {
      this.ctx.setInterval(() => {
        this.queue.push('summaries:scheduled', () => this.summaries.scheduledPass())
      }, scheduleIntervalMinutes * 60_000)
    }
    this.ctx.setInterval(() => void this.flushOutbox(), this.config.store.retryIntervalSeconds * 1000)
  }

  protected async stop() {
    await this.recorder.flush()
    await this.messageIndex.flush()
    this.queue.clear()
    await this.queue.idle()
    await this.index.close()
  }

  /**
   * Memories of a user relevant to `query`, best first. Pass the session to stay inside its
   * guild (a group chat sees only what was learnt in that group). Never throws.
   */
  async retrieve(user: string | Session, query: string, options: RetrieveOptions = {}): Promise<RetrievedMemory[]> {
    const scope = typeof user === 'string'
      ? { platform: options.platform, userId: user, guildId: options.guildId }
      : sessionScope(user)
    if (!scope.userId) return []
    return this.retriever.retrieve(
      scope,
      query,
      options.topK ?? this.config.retrieval.topK,
      options.minScore ?? this.config.retrieval.minScore,
    )
  }

  formatForPrompt(memories: Pick<RetrievedMemory, 'content'>[], heading?: string) {
    return formatForPrompt(memories, heading)
  }

  /** Runs the post-dialogue chain now (seed 003's `considerMemorizing`). */
  considerMemorizing(dialogue: Dialogue): Promise<MemorizeOutcome> {
    return memorize({
      judge: this.providers.judge,
      embedder: this.providers.embedder,
      index: this.index,
      facts: this.facts,
      factIndex: this.factIndex,
      table: this.config.store.factsTable,
      counters: this.counters,
      logger: this.log,
      dedupeThreshold: this.config.retrieval.dedupeThreshold,
      commandPrefixes: this.config.memorize.commandPrefixes,
      newId: newFactId,
      now: () => new Date(),
    }, dialogue)
  }

  /** Facts of a scope, newest first. */
  list(scope: Scope, limit = 20, offset = 0): Promise<FactRow[]> {
    return this.facts.list(scope, limit, offset)
  }

  /**
   * Erases facts of `owner` by id: the rows, their index entries, waiting outbox work and the
   * captured messages they were drawn from. Returns the ids that were erased.
   */
  async forget(owner: { platform: string; userId: string }, ids: string[]): Promise<string[]> {
    const rows = (await this.facts.get(ids)).filter((row) => row.platform === owner.platform && row.userId === owner.userId)
    await this.erase(rows)
    return rows.map((row) => row.id)
  }

  /** Erases every fact and every captured message of a user on a platform. */
  async forgetAll(owner: { platform: string; userId: string }): Promise<number> {
    const rows = await this.ctx.database.get('memory_fact', { platform: owner.platform, userId: owner.userId })
    this.tracker.drop(owner.platform, owner.userId)
    this.recorder.dropUser(owner.platform, owner.userId)
    await this.recorder.flush()
    await this.erase(rows)
    const said = await this.ctx.database.get('memory_message', { platform: owner.platform, userId: owner.userId }, ['id', 'messageId', 'channelId', 'guildId', 'topicId'])
    await this.eraseDerived(owner, said)
    // the bot's answers to the user can quote them, so they go too
    for (let i = 0; i < said.length; i += 500) {
      const ids = said.slice(i, i + 500).map((row) => row.messageId)
      await this.ctx.database.remove('memory_message', { platform: owner.platform, role: 'assistant', replyMessageId: { $in: ids } })
    }
    await this.ctx.database.remove('memory_message', { platform: owner.platform, userId: owner.userId })
    await this.rewordTopics(owner, [...new Set(said.map((row) => row.topicId).filter(Boolean))])
    return rows.length
  }

  /**
   * Topics a forgotten user talked in get their keywords and title made again from the messages
   * left (a model's title may quote the user); a topic with none left is removed.
   */
  private async rewordTopics(owner: { platform: string; userId: string }, topicIds: string[]) {
    for (const id of topicIds) {
      const left = await this.messages.byTopic(id, { before: new Date(8.64e15), limit: 1000 })
      if (!left.length) {
        await this.ctx.database.remove('memory_topic', { id })
        continue
      }
      const topic = await this.topics.get(id)
      if (!topic) continue
      await this.topics.update(id, {
        ...rebuildTopicWords(left),
        messageCount: left.length,
        creatorId: topic.creatorId === owner.userId ? '' : topic.creatorId,
      })
    }
  }

  /**
   * Erases what was derived from a user's messages: their index entries, their exchanges with the
   * bot, the contexts they triggered, and the summaries that may quote them (rebuilt later).
   */
  private async eraseDerived(owner: { platform: string; userId: string }, said: Pick<MessageRow, 'id' | 'channelId' | 'guildId' | 'topicId'>[]) {
    const ids = said.map((row) => row.id)
    await this.messageIndex.remove(ids)
    await this.episodes.remove(ids)
    await this.ctx.database.remove('memory_context', { platform: owner.platform, userId: owner.userId })
    for (const channelId of new Set(said.map((row) => row.channelId))) {
      await this.ctx.database.remove('memory_channel_summary', { id: `${owner.platform}:${channelId}` })
    }
    const topicIds = [...new Set(said.map((row) => row.topicId).filter(Boolean))]
    if (topicIds.length) {
      const summaries = await this.ctx.database.get('memory_summary', { topicId: { $in: topicIds } }, ['id'])
      await this.ctx.database.remove('memory_summary', { topicId: { $in: topicIds } })
      try {
        if (summaries.length) await this.index.delete('topic_summaries', summaries.map((row) => row.id))
      } catch {
        for (const row of summaries) await this.outbox.add('topic_summaries', row.id, 'delete')
      }
    }
  }

  private async erase(rows: FactRow[]) {
    if (!rows.length) return
    const ids = rows.map((row) => row.id)
    const sources = rows.flatMap((row) => row.sourceIds)
    await this.recorder.flush()
    await this.facts.remove(ids)
    await this.factIndex.remove(ids)
    // the dialogue the fact came from: the user's lines and the bot's answers to them
    if (sources.length) {
      const said = await this.messages.byIds(sources)
      await this.eraseDerived(rows[0], said)
      await this.ctx.database.remove('memory_message', { id: { $in: sources }, platform: rows[0].platform })
    }
    this.counters.inc('forget.facts', ids.length)
  }

  /** Makes sure the index table exists for the current embedder; re-indexes when it changed. */
  private async prepareIndex(): Promise<boolean> {
    if (this.prepared) return true
    const { embedder } = this.providers
    try {
      const check = await this.index.prepare(this.config.store.factsTable, embedder.id, embedder.dims)
      if (check === 'reindex') await this.queueReindex()
      await this.messageIndex.prepare()
      this.prepared = true
    } catch (error) {
      this.log.debug('vector store not ready: %s', (error as Error).message)
    }
    return this.prepared
  }

  /** Indexes facts that wait in the outbox (one drain at a time). */
  flushOutbox(): Promise<{ indexed: number; pending: boolean }> {
    this.draining ??= this.drainOutbox().finally(() => this.draining = undefined)
    return this.draining
  }

  private async drainOutbox() {
    if (!await this.prepareIndex()) return { indexed: 0, pending: true }
    try {
      const facts = await this.factIndex.drain((ids) => this.facts.get(ids))
      const groups = await this.groups.drain()
      const summaries = await this.summaries.drain()
      // erased messages and exchanges whose index rows could not be removed at the time
      const messages = await drainDeletes(this.index, this.outbox, this.messageIndex.table)
      const episodes = await drainDeletes(this.index, this.outbox, this.episodes.table)
      const result = {
        indexed: facts.indexed + groups.indexed + summaries.indexed,
        pending: facts.pending || groups.pending || summaries.pending || messages.pending || episodes.pending,
      }
      if (result.indexed) this.log.info('indexed %d waiting memories', result.indexed)
      return result
    } catch (error) {
      // the database itself failed: try again on the next round (at shutdown, say nothing)
      if (this.ctx.scope.isActive) this.log.warn('could not read the outbox: %s', (error as Error).message)
      return { indexed: 0, pending: true }
    }
  }

  /**
   * The context a reply generator should see for a message (seed 000 §2.4, 001 §3.3): long-term
   * memories, the channel's rolling summary and the relevant messages within the token budget, with
   * the reason each was chosen. Never throws (falls back to the recent window).
   */
  async buildContext(message: Session | ContextTarget, options: ContextOptions = {}): Promise<BuiltContext> {
    const target = isSession(message) ? this.targetOf(message) : message
    // the last half second of the chat may still wait in the recorder's buffer: write it first, so
    // the context has it, but never let a slow database hold the reply for long
    await withTimeout(this.recorder.flush(), CAPTURE_SETTLE_MS).catch(() => this.counters.inc('context.capture-unsettled'))
    return this.contextBuilder.build(target, options)
  }

  /**
   * Chat messages for a model: system prompt + long-term memories + conversation summary + chosen
   * context (+ related earlier exchanges) + the current message.
   */
  async assemblePrompt(session: Session, options: ContextOptions & { system?: string; style?: 'messages' | 'transcript' } = {}): Promise<ChatMessage[]> {
    const target = this.targetOf(session)
    const [context, episodes] = await Promise.all([
      this.buildContext(target, options),
      this.recallEpisodes(session, target.content),
    ])
    return assemblePrompt({
      system: options.system ?? '',
      context,
      current: { name: target.userName ?? target.userId, content: target.content },
      episodes: episodes.filter((episode) => episode.userMessageId !== target.messageId),
      style: options.style,
    })
  }

  /** The user's 3 most recent exchanges with the bot here, plus the 3 most similar to `query` (004 phase 2). */
  async recallEpisodes(session: Session, query: string) {
    const guildId = session.guildId ?? ''
    const scope = guildId
      ? { platform: session.platform, userId: session.userId, guildId }
      : { platform: session.platform, userId: session.userId, guildId: '', channelId: session.channelId }
    try {
      return await this.episodes.recall(scope, query)
    } catch {
      return []
    }
  }

  /** `topicSearch` of this session's channel as an LLM tool definition (name, JSON schema, handler). */
  searchTool(session: Session) {
    return topicSearchTool({
      search: quickSearch(this.messageIndex),
      store: this.messages,
      topics: {
        list: async (channel, { limit }) => (await this.topics.list(channel, limit))
          .map((topic) => ({ id: topic.id, title: topic.title, updatedAt: topic.updatedAt, active: topic.active })),
      },
      summaries: this.summaries.searchSummaries,
    }, { platform: session.platform, channelId: session.channelId })
  }

  private targetOf(session: Session): ContextTarget {
    return {
      platform: session.platform,
      guildId: session.guildId ?? '',
      channelId: session.channelId!,
      userId: session.userId!,
      userName: session.author?.nick || session.author?.name || session.username,
      content: renderPlainText(session.elements ?? [], this.config.capture.placeholders, session.selfId),
      messageId: session.messageId,
      replyMessageId: session.quote?.id,
      mentions: (session.elements ?? []).filter((el) => el.type === 'at' && el.attrs.id && el.attrs.id !== session.selfId).map((el) => String(el.attrs.id)),
      isMentionBot: Boolean(session.stripped?.atSelf) || mentions(session.elements ?? [], session.selfId),
      time: new Date(session.timestamp || Date.now()),
    }
  }

  /** The raw messages of a topic, oldest first, optionally within a time range (000 §3.4). */
  topicMessages(topicId: string, options: { since?: Date; until?: Date; limit?: number } = {}) {
    return this.summaries.rawMessages(topicId, options)
  }

  /** Closes idle topics and summarises them in the background. */
  async closeIdleTopics() {
    try {
      const closed = await this.attributor.closeIdleTopics()
      if (closed.length && this.config.summaries.enabled) this.queue.push('summaries:closed', () => this.summaries.onTopicsClosed(closed))
      return closed
    } catch (error) {
      this.log.warn('closing idle topics failed: %s', (error as Error).message)
      return []
    }
  }

  /** Evolves a group's long-term memory now (seed 002); `group` is `{platform, guildId}` or `platform:guildId`. */
  evolve(group: { platform: string; guildId: string } | string, options: { days?: number } = {}) {
    return this.groups.evolve(group, options)
  }

  /** Once a day at the configured hour, every group with new messages evolves (in the background queue). */
  private scheduleEvolution() {
    this.ctx.setTimeout(() => {
      this.scheduleEvolution()
      void this.evolveDueGroups()
    }, msUntilHour(new Date(), this.config.group.hour))
  }

  /** Queues an evolution of every group with new messages; returns how many were queued. */
  async evolveDueGroups(): Promise<number> {
    if (!this.providers.llm) return 0
    try {
      let queued = 0
      for (const group of await this.groups.groupsWithNewMessages(this.config.group.days)) {
        if (this.queue.push(`group:${group.platform}:${group.guildId}`, () => this.groups.evolve(group))) queued++
      }
      return queued
    } catch (error) {
      this.log.warn('scheduled group evolution failed: %s', (error as Error).message)
      return 0
    }
  }

  /** Waits until captured messages are written and background memory work is done. */
  async flush() {
    await this.recorder.flush()
    await this.queue.idle()
  }

  async status(): Promise<MemoryStatus> {
    return {
      embedder: this.providers.embedder.id,
      llm: this.providers.judge.id,
      breakers: { vectorStore: this.index.state, ...this.providers.states() },
      queue: this.queue.size,
      captureBuffer: this.recorder.pending,
      outbox: await this.outbox.size(),
      facts: await this.facts.count(),
      counters: this.counters.snapshot(),
    }
  }

  private async queueReindex() {
    const table = this.config.store.factsTable
    const rows = await this.ctx.database.get('memory_fact', {}, ['id'])
    for (const row of rows) await this.outbox.add(table, row.id, 'upsert')
    this.log.info('embedder changed: %d facts will be indexed again', rows.length)
  }

  private records(session: Session) {
    const { mode, channels } = this.config.capture
    if (mode === 'all') return true
    const listed = channels.includes(session.channelId!) || channels.includes(`${session.platform}:${session.channelId}`)
    return mode === 'allow' ? listed : !listed
  }

  /** Whether the message calls one of the bot's commands (with or without a prefix). */
  private isCommand(session: Session): boolean {
    let text = (session.stripped?.content ?? '').trim()
    const prefix = this.config.memorize.commandPrefixes.find((prefix) => prefix && text.startsWith(prefix))
    if (prefix) text = text.slice(prefix.length)
    const name = text.split(/\s/, 1)[0]
    return Boolean(name && this.ctx.$commander.get(name, session))
  }

  /** A stored message of the session's channel; a reply joins the chain of what it replies to. */
  private rowOf(session: Session, fields: Omit<MessageRow, 'id' | 'platform' | 'guildId' | 'channelId' | 'rootMessageId' | 'topicId'>): MessageRow {
    const channelId = session.channelId!
    return {
      ...fields,
      id: rowId(session.platform, channelId, fields.messageId),
      platform: session.platform,
      guildId: session.guildId ?? '',
      channelId,
      rootMessageId: fields.replyMessageId ? this.recorder.rootOf(session.platform, channelId, fields.replyMessageId) : fields.messageId,
      topicId: '',
    }
  }

  private captureIncoming(session: Session) {
    if (!session.channelId || session.userId === session.selfId || !this.records(session)) return
    const content = renderPlainText(session.elements ?? [], this.config.capture.placeholders)
    const messageId = session.messageId || randomMessageId()
    const replyMessageId = session.quote?.id ?? ''
    const row = this.rowOf(session, {
      messageId,
      userId: session.userId!,
      userName: session.author?.nick || session.author?.name || session.username || session.userId!,
      content,
      role: 'user',
      isMentionBot: Boolean(session.stripped?.atSelf) || mentions(session.elements ?? [], session.selfId),
      isCommand: this.isCommand(session),
      replyMessageId,
      createdAt: new Date(session.timestamp || Date.now()),
    })
    this.recorder.add(row)
    if (row.isCommand) return
    this.afterCapture(row)
    if (!this.config.memorize.enabled || !content) return
    const owner = ownerOf(session)
    const said = renderPlainText(session.elements ?? [], this.config.capture.placeholders, session.selfId)
    const waiting = this.tracker.user(owner, row.userName, said, row.id)
    const every = this.config.memorize.privateEvery
    if (session.isDirect && every > 0 && waiting >= every) this.finishDialogue(owner)
  }

  private captureOutgoing(session: Session, replyTo?: Session) {
    if (!session.channelId || !this.records(session)) return
    const content = renderPlainText(session.elements ?? [], this.config.capture.placeholders)
    if (!content) return
    const messageId = randomMessageId()
    const replyMessageId = replyTo?.messageId ?? ''
    const row = this.rowOf(session, {
      messageId,
      userId: session.selfId,
      userName: session.bot?.user?.name || session.selfId,
      content,
      role: 'assistant',
      isMentionBot: false,
      isCommand: false,
      replyMessageId,
      createdAt: new Date(),
    })
    this.recorder.add(row)
    this.afterCapture(row)
    if (replyTo?.messageId && replyTo.userId !== replyTo.selfId) this.afterReply(replyTo, row)
    if (!replyTo?.userId || replyTo.userId === replyTo.selfId || !this.config.memorize.enabled) return
    const owner = ownerOf(replyTo)
    if (this.tracker.assistant(owner, row.userName, content, row.id) && this.config.memorize.afterReply) {
      this.finishDialogue(owner)
    }
  }

  /** Everything a stored message feeds besides the table: term statistics, topics, the rolling summary. */
  private afterCapture(row: MessageRow) {
    const channel = { platform: row.platform, guildId: row.guildId, channelId: row.channelId }
    if (row.content) this.termStats.add(channel, row.content)
    this.attributeLater(row)
    if (this.rolling.note(channel)) {
      this.queue.push(`rolling:${row.platform}:${row.channelId}`, () => this.recorder.flush().then(() => this.rolling.refresh(channel)))
    }
  }

  /** The bot answered a user's message: the exchange becomes an episode and the context log learns the reply. */
  private afterReply(replyTo: Session, reply: MessageRow) {
    const channel = { platform: reply.platform, channelId: reply.channelId }
    void this.contextLog.reply(channel, replyTo.messageId!, reply.content)
    const userRowId = rowId(replyTo.platform, replyTo.channelId!, replyTo.messageId!)
    this.queue.push(`episode:${replyTo.platform}:${replyTo.userId}`, async () => {
      await this.recorder.flush()
      const [user] = await this.messages.byIds([userRowId])
      if (user && !user.isCommand) await this.episodes.record(user, reply)
    })
  }

  /** Queues topic attribution; one job per channel takes every row waiting there, in order. */
  private attributeLater(row: MessageRow) {
    if (!this.config.topics.enabled) return
    const key = `${row.platform}:${row.channelId}`
    const waiting = this.unattributed.get(key)
    if (waiting) {
      if (waiting.length < 1000) waiting.push(row)
      else this.counters.inc('topic.dropped')
      return
    }
    this.unattributed.set(key, [row])
    const queued = this.queue.push(`topic:${key}`, async () => {
      const rows = this.unattributed.get(key) ?? []
      this.unattributed.delete(key)
      // attribution writes the topic id onto the stored rows
      await this.recorder.flush()
      const topicIds = new Set<string>()
      for (const next of rows) topicIds.add((await this.attributor.attribute(next)).topicId)
      // the count trigger may call the LLM: a job of its own, never inside attribution
      if (this.config.summaries.enabled) this.queue.push(`summaries:${key}`, () => this.summaries.onTopicMessages([...topicIds]))
    })
    if (!queued) this.unattributed.delete(key)
  }

  private finishDialogue(owner: FactOwner) {
    const dialogue = this.tracker.finish(owner)
    if (!dialogue) return
    const key = `${owner.platform}:${owner.userId}`
    // the messages must be in the database before a fact names them as its sources
    this.queue.push(key, () => this.recorder.flush().then(() => this.considerMemorizing(dialogue)))
  }
}

/** Milliseconds from `now` to the next `hour`:00 local time (tomorrow's when it has passed). */
export function msUntilHour(now: Date, hour: number): number {
  const next = new Date(now)
  next.setHours(hour, 0, 0, 0)
  if (next <= now) next.setDate(next.getDate() + 1)
  return next.getTime() - now.getTime()
}

function isSession(value: Session | ContextTarget): value is Session {
  return typeof (value as Session).app === 'object' && 'event' in value
}

function ownerOf(session: Session): FactOwner {
  return {
    platform: session.platform,
    userId: session.userId!,
    guildId: session.guildId ?? '',
    channelId: session.channelId!,
  }
}

/** In a group, what was learnt in that group; in a private chat, everything about the user. */
export function sessionScope(session: Session): Scope {
  return session.guildId
    ? { platform: session.platform, userId: session.userId, guildId: session.guildId }
    : { platform: session.platform, userId: session.userId }
}

function rowId(platform: string, channelId: string, messageId: string) {
  return `${platform}:${channelId}:${messageId}`
}

function randomMessageId() {
  return `local-${randomBytes(8).toString('hex')}`
}

function newFactId() {
  // short enough to type in `memory.forget <id>`
  return randomBytes(5).toString('hex')
}
