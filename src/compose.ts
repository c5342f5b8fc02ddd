import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import type { Context } from 'koishi'
import { CapturePipeline } from './capture/pipeline'
import { defineChannelSummaryTable, ExtractiveSummarizer, KoishiChannelSummaries, LlmSummarizer, RollingSummary } from './channel-summaries'
import type { Config } from './config'
import { ContextBuilder, ContextLog, defineContextTable, KoishiContextLog, quickSearch, RelevanceScorer, TermStats } from './context'
import { definedOnly } from './core/defined'
import type { Counters, Logger } from './core/observability'
import { defineEpisodeTable, EpisodicMemory, KoishiEpisodes } from './episodes'
import { Eraser } from './erase/eraser'
import type { Dialogue, MemorizeOutcome } from './facts'
import { createJudge, defaultLexicalShare, defineFactTable, factIndexKind, KoishiFactRepository, memorize, Retriever } from './facts'
import { createGroupMemories } from './group'
import { Maintenance } from './jobs/maintenance'
import { KeyedQueue } from './jobs/queue'
import { defineMessageTable, KoishiMessageStore, MessageIndex } from './messages'
import { createProviders } from './providers/factory'
import { IndexedTable, IndexRegistry } from './store/index-sync'
import { LanceIndex } from './store/lance-index'
import { defineOutboxTable, KoishiOutbox } from './store/outbox'
import { createTopicSummaries } from './topic-summaries'
import { defineTopicTable, KoishiTopicStore, LlmTopicJudge, TopicAttributor } from './topics'

/**
 * The composition root: declares every table and builds every part of the memory from the console
 * configuration. The service is the public face of what this returns.
 */
export function composeMemory(ctx: Context, config: Config, counters: Counters, log: Logger) {
  defineMessageTable(ctx)
  defineFactTable(ctx)
  defineOutboxTable(ctx)
  defineTopicTable(ctx)
  defineChannelSummaryTable(ctx)
  defineEpisodeTable(ctx)
  defineContextTable(ctx)

  const providers = createProviders(
    ctx.http,
    { embedding: config.embedding, llm: config.llm, retryIntervalSeconds: config.store.retryIntervalSeconds },
    counters,
    log,
  )
  const { embedder, llm } = providers
  const { prompts } = config
  const judge = createJudge(llm, { extraction: { zh: prompts.extractionZh, en: prompts.extractionEn } }, { counters, logger: log })

  const registry = new IndexRegistry({ logger: log })
  const index = new LanceIndex({
    dir: resolve(ctx.baseDir ?? process.cwd(), config.store.path),
    logger: log,
    counters,
    halfOpenAfterMs: config.store.retryIntervalSeconds * 1000,
    optimizeEveryWrites: config.store.optimizeEveryWrites,
    optimizeEveryMs: config.store.optimizeIntervalMinutes * 60_000,
    // both legs at once, fused in JS with LanceDB's RRF formula (docs/benchmarks.md)
    hybrid: 'parallel',
    onReindexNeeded: (table) => void registry.tableLost(table),
  })
  const outbox = new KoishiOutbox(ctx)
  const sync = { index, embedder, outbox, counters, logger: log }
  const queue = new KeyedQueue({
    limit: config.memorize.queueLimit,
    concurrency: 2,
    counters,
    onError: (error) => log.warn('memory job failed: %s', (error as Error).message),
  })

  const messages = new KoishiMessageStore(ctx)
  const messageIndex = new MessageIndex({ ...sync, rows: messages })
  const topics = new KoishiTopicStore(ctx)
  const attributor = createAttributor(config, { topics, messages, embedder, llm, counters, log })

  const facts = new KoishiFactRepository(ctx)
  const factIndex = new IndexedTable(sync, factIndexKind(config.store.factsTable, facts))
  const retriever = new Retriever({
    index,
    embedder,
    table: config.store.factsTable,
    counters,
    logger: log,
    lexicalShare: config.retrieval.lexicalShare,
  })
  const memorizeDialogue = (dialogue: Dialogue): Promise<MemorizeOutcome> =>
    memorize(
      {
        judge,
        embedder,
        facts,
        factIndex,
        counters,
        logger: log,
        dedupeThreshold: config.retrieval.dedupeThreshold,
        commandPrefixes: config.memorize.commandPrefixes,
        newId: newFactId,
        now: () => new Date(),
      },
      dialogue,
    )

  const groups = createGroupMemories(ctx, {
    index,
    embedder,
    llm: () => llm,
    prompts: () => ({ zh: prompts.groupEvolveZh, en: prompts.groupEvolveEn }),
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
  const summaries = createTopicSummaries(ctx, {
    topics,
    messages,
    index,
    embedder,
    llm: () => llm,
    counters,
    logger: log,
    options: {
      countThreshold: config.summaries.countThreshold,
      minMessages: config.summaries.minMessages,
      searchWeights: { keyword: config.summaries.keywordWeight, vector: config.summaries.vectorWeight },
    },
  })

  const channelSummaries = new KoishiChannelSummaries(ctx)
  const rolling = new RollingSummary({
    store: messages,
    summaries: channelSummaries,
    summarizer: llm ? new LlmSummarizer(llm, { temperature: config.llm.temperature }) : undefined,
    fallback: new ExtractiveSummarizer(),
    counters,
    logger: log,
  })
  const episodes = new EpisodicMemory({ ...sync, store: new KoishiEpisodes(ctx) })
  for (const table of [factIndex, groups.index?.table, summaries.index?.table, messageIndex.indexed, episodes.indexed]) {
    if (table) registry.add(table)
  }
  const contextLogStore = new KoishiContextLog(ctx)
  const contextLog = new ContextLog(contextLogStore, { counters, logger: log })
  const termStats = new TermStats()
  const lexicalShare = config.retrieval.lexicalShare ?? defaultLexicalShare(embedder)

  const capture = new CapturePipeline({
    options: {
      ...config.capture,
      memorize: config.memorize.enabled,
      privateEvery: config.memorize.privateEvery,
      afterReply: config.memorize.afterReply,
      commandPrefixes: config.memorize.commandPrefixes,
      topics: config.topics.enabled,
      summaries: config.summaries.enabled,
    },
    write: (rows) => messages.upsert(rows),
    messages,
    messageIndex,
    termStats,
    attributor,
    rolling,
    summaries,
    episodes,
    contextLog,
    queue,
    memorize: memorizeDialogue,
    isCommandName: (name, session) => Boolean(ctx.$commander.get(name, session)),
    schedule: (callback, ms) => ctx.setTimeout(callback, ms),
    counters,
    logger: log,
  })

  const retrieveFacts = async (target: { userId: string; content: string; platform: string; guildId: string }, topK: number) =>
    target.userId
      ? retriever.retrieve(
          { platform: target.platform, userId: target.userId, guildId: target.guildId || undefined },
          target.content,
          topK,
          config.retrieval.minScore,
        )
      : []
  const contextBuilder = new ContextBuilder(
    {
      store: messages,
      search: quickSearch(messageIndex),
      embedder,
      termStats,
      longTerm: retrieveFacts,
      summary: (channel) => rolling.get(channel),
      // a group chat also sees what the group as a whole remembers (recall never throws)
      group: (target) =>
        groups.recall({ platform: target.platform, guildId: target.guildId }, target.content, { limit: 5, threshold: 0.05 }),
      onBuilt: (target, context) => contextLog.record(target, context),
      counters,
      logger: log,
      scorer: new RelevanceScorer(
        definedOnly({
          weights: definedOnly(config.context.weights ?? {}),
          threshold: config.context.threshold,
          halfLifeHours: config.context.halfLifeHours,
        }),
      ),
    },
    definedOnly({
      tokenBudget: config.context.tokenBudget,
      timeoutMs: config.context.timeoutMs,
      maxMessages: config.context.maxMessages,
      timeWindowHours: config.context.timeWindowHours,
      longTermShare: config.context.longTermShare,
      summaryShare: config.context.summaryShare,
      groupShare: config.context.groupShare,
      summaryCoverage: config.context.summaryCoverage,
      recencyFloor: config.context.recencyFloor,
      lexicalShare,
    }),
  )

  const eraser = new Eraser({
    capture,
    facts,
    factIndex,
    messages,
    messageIndex,
    episodes,
    contextLog: contextLogStore,
    channelSummaries,
    topicSummaries: summaries,
    topics,
    counters,
  })

  const maintenance = new Maintenance({
    queue,
    attributor,
    summaries,
    groups,
    hasModel: Boolean(llm),
    summariesEnabled: config.summaries.enabled,
    evolutionDays: config.group.days,
    logger: log,
  })

  return {
    providers: { ...providers, judge },
    maintenance,
    index,
    registry,
    queue,
    messages,
    messageIndex,
    topics,
    attributor,
    facts,
    factIndex,
    retriever,
    memorize: memorizeDialogue,
    groups,
    summaries,
    rolling,
    episodes,
    contextLog,
    contextBuilder,
    capture,
    eraser,
    outbox,
  }
}

export type MemoryParts = ReturnType<typeof composeMemory>

function createAttributor(
  config: Config,
  deps: Pick<ConstructorParameters<typeof TopicAttributor>[0], 'topics' | 'messages' | 'embedder'> & {
    llm?: ConstructorParameters<typeof LlmTopicJudge>[0]
    counters: Counters
    log: Logger
  },
) {
  const { counters, log, llm } = deps
  const options = {
    topics: deps.topics,
    messages: deps.messages,
    embedder: deps.embedder,
    judge: config.topics.useLlm && llm ? new LlmTopicJudge(llm, { counters, logger: log }) : undefined,
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

function newFactId() {
  // short enough to type in `memory.forget <id>`
  return randomBytes(5).toString('hex')
}
