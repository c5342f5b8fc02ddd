import { createHash, randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import type { Context } from 'koishi'
import { CaptureJournal } from './capture/journal'
import { CapturePipeline } from './capture/pipeline'
import { defineChannelSummaryTable, ExtractiveSummarizer, KoishiChannelSummaries, LlmSummarizer, RollingSummary } from './channel-summaries'
import type { Config } from './config'
import { defaultCacheMB } from './config'
import type { Scope } from './scope'
import {
  ContextBuilder,
  ContextLog,
  defineContextTable,
  KoishiContextLog,
  quickSearch,
  RelevanceScorer,
  TermStats,
  topicSearchTool,
} from './context'
import type { TopicSearchOptions } from './context'
import { definedOnly } from './core/defined'
import { KeyedLock } from './core/keyed-lock'
import type { Counters, Logger } from './core/observability'
import { defineEpisodeTable, EpisodicMemory, KoishiEpisodes } from './episodes'
import { Eraser } from './erase/eraser'
import type { Dialogue, MemorizeOutcome, RecallOptions } from './facts'
import {
  createJudge,
  defaultLexicalShare,
  defineFactTable,
  factIndexKind,
  factLockKey,
  KoishiFactRepository,
  memorize,
  Retriever,
  reviseFact,
} from './facts'
import { createGroupMemories, KoishiGroupStore } from './group'
import {
  defineKnowledgeTables,
  entityIndexKind,
  Knowledge,
  KnowledgeExtractor,
  KnowledgeLearner,
  knowledgeTools,
  knowledgeScope,
  KoishiKnowledgeStore,
  ProfileBook,
  recallKnowledge,
} from './knowledge'
import type { KnowledgeScope, ProfileRef } from './knowledge'
import { Maintenance } from './jobs/maintenance'
import { KeyedQueue } from './jobs/queue'
import { defineMessageTable, defineWatermarkTable, KoishiMessageStore, KoishiWatermarks, MessageIndex } from './messages'
import type { ChatLunaService } from './providers/chatluna'
import { chatlunaInstalled } from './providers/chatluna'
import { createProviders } from './providers/factory'
import type { DrainResult } from './store/index-sync'
import { IndexedTable, IndexRegistry } from './store/index-sync'
import { startTimers } from './jobs/timers'
import { DatabaseIndex, defineVectorTables } from './store/database-index'
import { LanceIndex } from './store/lance-index'
import { lanceLoadFailure } from './store/lance-library'
import { ScopeCache } from './store/scope-cache'
import { defineOutboxTable, KoishiOutbox } from './store/outbox'
import { createTopicSummaries, KoishiTopicSummaryStore } from './topic-summaries'
import { defineTopicTable, KoishiTopicStore, LlmTopicJudge, TopicAttributor } from './topics'
import { MemoryTransfer } from './transfer'

/**
 * The composition root: declares every table and builds every part of the memory from the console
 * configuration. The service is the public face of what this returns.
 */
export function composeMemory(ctx: Context, config: Config, counters: Counters, log: Logger) {
  defineMessageTable(ctx)
  defineWatermarkTable(ctx)
  defineFactTable(ctx)
  defineOutboxTable(ctx)
  defineTopicTable(ctx)
  defineChannelSummaryTable(ctx)
  defineEpisodeTable(ctx)
  defineContextTable(ctx)
  defineVectorTables(ctx)
  defineKnowledgeTables(ctx)

  // ChatLuna (optional) starts on `ready`, usually after the memory: its models are looked up at each call
  const chatluna = { installed: chatlunaInstalled(), source: () => ctx.get('chatluna') as ChatLunaService | undefined }
  const providers = createProviders(
    ctx.http,
    {
      embedding: { ...config.embedding, chatlunaModel: config.chatluna.embeddings },
      llm: { ...config.llm, chatlunaModel: config.chatluna.model },
      retryIntervalSeconds: config.store.retryIntervalSeconds,
    },
    counters,
    log,
    chatluna,
  )
  const { embedder, llm } = providers
  for (const [part, choice] of Object.entries(providers.choices)) {
    if (choice.fallback) log.warn(ctx.i18n.text([], [`memory.log.fallback-${part}-${choice.fallback}`], [choice.configured]))
  }
  const { prompts } = config
  const judge = createJudge(llm, { extraction: { zh: prompts.extractionZh, en: prompts.extractionEn } }, { counters, logger: log })

  const registry = new IndexRegistry({ logger: log })
  const lanceFailure = config.store.engine === 'auto' ? lanceLoadFailure() : undefined
  const used: 'lancedb' | 'database' = config.store.engine === 'database' || lanceFailure ? 'database' : 'lancedb'
  const engine = { configured: config.store.engine, used, lanceFailure }
  if (lanceFailure) log.warn(ctx.i18n.text([], ['memory.log.index-fallback'], [lanceFailure]))
  const databaseIndex = new DatabaseIndex(ctx, { logger: log, counters })
  const store =
    engine.used === 'database'
      ? databaseIndex
      : new LanceIndex({
          dir: storeDir(ctx, config),
          logger: log,
          counters,
          halfOpenAfterMs: config.store.retryIntervalSeconds * 1000,
          optimizeEveryWrites: config.store.optimizeEveryWrites,
          optimizeEveryMs: config.store.optimizeIntervalMinutes * 60_000,
          // both legs at once, fused in JS with LanceDB's RRF formula (docs/benchmarks.md)
          hybrid: 'parallel',
          onReindexNeeded: (table) => {
            index.invalidate(table)
            void registry.tableLost(table)
          },
        })
  const cacheBytes = (config.store.cacheMB ?? defaultCacheMB()) * 2 ** 20
  const index = new ScopeCache(store, { capBytes: cacheBytes, logger: log, counters })
  const outbox = new KoishiOutbox(ctx, instanceName(storeDir(ctx, config)))
  const sync = { index, embedder, outbox, counters, logger: log }
  const queue = new KeyedQueue({
    limit: config.memorize.queueLimit,
    concurrency: 2,
    counters,
    onError: (error) => log.warn('memory job failed: %s', (error as Error).message),
  })

  // a quarter of the cache's memory more holds whole channels for the context builder
  const messages = new KoishiMessageStore(ctx, { heldBytes: cacheBytes / 4, logger: log })
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
    facts,
  })
  const factLock = new KeyedLock()
  // when each user was last forgotten (this process): dialogues that waited meanwhile store nothing of them
  const forgotten = new Map<string, Date>()
  const memorizeFacts = (dialogue: Dialogue): Promise<MemorizeOutcome> =>
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
        lock: factLock,
        forgottenAt: (owner) => forgotten.get(factLockKey(owner)),
      },
      dialogue,
    )

  const knowledgeStore = new KoishiKnowledgeStore(ctx)
  const entityIndex = new IndexedTable(sync, entityIndexKind(knowledgeStore))
  const profiles = new ProfileBook({
    store: knowledgeStore,
    factsOf: async (ref, limit) => (await facts.list(ref, limit)).map((row) => row.content),
    llm,
    threshold: config.knowledge.consolidateAfter,
    counters,
    logger: log,
    now: () => new Date(),
  })
  const learner = new KnowledgeLearner({
    store: knowledgeStore,
    entityIndex,
    // the offline embedder only sees shared characters (上海, 上海交大): it merges by name and alias alone
    mergeSimilarity: embedder.lexical || config.knowledge.mergeSimilarity >= 1 ? undefined : config.knowledge.mergeSimilarity,
    extractor: new KnowledgeExtractor(log),
    profiles,
    counters,
    logger: log,
    newId: newFactId,
    now: () => new Date(),
    forgottenAt: (owner) => forgotten.get(factLockKey(owner)),
  })
  const knowledge = new Knowledge({ store: knowledgeStore, index: entityIndex, learner, profiles, logger: log, counters })
  /**
   * Facts, then the dialogue's structured knowledge (no model call: the judge's answer carries it, or
   * the offline rules read it), and the users whose facts changed get their profiles due sooner.
   */
  const memorizeDialogue = async (dialogue: Dialogue): Promise<MemorizeOutcome> => {
    const outcome = await memorizeFacts(dialogue)
    if (!config.knowledge.enabled || outcome.status === 'failed') return outcome
    await learner.learn(dialogue, 'extraction' in outcome ? outcome.extraction : undefined)
    if (outcome.status === 'stored')
      await noteNewFacts(
        dialogue,
        outcome.facts.map((stored) => stored.fact),
      )
    return outcome
  }
  const noteNewFacts = async (dialogue: Dialogue, stored: { platform: string; userId: string; guildId: string }[]) => {
    const perUser = new Map<string, number>()
    for (const fact of stored) perUser.set(fact.userId, (perUser.get(fact.userId) ?? 0) + 1)
    for (const [userId, count] of perUser) {
      const name = dialogue.turns.find((turn) => turn.userId === userId)?.name ?? userId
      await profiles
        .noteFacts({ platform: dialogue.owner.platform, guildId: dialogue.owner.guildId, userId }, name, count)
        .catch((error) => log.warn('could not update a profile: %s', (error as Error).message))
    }
  }

  const groups = createGroupMemories(ctx, {
    index,
    outbox,
    embedder,
    llm: () => llm,
    prompts: () => ({ zh: prompts.groupEvolveZh, en: prompts.groupEvolveEn }),
    counters,
    logger: log,
    options: {
      maxMemories: config.group.maxMemories,
      maxMessages: config.group.maxMessages,
      defaultDays: config.group.days,
      leaseMs: config.group.leaseSeconds * 1000,
      includeBotMessages: config.group.includeBotMessages,
      temperature: config.llm.temperature,
      searchThreshold: config.group.searchThreshold || undefined,
      mode: config.group.mode,
      expiryMs: config.group.reviewExpiryHours * 3_600_000,
    },
  })
  const summaries = createTopicSummaries(ctx, {
    topics,
    messages,
    index,
    outbox,
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

  // export and import go through each domain's own store and index, as a learnt row does
  const transfer = new MemoryTransfer({
    facts,
    factIndex,
    groups: new KoishiGroupStore(ctx),
    groupIndex: groups.index,
    topics,
    summaries: new KoishiTopicSummaryStore(ctx),
    summaryIndex: summaries.index,
    knowledge: knowledgeStore,
    entityIndex,
    embedderId: embedder.id,
    newId: newFactId,
    now: () => new Date(),
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
  for (const table of [factIndex, groups.index?.table, summaries.index?.table, messageIndex.indexed, episodes.indexed, entityIndex]) {
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
      groupEvery: config.memorize.groupEvery,
      quietMs: config.memorize.quietSeconds * 1000,
      afterReply: config.memorize.afterReply,
      retryMs: config.memorize.retrySeconds * 1000,
      maxAttempts: config.memorize.maxAttempts,
      commandPrefixes: config.memorize.commandPrefixes,
      topics: config.topics.enabled,
      summaries: config.summaries.enabled,
    },
    write: (rows) => messages.upsert(rows),
    journal: new CaptureJournal(journalDir(ctx, config), log),
    messages,
    watermarks: new KoishiWatermarks(ctx),
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

  /** A user's facts relevant to `query`, in a scope that names the user (none without one). Never throws. */
  const recallFacts = async (
    scope: Scope,
    query: string,
    topK = config.retrieval.topK,
    minScore = config.retrieval.minScore,
    options: RecallOptions = {},
  ) => (scope.userId ? retriever.retrieve(scope, query, topK, minScore, options) : [])
  /**
   * Knowledge-aware recall (seed 000 §4.2): the user's facts, their preferences, the relations and
   * entities the query names in the scope's knowledge, fused by rank. Never throws.
   */
  const recallWithKnowledge = async (scope: Scope & { platform: string; userId: string }, query: string, topK = config.retrieval.topK) => {
    try {
      const found = await recallFacts(scope, query, topK)
      const rows = new Map((await facts.get(found.map((memory) => memory.id))).map((row) => [row.id, row]))
      const where = knowledgeScope({ platform: scope.platform, guildId: scope.guildId ?? '', userId: scope.userId })
      return await recallKnowledge(
        knowledgeStore,
        where,
        query,
        {
          facts: found.map((memory) => ({ text: memory.content, sourceIds: rows.get(memory.id)?.sourceIds ?? [] })),
          entities: config.knowledge.enabled ? await knowledge.searchEntities(where, query, { limit: topK }) : [],
          profile: config.knowledge.enabled
            ? await knowledge.getUserProfile({ platform: scope.platform, userId: scope.userId, guildId: scope.guildId ?? '' })
            : undefined,
        },
        topK,
      )
    } catch (error) {
      log.warn('knowledge recall failed, returning nothing: %s', (error as Error).message)
      return []
    }
  }
  const contextBuilder = new ContextBuilder(
    {
      store: messages,
      search: quickSearch(messageIndex),
      similarities: (channel, vector, ids) => messageIndex.similarities(channel, vector, ids),
      embedder,
      termStats,
      longTerm: (target, topK) =>
        recallFacts({ platform: target.platform, userId: target.userId, guildId: target.guildId || undefined }, target.content, topK),
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
    knowledge,
    purgeIndex: () => registry.purgeErased(),
    lock: factLock,
    fence: (owner, at) => void forgotten.set(factLockKey(owner), at),
    counters,
  })

  /** A fact said anew by hand (the console's edit): a new version, the old one closed (`reviseFact`). */
  const reviseUserFact = (owner: { platform: string; userId: string }, id: string, statement: string, by: string) =>
    reviseFact({ facts, factIndex, counters, newId: newFactId, now: () => new Date(), lock: factLock }, owner, id, statement, by)

  /** A user's profiles (each guild, and their private chat) and the entities drawn from what they said. */
  const userKnowledge = async (owner: { platform: string; userId: string }) => {
    const said = await messages.ofUser(owner.platform, owner.userId)
    const [profiles, entities] = await Promise.all([
      knowledgeStore.profilesOf(owner),
      knowledgeStore.entitiesFrom(
        owner.platform,
        said.map((row) => row.id),
      ),
    ])
    return { profiles, entities }
  }

  const maintenance = new Maintenance({
    queue,
    onTopicsClosed: (closed) => capture.topicsClosed(closed),
    attributor,
    summaries,
    groups,
    hasModel: Boolean(llm),
    summariesEnabled: config.summaries.enabled,
    evolutionDays: config.group.days,
    evolutionMinMessages: config.group.minMessages,
    promoteTopics: config.knowledge.enabled ? (topics, limit) => knowledge.promoteTopics(topics, limit) : undefined,
    hotTopic: { minMessages: config.knowledge.hotTopicMessages, minParticipants: config.knowledge.hotTopicParticipants },
    logger: log,
  })

  /** Carries out the index work waiting in the outbox (one drain at a time). Never throws. */
  const drainOutbox = async (): Promise<DrainResult> => {
    try {
      const result = await registry.drain()
      if (result.indexed) log.info('indexed %d waiting memories', result.indexed)
      return result
    } catch (error) {
      // the database itself failed: try again on the next round (at shutdown, say nothing)
      if (ctx.scope.isActive) log.warn('could not read the outbox: %s', (error as Error).message)
      return { indexed: 0, pending: true }
    }
  }

  const start = async () => {
    await index.open()
    await registry.prepare()
    // the database index served while LanceDB could not: LanceDB's copy lacks what was said and keeps what was erased since
    if (store !== databaseIndex && (await databaseIndex.served()) && (await registry.resetAll())) await databaseIndex.forgetAll()
    await registry.reconcile()
    await capture.replayJournal().catch((error) => {
      log.warn('could not store the messages the last run left in its journal, will try at the next start: %s', (error as Error).message)
    })
    await capture.restore(new Date(Date.now() - RESTORE_DAYS * 86_400_000)).catch((error) => {
      log.warn('could not read back the dialogues that wait to be memorised: %s', (error as Error).message)
    })
    startTimers(
      ctx,
      {
        retryIntervalSeconds: config.store.retryIntervalSeconds,
        closeIntervalMinutes: config.topics.closeIntervalMinutes,
        summaryIntervalMinutes: config.summaries.enabled ? config.summaries.scheduleIntervalMinutes : 0,
        evolutionHour: config.group.timer ? config.group.hour : undefined,
        quietSeconds: config.memorize.enabled ? config.memorize.quietSeconds : 0,
      },
      {
        drainOutbox: () => void drainOutbox(),
        closeIdleTopics: () => void maintenance.closeIdleTopics(),
        summarizeTopics: () => maintenance.summarizeTopics(),
        evolveGroups: () => void maintenance.evolveDueGroups(),
        endQuietDialogues: () => capture.sweep(),
        reconcileIndexes: () => void registry.reconcile().then(() => drainOutbox()),
        expireReviews: () => void maintenance.expireReviews(),
        // the same hourly timer promotes hot mid-term topics into long-term knowledge
        consolidateProfiles: () =>
          void profiles
            .consolidateDue()
            .catch((error: Error) => log.warn('consolidating profiles failed: %s', error.message))
            .then(() => maintenance.promoteHotTopics()),
      },
    )
  }

  const stop = async () => {
    // what waits to be memorised is dropped first: the watermarks bring it back at the next start, and
    // no job meets a database already gone
    capture.stop()
    queue.clear()
    await capture.flush()
    await messageIndex.flush()
    await queue.idle()
    await messages.settled()
    await index.close()
  }

  /** `topicSearch` of a channel as an LLM tool definition (name, JSON schema, handler). */
  const searchTool = (channel: { platform: string; channelId?: string }, options?: TopicSearchOptions) =>
    topicSearchTool(
      {
        search: quickSearch(messageIndex),
        store: messages,
        topics: {
          list: async (channel, { limit }) =>
            (await topics.list(channel, limit)).map((topic) => ({
              id: topic.id,
              title: topic.title,
              updatedAt: topic.updatedAt,
              active: topic.active,
            })),
        },
        summaries: summaries.searchSummaries,
      },
      channel,
      options,
    )

  /** The knowledge tools of a session's scope and user (`searchEntities`, `getUserProfile`, `queryGraph`). */
  const knowledgeToolsFor = (scope: KnowledgeScope, user: ProfileRef) => knowledgeTools(knowledge, scope, user)

  return {
    start,
    recallFacts,
    recallWithKnowledge,
    searchTool,
    knowledgeTools: knowledgeToolsFor,
    knowledge,
    stop,
    drainOutbox,
    providers: { ...providers, judge, chatluna },
    engine,
    maintenance,
    index,
    registry,
    queue,
    messages,
    messageIndex,
    termStats,
    topics,
    facts,
    factIndex,
    memorize: memorizeDialogue,
    groups,
    summaries,
    episodes,
    contextLog,
    contextBuilder,
    capture,
    eraser,
    outbox,
    transfer,
    reviseFact: reviseUserFact,
    userKnowledge,
  }
}

export type MemoryParts = ReturnType<typeof composeMemory>

/** At start, dialogues interrupted this recently are read back from the message table. */
const RESTORE_DAYS = 3

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

/**
 * This instance's name in the shared outbox: its machine and index folder, so each instance does its
 * own index's work, and a restart finds what it left.
 */
function instanceName(dir: string): string {
  return createHash('sha1').update(`${hostname()}:${dir}`).digest('hex').slice(0, 10)
}

function storeDir(ctx: Context, config: Config): string {
  return resolve(ctx.baseDir ?? process.cwd(), config.store.path)
}

/** Beside the LanceDB folder, one per instance: `data/memory/lancedb-journal`. */
function journalDir(ctx: Context, config: Config): string {
  const dir = storeDir(ctx, config)
  return join(dirname(dir), `${basename(dir)}-journal`)
}

function newFactId() {
  // short enough to type in `memory.forget <id>`
  return randomBytes(5).toString('hex')
}
