import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import type { Context } from 'koishi'
import { CaptureJournal, CapturePipeline } from './capture'
import { composeIndex, storeDir } from './compose-index'
import type { EngineChoice } from './compose-index'
import type { Config } from './config'
import { ForgetFence } from './core/forget-fence'
import type { Counters, Logger } from './core/observability'
import { Eraser } from './erase'
import { defaultLexicalShare } from './facts'
import { Maintenance } from './jobs'
import { KeyedQueue } from './core/keyed-queue'
import { Lifecycle } from './lifecycle'
import { createMemorizer } from './memorize'
import { MemoryModules } from './module'
import { memoryModules } from './modules'
import type { ChatLunaService } from './providers/chatluna'
import { chatlunaInstalled } from './providers/chatluna'
import { createProviders } from './providers/factory'
import { createContextBuilder, Recall } from './recall'
import { sessionScope } from './scope'
import { MemoryTransfer } from './transfer'

/**
 * The composition root: builds the infrastructure, the registered memory kinds and the flows that run
 * across them (capture, memorize, recall, forget, transfer, maintenance), and connects them. Nothing
 * here decides anything; the service is the public face of what this returns.
 */
export function composeMemory(ctx: Context, config: Config, counters: Counters, log: Logger) {
  const providers = composeProviders(ctx, config, counters, log)
  const { embedder, llm } = providers
  const infra = composeIndex(ctx, config, counters, log)
  const { registry, index, outbox } = infra
  const fence = new ForgetFence()
  const sync = { index, embedder, outbox, counters, logger: log }
  const now = () => new Date()
  const modules = new MemoryModules(
    // a quarter of the cache's memory more holds whole channels for the context builder
    { ctx, embedder, llm, index, outbox, sync, heldBytes: infra.cacheBytes / 4, fence, counters, logger: log, newId, now },
    memoryModules(config, embedder),
  )
  for (const table of modules.indexes()) registry.add(table)
  const part = modules.env.part
  const [messages, topics, channelSummaries, topicSummaries] = [
    part('messages'),
    part('topics'),
    part('channelSummaries'),
    part('topicSummaries'),
  ]
  const [facts, episodes, context, group, knowledge] = [part('facts'), part('episodes'), part('context'), part('group'), part('knowledge')]

  const memorize = createMemorizer(
    { facts, knowledge, embedder, fence, counters, logger: log, newId, now },
    {
      knowledge: config.knowledge.enabled,
      dedupeThreshold: config.retrieval.dedupeThreshold,
      commandPrefixes: config.memorize.commandPrefixes,
    },
  )
  const queue = new KeyedQueue({
    limit: config.memorize.queueLimit,
    concurrency: 2,
    counters,
    onError: (error) => log.warn('memory job failed: %s', (error as Error).message),
  })
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
    write: (rows) => messages.store.upsert(rows),
    journal: new CaptureJournal(journalDir(ctx, config), log),
    messages: messages.store,
    watermarks: messages.watermarks,
    messageIndex: messages.index,
    termStats: context.termStats,
    attributor: topics.attributor,
    rolling: channelSummaries.rolling,
    summaries: topicSummaries.summaries,
    episodes,
    contextLog: context.log,
    queue,
    memorize,
    isCommandName: (name, session) => Boolean(ctx.$commander.get(name, session)),
    schedule: (callback, ms) => ctx.setTimeout(callback, ms),
    counters,
    logger: log,
  })

  const recallSettings = {
    topK: config.retrieval.topK,
    minScore: config.retrieval.minScore,
    knowledge: config.knowledge.enabled,
    profileTokens: config.knowledge.profileTokens,
  }
  const builder = createContextBuilder(
    {
      messages,
      context,
      channelSummaries,
      group,
      embedder,
      longTerm: (target, topK) => recall.facts(sessionScope(target), target.content, topK),
      counters,
      logger: log,
    },
    {
      ...config.context,
      lexicalShare: config.retrieval.lexicalShare ?? defaultLexicalShare(embedder),
    },
  )
  const recall = new Recall(
    { facts, knowledge, messages, topics, topicSummaries, episodes, builder, flushCapture: () => capture.flush(), counters, logger: log },
    recallSettings,
  )

  const eraser = new Eraser({
    capture,
    facts: facts.repository,
    factIndex: facts.index,
    messages: messages.store,
    erasures: modules.erasures(),
    purgeIndex: () => registry.purgeErased(),
    lock: facts.lock,
    fence,
    counters,
  })
  // export and import go through each kind's own store and index, as a learnt row does
  const transfer = new MemoryTransfer({
    facts: facts.repository,
    factIndex: facts.index,
    groups: group.store,
    groupIndex: group.memories.index,
    topics: topics.store,
    summaries: topicSummaries.store,
    summaryIndex: topicSummaries.summaries.index,
    knowledge: knowledge.store,
    entityIndex: knowledge.entityIndex,
    embedderId: embedder.id,
    newId,
    now,
  })
  const maintenance = new Maintenance({
    queue,
    onTopicsClosed: (closed) => capture.topicsClosed(closed),
    attributor: topics.attributor,
    summaries: topicSummaries.summaries,
    groups: group.memories,
    hasModel: Boolean(llm),
    summariesEnabled: config.summaries.enabled,
    evolutionDays: config.group.days,
    evolutionMinMessages: config.group.minMessages,
    promoteTopics: config.knowledge.enabled ? (hot, limit) => knowledge.knowledge.promoteTopics(hot, limit) : undefined,
    hotTopic: { minMessages: config.knowledge.hotTopicMessages, minParticipants: config.knowledge.hotTopicParticipants },
    logger: log,
  })
  const lifecycle = new Lifecycle({ ctx, config, ...infra, capture, queue, messages, knowledge, maintenance, logger: log })

  return {
    counters,
    providers,
    engine: infra.engine as EngineChoice,
    index,
    registry,
    outbox,
    modules,
    queue,
    capture,
    memorize,
    recall,
    builder,
    eraser,
    transfer,
    maintenance,
    lifecycle,
  }
}

/** What `composeMemory` builds: the parts the service, the reply pipeline, tests and benchmarks reach. */
export type Memory = ReturnType<typeof composeMemory>

/** The embedder, the memory's model and the fact judge's model, with a line for each setting that fell back. */
function composeProviders(ctx: Context, config: Config, counters: Counters, log: Logger) {
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
  for (const [kind, choice] of Object.entries(providers.choices)) {
    if (choice.fallback) log.warn(ctx.i18n.text([], [`memory.log.fallback-${kind}-${choice.fallback}`], [choice.configured]))
  }
  return { ...providers, chatluna }
}

/** Beside the LanceDB folder, one per instance: `data/memory/lancedb-journal`. */
function journalDir(ctx: Context, config: Config): string {
  const dir = storeDir(ctx, config)
  return join(dirname(dir), `${basename(dir)}-journal`)
}

function newId() {
  // short enough to type in `memory.forget <id>`
  return randomBytes(5).toString('hex')
}

/** Where a service keeps its parts: a symbol only this module knows, so no face can reach them by name. */
const INTERNALS = Symbol('memory.internals')

/** Keeps the parts behind a service, for `internalsOf`. */
export function registerInternals(service: object, memory: Memory): void {
  Object.defineProperty(service, INTERNALS, { value: memory })
}

/**
 * The composed parts behind a `ctx.memory` (Koishi hands out the service behind a proxy, so they are
 * found on it by key): for tests and benchmarks that plant faults or read what a user cannot (an
 * index's rows, a counter). The plugin's own faces use the service's public API.
 */
export function internalsOf(service: object): Memory {
  const memory = (service as { [INTERNALS]?: Memory })[INTERNALS]
  if (!memory) throw new Error('not a memory service')
  return memory
}
