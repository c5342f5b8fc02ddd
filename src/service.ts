import type { Context, Session } from 'koishi'
import { Service } from 'koishi'
import { isSession, targetOf } from './capture'
import type { Memory } from './compose'
import { composeMemory, registerInternals } from './compose'
import type { EngineChoice } from './compose-index'
import { composeReplier } from './compose-reply'
import type { Config } from './config'
import type { BuiltContext, ContextOptions, ContextTarget } from './context'
import { Counters } from './core/observability'
import type { Dialogue, FactRow, ListOptions, MemorizeOutcome, RetrievedMemory, ReviseResult } from './facts'
import { formatForPrompt } from './facts'
import type { EvolutionMode, GroupRef, ReviewDecision, ReviewQueueResponse } from './group'
import type {
  EntityDetails,
  EntityRow,
  EntityType,
  FoundEntity,
  Graph,
  GraphOptions,
  KnowledgeScope,
  ProfileRow,
  RecalledItem,
} from './knowledge'
import { knowledgeScope } from './knowledge'
import type { BudgetReport } from './core/memory-budget'
import type { MirrorStats } from './messages'
import type { Providers } from './providers/factory'
import type { ChatMessage, ToolDefinition } from './providers/types'
import type { ForgetReport } from './erase'
import type { RecalledMemory } from './recall'
import type { ReplyState } from './reply'
import type { PersonRef, Scope, UserRef } from './scope'
import { personOf, sessionScope } from './scope'
import type { DrainResult, RebuildResult } from './store/index-sync'
import type { ScopeCacheStats } from './store/scope-cache'
import type { ExportResult, ExportSelection, ImportOptions, ImportResult, ImportSource } from './transfer'
import { facadeOf } from './facade'
import type { WaitingPlace, WaitingReport } from './capture'
import { pickChats } from './capture'
import type { BudgetApi, FactReads, GroupMemoryApi, MessageReads, Metrics, TopicReads } from './facade'

declare module 'koishi' {
  interface Context {
    memory: MemoryService
  }
}

export type { BudgetApi, FactReads, GroupMemoryApi, MessageReads, Metrics, TopicReads } from './facade'

export interface RetrieveOptions {
  platform?: string
  /** The guild the caller is in; `''` for a private chat. Left out: every guild of the user. */
  guildId?: string
  topK?: number
  minScore?: number
  /** Also facts a newer statement closed, each with its `validTo`; by default only current ones. */
  history?: boolean
  /** Facts only: no line the user said is listed for itself. */
  factsOnly?: boolean
}

export interface MemoryStatus {
  embedder: string
  llm: string
  /** Which provider each setting names and which one is in use (and why not the named one). */
  choices: Providers['choices']
  /** Which vector index is in use, and why not LanceDB when it could not load. */
  index: EngineChoice
  /** The scope cache in front of the index: what it holds against its cap, and how often it answered. */
  cache: ScopeCacheStats
  /** The channels whose messages are held in memory for the context builder, against their cap. */
  held: MirrorStats
  /** The memory budget (`store.memoryMB`): what each cache holds against its share. */
  memory: BudgetReport
  breakers: Record<string, string>
  queue: number
  captureBuffer: number
  outbox: number
  /** Dialogues that wait to end before they are memorised. */
  dialogues: number
  facts: number
  counters: Record<string, number>
}

/** One LanceDB table as the health page shows it. */
export interface IndexTableHealth {
  table: string
  name: string
  /** Rows in the index; null when the index cannot be read. */
  rows: number | null
  optimizedAt: Date | undefined
}

/** Where a session's knowledge lives: its group, or the user's private chat. */
function scopeOf(scope: KnowledgeScope | Session): KnowledgeScope {
  return 'event' in scope ? knowledgeScope(personOf(scope)) : scope
}

/**
 * The `memory` service: the public API, the same for other plugins and for the plugin's own commands,
 * HTTP routes, console page and ChatLuna bridge. Each method hands its work to a flow or a kind.
 */
export class MemoryService extends Service {
  static inject = { database: { required: true }, http: { required: false }, chatluna: { required: false } }

  /** Group memory: list, search, history, edits and evolution of one group's memories. */
  readonly groups: GroupMemoryApi
  /** Facts by id, how many there are, and the versions of one. */
  readonly facts: FactReads
  /** Captured messages as the owner's tools read them. */
  readonly messages: MessageReads
  /** Topics and their summaries. */
  readonly topics: TopicReads
  /** What the replies saw and how the memory ran, for `memory.stats` and the health page. */
  readonly metrics: Metrics
  /** Model-call budgets per group (per user in a private chat): limits, today's spend, each owner's own setting. */
  readonly budgets: BudgetApi
  private readonly memory: Memory
  private readonly replier: ReturnType<typeof composeReplier>

  constructor(
    ctx: Context,
    public config: Config,
  ) {
    super(ctx, 'memory')
    const counters = new Counters()
    const log = ctx.logger('memory')
    const memory = (this.memory = composeMemory(ctx, config, counters, log))
    registerInternals(this, memory)
    ;({
      groups: this.groups,
      facts: this.facts,
      messages: this.messages,
      topics: this.topics,
      metrics: this.metrics,
      budgets: this.budgets,
    } = facadeOf(memory))
    memory.capture.listen(ctx)
    memory.chatEvents.listen(ctx)
    this.replier = composeReplier(ctx, config, memory, counters, log)
  }

  protected start() {
    return this.memory.lifecycle.start()
  }

  protected stop() {
    return this.memory.lifecycle.stop()
  }

  private targetOf(message: Session | ContextTarget): ContextTarget {
    return isSession(message) ? targetOf(message, this.config.capture.placeholders) : message
  }

  /**
   * Memories of a user relevant to `query`, best first: facts and lines the user said, fused; each
   * says its `kind` and carries its `sources` (the lines it stands on, with speaker and time). Pass
   * the session to stay inside its guild (a group chat sees only what was learnt in that group).
   * Never throws.
   */
  async retrieve(user: string | Session, query: string, options: RetrieveOptions = {}): Promise<RecalledMemory[]> {
    const scope = typeof user === 'string' ? { platform: options.platform, userId: user, guildId: options.guildId } : sessionScope(user)
    return this.memory.recall.memories(scope, query, options)
  }

  /**
   * What the memory knows for `query` (design §4.7): the user's memories (facts and lines), their
   * preferences, and the relations of the entities the query names in the group's (or the private
   * chat's) knowledge, best first, each with the messages it came from. Never throws.
   */
  recallKnowledge(user: string | Session, query: string, options: RetrieveOptions = {}): Promise<RecalledItem[]> {
    const scope =
      typeof user === 'string' ? { platform: options.platform ?? '', userId: user, guildId: options.guildId } : sessionScope(user)
    if (!scope.platform || !scope.userId) return Promise.resolve([])
    return this.memory.recall.withKnowledge({ ...scope, platform: scope.platform, userId: scope.userId }, query, options.topK)
  }

  formatForPrompt(memories: Pick<RetrievedMemory, 'content'>[], heading?: string) {
    return formatForPrompt(memories, heading)
  }

  /** Runs the post-dialogue chain now: facts, then entities, relations and profiles. */
  considerMemorizing(dialogue: Dialogue): Promise<MemorizeOutcome> {
    return this.memory.memorize(dialogue)
  }

  /** Stores a fact as it is (an import, a benchmark) and indexes it; false when the index row waits in the outbox. */
  async remember(fact: FactRow): Promise<boolean> {
    const facts = this.memory.modules.part('facts')
    await facts.store.insert(fact)
    return facts.index.put([fact])
  }

  /** Current facts of a scope, newest first; with `history`, the closed ones too. */
  list(scope: Scope, limit = 20, offset = 0, options: ListOptions = {}): Promise<FactRow[]> {
    return this.memory.modules.part('facts').store.list(scope, limit, offset, options)
  }

  /** Erases facts of `owner` by id, with the messages they came from. Returns the ids erased. */
  async forget(owner: UserRef, ids: string[]): Promise<string[]> {
    return (await this.memory.eraser.forget(owner, ids)).facts
  }

  /** Erases every fact and every captured message of a user on a platform. Returns how many facts went. */
  async forgetAll(owner: UserRef): Promise<number> {
    return (await this.memory.eraser.forgetAll(owner)).facts.length
  }

  /**
   * `forget` (facts by id) or `forgetAll` (`'all'`), telling what went of each kind: facts, the user's
   * messages, the bot's replies, contexts, summaries, episodes, group memories, entities, relations, profiles.
   */
  erase(owner: UserRef, target: string[] | 'all'): Promise<ForgetReport> {
    return target === 'all' ? this.memory.eraser.forgetAll(owner) : this.memory.eraser.forget(owner, target)
  }

  /**
   * Says a current fact of `owner` anew (the console's edit): never an overwrite — the statement is a new
   * version (`parentId` the old fact), the old one is closed by it and stays in the history. `by` names
   * who edited it, kept in the new version's reason.
   */
  editFact(owner: UserRef, id: string, statement: string, options: { by?: string } = {}): Promise<ReviseResult> {
    return this.memory.modules.part('facts').revise(owner, id, statement, options.by ?? '')
  }

  /** A user's profiles (in each group, and in their private chat) and the entities drawn from what they said. */
  userKnowledge(owner: UserRef): Promise<{ profiles: ProfileRow[]; entities: EntityRow[] }> {
    return this.memory.recall.userKnowledge(owner)
  }

  /**
   * One user's memory (`{ user: { platform, userId } }`), one group's (`{ group: { platform, guildId } }`)
   * or everything (`{ all: true }`) as JSON Lines: facts with their versions and sources, group memories
   * with their history and change log, topics and their summaries, profiles, entities and relations.
   */
  exportMemory(selection: ExportSelection): Promise<ExportResult> {
    return this.memory.transfer.export(selection)
  }

  /** The same export handed to `write` a chunk of whole lines at a time (never one string); not called when it is empty. */
  exportMemoryTo(selection: ExportSelection, write: (chunk: string) => Promise<void>): Promise<Omit<ExportResult, 'text'>> {
    return this.memory.transfer.exportTo(selection, write)
  }

  /**
   * Re-creates what an export holds (ours, or mem0's memories as JSON, `{results}` or JSON Lines: facts of
   * their `user_id`, or of `options.userId`, on `options.platform`), stored and indexed like learnt rows.
   * Duplicates are skipped and counted; a bad line (a field longer than `FIELD_MAX_BYTES`, a reference to
   * another person's or group's row, a second line with the same id and other content) is reported with
   * its number and the rest imported. `input` is the text, or a source read a chunk at a time
   * (`fileSource(path)`), so a file is never held whole.
   */
  importMemory(input: string | ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
    return this.memory.transfer.import(input, options)
  }

  /** Carries out the index work waiting in the outbox (one drain at a time), once the start-up work has queued what it found. */
  async flushOutbox(): Promise<DrainResult> {
    await this.memory.lifecycle.ready()
    return this.memory.lifecycle.drainOutbox()
  }

  /** LanceDB tables `reindex` can rebuild, with the name of their rows. */
  indexTables(): { table: string; name: string }[] {
    const { registry } = this.memory
    return registry.names().map((table) => ({ table, name: registry.get(table)!.name }))
  }

  /** Each index table with its row count and when it was last optimised. */
  async indexHealth(): Promise<IndexTableHealth[]> {
    const { index } = this.memory
    const tables: IndexTableHealth[] = []
    for (const { table, name } of this.indexTables()) {
      const rows = await index.count(table).catch(() => null)
      tables.push({ table, name, rows, optimizedAt: index.optimizedAt?.(table) })
    }
    return tables
  }

  /** Rebuilds LanceDB tables from the database (all, or the one named), table by table. */
  reindex(table?: string, progress?: (result: RebuildResult) => void): Promise<RebuildResult[]> {
    return this.memory.registry.rebuild(table, progress)
  }

  /**
   * The context a reply generator should see for a message (design §5): long-term memories, the
   * channel's rolling summary and the relevant messages within the token budget, with the reason each
   * was chosen. Never throws (falls back to the recent window).
   */
  buildContext(message: Session | ContextTarget, options: ContextOptions = {}): Promise<BuiltContext> {
    return this.memory.recall.buildContext(this.targetOf(message), options)
  }

  /**
   * Chat messages for a model: system prompt + long-term memories + conversation summary + chosen
   * context (+ related earlier exchanges) + the current message.
   */
  assemblePrompt(
    session: Session,
    options: ContextOptions & { system?: string; style?: 'messages' | 'transcript' } = {},
  ): Promise<ChatMessage[]> {
    return this.memory.recall.assemblePrompt(this.targetOf(session), options)
  }

  /**
   * Answers a message with memory (design §7): route → recall → retrieve → generate → persist,
   * with the `chat` settings' model and persona, in the user's language. A session's answer is sent
   * to it; for a bare target, `deliver` gets the text. A model failure answers with a short
   * apology. The run's trace goes to the context log (`memory.trace`).
   */
  reply(message: Session | ContextTarget, options: { deliver?: (text: string) => Promise<string[]> } = {}): Promise<ReplyState> {
    const session = isSession(message) ? message : undefined
    const send = options.deliver ?? (async (text: string) => (session ? ((await session.send(text)) ?? []) : []))
    return this.replier.reply(this.targetOf(message), session, send)
  }

  /**
   * The deep-search tools for a message (`search_chat_history`, `search_memories` and, with
   * knowledge on, `search_entities`, `get_user_profile`, `query_knowledge_graph`), each bound to the
   * message's scope: for a chat plugin's function calling (the built-in chat and the ChatLuna bridge use them).
   */
  replyTools(message: Session | ContextTarget): ToolDefinition[] {
    return this.replier.tools(this.targetOf(message))
  }

  /** The newest reply trace of a channel (of one trigger message there, when given). */
  lastTrace(channel: { platform: string; channelId: string }, messageId?: string) {
    return this.memory.modules.part('context').log.lastTrace(channel, messageId)
  }

  /** The user's 3 most recent exchanges with the bot here, plus the 3 most similar to `query`. */
  recallEpisodes(session: Session, query: string) {
    return this.memory.recall.episodes(this.targetOf(session), query)
  }

  /** `topicSearch` of this session's channel as an LLM tool definition (name, JSON schema, handler). */
  searchTool(session: Session) {
    return this.memory.recall.searchTool({ platform: session.platform, channelId: session.channelId })
  }

  /** Entities of a scope for a query (`knowledgeScope(session)` or a `{platform, guildId, userId}` scope), best first. Never throws. */
  searchEntities(
    scope: KnowledgeScope | Session,
    query: string,
    options: { types?: EntityType[]; limit?: number } = {},
  ): Promise<FoundEntity[]> {
    return this.knowledge.searchEntities(scopeOf(scope), query, options)
  }

  /** A user's profile where the session is (a group, or their private chat); undefined before anything was learnt. Never throws. */
  getUserProfile(user: Session | PersonRef): Promise<ProfileRow | undefined> {
    return this.knowledge.getUserProfile('event' in user ? personOf(user) : user).catch(() => undefined)
  }

  /** The relations around an entity of a scope, breadth first, bounded in nodes (50) and time (200 ms). */
  queryGraph(scope: KnowledgeScope | Session, entity: string, options: GraphOptions = {}): Promise<Graph> {
    return this.knowledge.queryGraph(scopeOf(scope), entity, options)
  }

  /** An entity of a scope with its relations and the entities at their other ends. */
  entity(scope: KnowledgeScope | Session, name: string): Promise<EntityDetails | undefined> {
    return this.knowledge.entity(scopeOf(scope), name)
  }

  /** `searchEntities`, `getUserProfile` and `queryGraph` of this session as LLM tool definitions. */
  knowledgeTools(session: Session) {
    const user = personOf(session)
    return this.memory.recall.knowledgeTools(knowledgeScope(user), user)
  }

  /** Rewrites the user profiles that are due now (the timer does it hourly). Returns how many. */
  consolidateProfiles(): Promise<number> {
    return this.memory.modules.part('knowledge').profiles.consolidateDue()
  }

  /** The raw messages of a topic, oldest first, optionally within a time range. */
  topicMessages(topicId: string, options: { since?: Date; until?: Date; limit?: number } = {}) {
    return this.memory.modules.part('topicSummaries').summaries.rawMessages(topicId, options)
  }

  /** Closes idle topics and summarises them in the background. */
  closeIdleTopics() {
    return this.memory.maintenance.closeIdleTopics()
  }

  /** Evolves a group's long-term memory now (design §6); `group` is `{platform, guildId}` or `platform:guildId`. */
  evolve(group: GroupRef | string, options: { days?: number } = {}) {
    return this.groups.evolve(group, options)
  }

  /**
   * A moderated group's pending proposals (evolution operations waiting for an admin), oldest first,
   * with the group's mode; `group` is `{platform, guildId}` or `platform:guildId`.
   */
  reviewQueue(group: GroupRef | string): Promise<ReviewQueueResponse> {
    return this.groupMemories.pendingReviews(group)
  }

  /**
   * Applies a pending proposal as an evolution would (a new version, the change log naming `by`), or with
   * `statement` instead of the proposed text. With `group`, a proposal of another group is refused, as the
   * commands refuse it. Refusals are `ReviewError`s (unknown, other group, decided, expired, stale, changed).
   */
  approveReview(id: string, options: { by: string; statement?: string; group?: GroupRef | string }): Promise<ReviewDecision> {
    return this.groupMemories.approveReview(id, options)
  }

  /** Turns a pending proposal down, keeping `by` and `reason` on it; nothing else changes. */
  rejectReview(id: string, options: { by: string; reason?: string; group?: GroupRef | string }): Promise<ReviewDecision> {
    return this.groupMemories.rejectReview(id, options)
  }

  /** Sets a group's evolution mode (`review`: its evolutions wait in the queue); it then no longer follows `group.mode`. */
  setReviewMode(group: GroupRef | string, mode: EvolutionMode, options: { by?: string } = {}): Promise<EvolutionMode> {
    return this.groupMemories.setMode(group, mode, options.by)
  }

  /** A group's evolution mode: its own, else `group.mode`. */
  reviewMode(group: GroupRef | string): Promise<EvolutionMode> {
    return this.groupMemories.mode(group)
  }

  /** Queues an evolution of every group with new messages; returns how many were queued. */
  evolveDueGroups(): Promise<number> {
    return this.memory.maintenance.evolveDueGroups()
  }

  /**
   * What of a user's waits to be memorised: their lines in dialogues that have not ended, in `where`
   * (their private chat, one guild, or everywhere), when the quiet time ends the last of those dialogues,
   * and how many ended dialogues there wait for the memorising job.
   */
  waiting(user: UserRef, where: WaitingPlace = 'everywhere'): WaitingReport {
    return this.memory.capture.waitingOf(user.userId, pickChats(user.platform, where))
  }

  /**
   * Ends now the dialogues that wait in `where` (a channel, or every chat) and memorises them; resolves
   * once that is done, with how many dialogues and user lines were handed over.
   */
  async memorizeNow(where: { platform: string; channelId: string } | 'everywhere' = 'everywhere') {
    // the dialogues of the last run are read back first: a line said since the start joins its dialogue then
    await this.memory.lifecycle.ready()
    await this.memory.recall.settleCapture()
    const handed = this.memory.capture.finishNow(
      where === 'everywhere' ? undefined : (owner) => owner.platform === where.platform && owner.channelId === where.channelId,
    )
    await this.flush()
    return handed
  }

  /** Waits until the start-up work is done, captured messages are written and indexed and background memory work is done. */
  async flush() {
    const { capture, chatEvents, queue, modules, index, lifecycle } = this.memory
    const messages = modules.part('messages')
    await lifecycle.ready()
    await chatEvents.settled()
    // an answer of the bot stands from here: its dialogue is memorised now, not after the grace time
    capture.endAnswered()
    await capture.flush()
    await queue.idle()
    await messages.index.flush()
    await modules.part('context').log.settled()
    await messages.store.settled()
    await index.settled()
  }

  async status(): Promise<MemoryStatus> {
    const { capture, queue, outbox, providers, index, modules, recall } = this.memory
    // what was said a moment ago (the status command itself) is written first, so waiting counts reach 0
    await recall.settleCapture()
    const counts = await modules.status()
    return {
      embedder: providers.embedder.id,
      llm: modules.part('facts').judge.id,
      choices: providers.choices,
      index: this.memory.engine,
      cache: index.stats(),
      held: modules.part('messages').store.held(),
      memory: modules.env.budget.report(),
      breakers: { vectorStore: index.state, ...providers.states() },
      queue: queue.size,
      captureBuffer: capture.recorder.pending,
      outbox: await outbox.size(),
      dialogues: capture.waiting,
      facts: counts.facts ?? 0,
      counters: this.metrics.counters(),
    }
  }

  private get knowledge() {
    return this.memory.modules.part('knowledge').knowledge
  }

  private get groupMemories() {
    return this.memory.modules.part('group').memories
  }
}
