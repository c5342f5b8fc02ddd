import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import type { Context } from 'koishi'
import { CaptureJournal, CapturePipeline, ChatEvents } from './capture'
import { composeIndex, storeDir } from './compose-index'
import type { Config } from './config'
import { ForgetFence, KoishiForgetMarks } from './store/forget-fence'
import type { Counters, Logger } from './core/observability'
import { Eraser, exportsHolding, removeExports } from './erase'
import { defaultLexicalShare } from './facts'
import { Maintenance } from './jobs'
import { Foreground } from './core/foreground'
import { KeyedQueue } from './core/keyed-queue'
import { Lifecycle } from './lifecycle'
import { createMemorizer } from './memorize'
import { MemoryModules } from './module'
import { memoryModules } from './modules'
import { composeProviders } from './compose-providers'
import { BudgetedLLM, BudgetGate, budgetOwnerOf, defineBudgetTables, KoishiBudgetStore } from './budget'
import { createContextBuilder, Recall } from './recall'
import { sessionScope } from './scope'
import { exportDir, MemoryTransfer } from './transfer'
import type { MessageRow } from './messages'
import type { ScopeCache } from './store/scope-cache'

/**
 * The composition root: builds the infrastructure, the registered memory kinds and the flows that run
 * across them (capture, memorize, recall, forget, transfer, maintenance), and connects them. Nothing
 * here decides anything; the service is the public face of what this returns.
 */
export function composeMemory(ctx: Context, config: Config, counters: Counters, log: Logger) {
  const providers = composeProviders(ctx, config, counters, log)
  const now = () => new Date()
  defineBudgetTables(ctx)
  const budgets = new BudgetGate({ store: new KoishiBudgetStore(ctx), defaults: config.budget ?? {}, now, logger: log })
  const { embedder } = providers
  // every model call of the memory goes through the budgets; embeddings do not (see docs/architecture.md)
  const llm = providers.llm && new BudgetedLLM(providers.llm, budgets)
  const infra = composeIndex(ctx, config, counters, log)
  const { registry, index, outbox, marks } = infra
  const fence = new ForgetFence(new KoishiForgetMarks(ctx))
  const foreground = new Foreground()
  const sync = { index, embedder, outbox, marks, counters, logger: log, yieldToReads: () => foreground.clear() }
  const modules = new MemoryModules(
    {
      ...{ ctx, embedder, llm, index, outbox, sync, budget: infra.budget, fence, counters, logger: log, newId, now },
      charge: (where, work) => budgets.run(budgetOwnerOf(where), work),
    },
    memoryModules(config, embedder),
  )
  for (const table of modules.indexes()) registry.add(table)
  const part = modules.env.part
  const [messages, topics, topicSummaries] = [part('messages'), part('topics'), part('topicSummaries')]
  const [facts, group, knowledge] = [part('facts'), part('group'), part('knowledge')]
  const memorize = createMemorizer(
    { facts, knowledge, embedder, fence, counters, logger: log, newId, now, budget: budgets },
    {
      knowledge: config.knowledge.enabled,
      dedupeThreshold: config.retrieval.dedupeThreshold,
      commandPrefixes: config.memorize.commandPrefixes,
    },
  )
  const queue = new KeyedQueue({
    limit: config.memorize.queueLimit,
    concurrency: 2,
    gate: () => foreground.clear(),
    counters,
    onError: (error) => log.warn('memory job failed: %s', (error as Error).message),
  })
  const capture = composeCapture(ctx, config, modules, { queue, memorize, budgets, counters, log })
  const { recall, builder } = composeRecall(config, modules, () => capture.flush(), { foreground, budgets, counters, log })

  const eraser = new Eraser({
    capture,
    facts: facts.store,
    factIndex: facts.index,
    messages: messages.store,
    erasures: modules.erasures(),
    purgeIndex: () => registry.purgeErased(),
    schedule: (callback, ms) => ctx.setTimeout(callback, ms),
    lock: facts.lock,
    fence,
    sweepExports: async (needles) => removeExports(await exportsHolding(exportDir(ctx.baseDir), needles)),
    counters,
  })
  // a recall, a delete or an edit in the chat goes through the same erasure as a forget
  const chatEvents = new ChatEvents({
    records: (session) => capture.records(session),
    find: (channel, messageId) => messages.store.byPlatformId(channel, messageId),
    capture,
    erase: (row, options) => eraser.forgetMessage(row, options),
    store: async (row) => {
      await messages.store.upsert([row])
      messages.index.add([row])
    },
    placeholders: config.capture.placeholders,
    counters,
    logger: log,
  })
  // export and import go through each kind's own store and index, as a learnt row does
  const transfer = new MemoryTransfer({
    facts: facts.store,
    factIndex: facts.index,
    groups: group.store,
    groupIndex: group.memories.index,
    topics: topics.store,
    summaries: topicSummaries.store,
    summaryIndex: topicSummaries.summaries.index,
    knowledge: knowledge.store,
    messages: messages.store,
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
    budgets,
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
    budgets,
    engine: infra.engine,
    index,
    registry,
    outbox,
    modules,
    queue,
    capture,
    chatEvents,
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

/** Capture over the kinds a message feeds, with the console's capture and memorise settings. */
function composeCapture(
  ctx: Context,
  config: Config,
  modules: MemoryModules,
  deps: { queue: KeyedQueue; memorize: ReturnType<typeof createMemorizer>; budgets: BudgetGate; counters: Counters; log: Logger },
) {
  const part = modules.env.part
  const [messages, context] = [part('messages'), part('context')]
  return new CapturePipeline({
    options: {
      ...config.capture,
      memorize: config.memorize.enabled,
      privateEvery: config.memorize.privateEvery,
      groupEvery: config.memorize.groupEvery,
      quietMs: config.memorize.quietSeconds * 1000,
      privateQuietMs: config.memorize.privateQuietSeconds * 1000,
      afterReply: config.memorize.afterReply,
      retryMs: config.memorize.retrySeconds * 1000,
      maxAttempts: config.memorize.maxAttempts,
      commandPrefixes: config.memorize.commandPrefixes,
      topics: config.topics.enabled,
      summaries: config.summaries.enabled,
    },
    write: (rows) => messages.store.upsert(rows),
    journal: new CaptureJournal(journalDir(ctx, config), deps.log),
    messages: messages.store,
    watermarks: messages.watermarks,
    messageIndex: messages.index,
    warm: (row) =>
      warmScopes(
        modules.env.index,
        { facts: part('facts').index.table, messages: messages.index.table, group: part('group').memories.index?.table.table },
        row,
      ),
    termStats: context.termStats,
    attributor: part('topics').attributor,
    rolling: part('channelSummaries').rolling,
    summaries: part('topicSummaries').summaries,
    episodes: part('episodes'),
    contextLog: context.log,
    queue: deps.queue,
    memorize: deps.memorize,
    // the bot's own line in a private chat names the bot, not the user whose budget it is
    chargeTo: (row, work) => (row.guildId || row.role === 'user' ? deps.budgets.run(budgetOwnerOf(row), work) : work()),
    commandName: (name, session) => ctx.$commander.get(name, session)?.name,
    schedule: (callback, ms) => ctx.setTimeout(callback, ms),
    counters: deps.counters,
    logger: deps.log,
  })
}

/**
 * The scopes a reply to `row` searches: its speaker's facts, the lines of the guild (or of the private chat)
 * and of the channel, and the group's memory.
 */
function warmScopes(index: ScopeCache, tables: { facts: string; messages: string; group?: string }, row: MessageRow) {
  const { platform, userId, guildId, channelId } = row
  index.warm(tables.facts, sessionScope({ platform, userId, guildId: guildId || undefined }))
  index.warm(tables.messages, guildId ? { platform, guildId } : { platform, userId })
  index.warm(tables.messages, { platform, channelId })
  if (guildId && tables.group) index.warm(tables.group, { platform, guildId })
}

/** Recall over the kinds a reply draws on, and the context builder it builds with. */
function composeRecall(
  config: Config,
  modules: MemoryModules,
  flushCapture: () => Promise<void>,
  deps: { foreground: Foreground; budgets: BudgetGate; counters: Counters; log: Logger },
) {
  const part = modules.env.part
  const { embedder } = modules.env
  const { foreground, counters, log } = deps
  const builder = createContextBuilder(
    {
      messages: part('messages'),
      context: part('context'),
      channelSummaries: part('channelSummaries'),
      group: part('group'),
      embedder,
      longTerm: (target, topK) => recall.facts(sessionScope(target), target.content, topK),
      budget: modules.env.budget,
      counters,
      logger: log,
    },
    { ...config.context, lexicalShare: config.retrieval.lexicalShare ?? defaultLexicalShare(embedder) },
  )
  const recall = new Recall(
    {
      facts: part('facts'),
      knowledge: part('knowledge'),
      messages: part('messages'),
      topics: part('topics'),
      topicSummaries: part('topicSummaries'),
      episodes: part('episodes'),
      builder,
      flushCapture,
      foreground,
      counters,
      logger: log,
      lexicalShare: config.retrieval.lexicalShare ?? defaultLexicalShare(embedder),
      tokenCap: (target, asked) => deps.budgets.replyTokens(budgetOwnerOf(target), asked ?? config.context.tokenBudget),
    },
    {
      topK: config.retrieval.topK,
      minScore: config.retrieval.minScore,
      knowledge: config.knowledge.enabled,
      profileTokens: config.knowledge.profileTokens,
    },
  )
  return { recall, builder }
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
