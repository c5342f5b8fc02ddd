import type { ScopeCacheStats } from './store/scope-cache'
import type { MirrorStats } from './messages'
import type { Context, Session } from 'koishi'
import { Service } from 'koishi'
import { isSession, targetOf } from './capture/session-rows'
import type { MemoryParts } from './compose'
import { composeMemory } from './compose'
import { composeReplier } from './compose-reply'
import { personaFor, renderOutcome } from './chat'
import type { Config } from './config'
import type { BuiltContext, ChatMessage, ContextOptions, ContextTarget } from './context'
import { assemblePrompt } from './context'
import { Counters } from './core/observability'
import { withTimeout } from './core/timeout'
import { episodeScope } from './episodes'
import type { Dialogue, FactRow, ListOptions, MemorizeOutcome, RetrievedMemory, ReviseResult } from './facts'
import { formatForPrompt } from './facts'
import type { UserRef } from './erase/eraser'
import type { EvolutionMode, GroupRef, ReviewDecision, ReviewQueueResponse } from './group'
import type {
  EntityDetails,
  EntityRow,
  FoundEntity,
  Graph,
  GraphOptions,
  KnowledgeScope,
  ProfileRef,
  ProfileRow,
  RecalledItem,
} from './knowledge'
import { knowledgeScope } from './knowledge'
import type { EntityType } from './knowledge'
import type { ReplyState, ReplyTool } from './reply'
import { detectLanguage } from './text/language'
import { truncateToTokens } from './text/token-count'
import type { Scope } from './scope'
import { sessionScope } from './scope'
import type { DrainResult, RebuildResult } from './store/index-sync'
import type { ExportResult, ExportSelection, ImportOptions, ImportResult } from './transfer'

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
  /** Also facts a newer statement closed, each with its `validTo`; by default only current ones. */
  history?: boolean
}

export interface MemoryStatus {
  embedder: string
  llm: string
  /** Which provider each setting names and which one is in use (and why not the named one). */
  choices: MemoryParts['providers']['choices']
  /** Which vector index is in use, and why not LanceDB when it could not load. */
  index: MemoryParts['engine']
  /** The scope cache in front of the index: what it holds against its cap, and how often it answered. */
  cache: ScopeCacheStats
  /** The channels whose messages are held in memory for the context builder, against their cap. */
  held: MirrorStats
  breakers: Record<string, string>
  queue: number
  captureBuffer: number
  outbox: number
  /** Dialogues that wait to end before they are memorised. */
  dialogues: number
  facts: number
  counters: Record<string, number>
}

/** Where a session's knowledge lives: its group, or the user's private chat. */
function knowledgeScopeOf(session: Session): KnowledgeScope {
  return knowledgeScope({ platform: session.platform, guildId: session.guildId ?? '', userId: session.userId })
}

function scopeOf(scope: KnowledgeScope | Session): KnowledgeScope {
  return 'event' in scope ? knowledgeScopeOf(scope) : scope
}

/** How long `buildContext` waits for buffered messages to be written before building without them. */
const CAPTURE_SETTLE_MS = 500

/** The `memory` service: the public API over the parts `composeMemory` builds. */
export class MemoryService extends Service {
  static inject = { database: { required: true }, http: { required: false }, chatluna: { required: false } }

  readonly counters = new Counters()
  private readonly parts: MemoryParts
  readonly providers: MemoryParts['providers']
  readonly index: MemoryParts['index']
  readonly facts: MemoryParts['facts']
  readonly messages: MemoryParts['messages']
  readonly topics: MemoryParts['topics']
  readonly groups: MemoryParts['groups']
  readonly summaries: MemoryParts['summaries']
  readonly episodes: MemoryParts['episodes']
  readonly contextLog: MemoryParts['contextLog']
  readonly contextBuilder: MemoryParts['contextBuilder']
  private readonly replier: ReturnType<typeof composeReplier>
  private log = this.ctx.logger('memory')

  constructor(
    ctx: Context,
    public config: Config,
  ) {
    super(ctx, 'memory')
    const parts = (this.parts = composeMemory(ctx, config, this.counters, this.log))
    ;({
      providers: this.providers,
      index: this.index,
      facts: this.facts,
      messages: this.messages,
      topics: this.topics,
      groups: this.groups,
      summaries: this.summaries,
      episodes: this.episodes,
      contextLog: this.contextLog,
      contextBuilder: this.contextBuilder,
    } = parts)
    parts.capture.listen(ctx)
    this.replier = composeReplier(ctx, config, parts, this.counters, this.log)
  }

  protected start() {
    return this.parts.start()
  }

  protected stop() {
    return this.parts.stop()
  }

  /**
   * Memories of a user relevant to `query`, best first. Pass the session to stay inside its
   * guild (a group chat sees only what was learnt in that group). Never throws.
   */
  async retrieve(user: string | Session, query: string, options: RetrieveOptions = {}): Promise<RetrievedMemory[]> {
    const scope = typeof user === 'string' ? { platform: options.platform, userId: user, guildId: options.guildId } : sessionScope(user)
    return this.parts.recallFacts(scope, query, options.topK, options.minScore, { history: options.history })
  }

  /**
   * What the memory knows for `query` (seed 000 §4.2): the user's facts, their preferences, and the
   * relations and entities the query names in the group's (or the private chat's) knowledge, best
   * first, each with the messages it came from. Never throws.
   */
  recallKnowledge(user: string | Session, query: string, options: RetrieveOptions = {}): Promise<RecalledItem[]> {
    const scope =
      typeof user === 'string' ? { platform: options.platform ?? '', userId: user, guildId: options.guildId } : sessionScope(user)
    if (!scope.platform || !scope.userId) return Promise.resolve([])
    return this.parts.recallWithKnowledge({ ...scope, platform: scope.platform, userId: scope.userId }, query, options.topK)
  }

  formatForPrompt(memories: Pick<RetrievedMemory, 'content'>[], heading?: string) {
    return formatForPrompt(memories, heading)
  }

  /** Runs the post-dialogue chain now (seed 003's `considerMemorizing`). */
  considerMemorizing(dialogue: Dialogue): Promise<MemorizeOutcome> {
    return this.parts.memorize(dialogue)
  }

  /** Stores a fact as it is (an import, a benchmark) and indexes it; false when the index row waits in the outbox. */
  async remember(fact: FactRow): Promise<boolean> {
    await this.facts.insert(fact)
    return this.parts.factIndex.put([fact])
  }

  /** Current facts of a scope, newest first; with `history`, the closed ones too. */
  list(scope: Scope, limit = 20, offset = 0, options: ListOptions = {}): Promise<FactRow[]> {
    return this.facts.list(scope, limit, offset, options)
  }

  /** Erases facts of `owner` by id, with the messages they came from. Returns the ids erased. */
  forget(owner: UserRef, ids: string[]): Promise<string[]> {
    return this.parts.eraser.forget(owner, ids)
  }

  /** Erases every fact and every captured message of a user on a platform. */
  forgetAll(owner: UserRef): Promise<number> {
    return this.parts.eraser.forgetAll(owner)
  }

  /**
   * Says a current fact of `owner` anew (the console's edit): never an overwrite — the statement is a new
   * version (`parentId` the old fact), the old one is closed by it and stays in the history. `by` names
   * who edited it, kept in the new version's reason.
   */
  editFact(owner: UserRef, id: string, statement: string, options: { by?: string } = {}): Promise<ReviseResult> {
    return this.parts.reviseFact(owner, id, statement, options.by ?? '')
  }

  /** A user's profiles (in each group, and in their private chat) and the entities drawn from what they said. */
  userKnowledge(owner: UserRef): Promise<{ profiles: ProfileRow[]; entities: EntityRow[] }> {
    return this.parts.userKnowledge(owner)
  }

  /**
   * One user's memory (`{ user: { platform, userId } }`), one group's (`{ group: { platform, guildId } }`)
   * or everything (`{ all: true }`) as JSON Lines: facts with their versions and sources, group memories
   * with their history and change log, topics and their summaries, profiles, entities and relations.
   */
  exportMemory(selection: ExportSelection): Promise<ExportResult> {
    return this.parts.transfer.export(selection)
  }

  /**
   * Re-creates what an export holds (ours, or mem0's memories as JSON, `{results}` or JSON Lines: facts of
   * their `user_id`, or of `options.userId`, on `options.platform`), stored and indexed like learnt rows.
   * Duplicates are skipped and counted; a bad line is reported with its number and the rest imported.
   */
  importMemory(text: string, options: ImportOptions = {}): Promise<ImportResult> {
    return this.parts.transfer.import(text, options)
  }

  /** Carries out the index work waiting in the outbox (one drain at a time). */
  flushOutbox(): Promise<DrainResult> {
    return this.parts.drainOutbox()
  }

  /** LanceDB tables `reindex` can rebuild, with the name of their rows. */
  indexTables(): { table: string; name: string }[] {
    const { registry } = this.parts
    return registry.names().map((table) => ({ table, name: registry.get(table)!.name }))
  }

  /** Rebuilds LanceDB tables from the database (all, or the one named), table by table. */
  reindex(table?: string, progress?: (result: RebuildResult) => void): Promise<RebuildResult[]> {
    return this.parts.registry.rebuild(table, progress)
  }

  /**
   * The context a reply generator should see for a message (seed 000 §2.4, 001 §3.3): long-term
   * memories, the channel's rolling summary and the relevant messages within the token budget, with
   * the reason each was chosen. Never throws (falls back to the recent window).
   */
  async buildContext(message: Session | ContextTarget, options: ContextOptions = {}): Promise<BuiltContext> {
    const target = isSession(message) ? targetOf(message, this.config.capture.placeholders) : message
    // the last half second of the chat may still wait in the recorder's buffer: write it first, so
    // the context has it, but never let a slow database hold the reply for long
    await withTimeout(this.parts.capture.flush(), CAPTURE_SETTLE_MS).catch(() => this.counters.inc('context.capture-unsettled'))
    return this.contextBuilder.build(target, options)
  }

  /**
   * Chat messages for a model: system prompt + long-term memories + conversation summary + chosen
   * context (+ related earlier exchanges) + the current message.
   */
  async assemblePrompt(
    session: Session,
    options: ContextOptions & { system?: string; style?: 'messages' | 'transcript' } = {},
  ): Promise<ChatMessage[]> {
    const target = targetOf(session, this.config.capture.placeholders)
    const [context, episodes, profile] = await Promise.all([
      this.buildContext(target, options),
      this.recallEpisodes(session, target.content),
      this.config.knowledge.profileTokens ? this.getUserProfile(session) : undefined,
    ])
    return assemblePrompt({
      system: options.system ?? '',
      context,
      profile: profile?.profileText ? truncateToTokens(profile.profileText, this.config.knowledge.profileTokens) : undefined,
      current: { name: target.userName ?? target.userId, content: target.content },
      episodes: episodes.filter((episode) => episode.userMessageId !== target.messageId),
      style: options.style,
    })
  }

  /**
   * Answers a message with memory (seed 004 §2.3): route → recall → retrieve → generate → persist,
   * with the `chat` settings' model and persona, in the user's language. A session's answer is sent
   * to it; for a bare target, `deliver` gets the text. A model failure answers with a short
   * apology. The run's trace goes to the context log (`memory.trace`).
   */
  reply(message: Session | ContextTarget, options: { deliver?: (text: string) => Promise<string[]> } = {}): Promise<ReplyState> {
    const session = isSession(message) ? message : undefined
    const target = session ? targetOf(session, this.config.capture.placeholders) : (message as ContextTarget)
    const fallback = session?.locales?.some((locale) => locale.startsWith('en')) ? 'en' : 'zh'
    const language = detectLanguage(target.content, fallback)
    const send = options.deliver ?? (async (text: string) => (session ? ((await session.send(text)) ?? []) : []))
    return this.replier.reply({
      target,
      language,
      system: personaFor(`${target.platform}:${target.channelId}`, language, this.config.chat),
      deliver: (outcome) =>
        send(renderOutcome(outcome, language, (locale, path, params) => this.ctx.i18n.render([locale], [path], params ?? []).join(''))),
    })
  }

  /**
   * The deep-search tools for a message (`search_chat_history`, `search_memories` and, with
   * knowledge on, `search_entities`, `get_user_profile`, `query_knowledge_graph`), each bound to the
   * message's scope: for a chat plugin's function calling (the built-in chat and the ChatLuna bridge use them).
   */
  replyTools(message: Session | ContextTarget): ReplyTool[] {
    return this.replier.tools(isSession(message) ? targetOf(message, this.config.capture.placeholders) : message)
  }

  /** The newest reply trace of a channel (of one trigger message there, when given). */
  lastTrace(channel: { platform: string; channelId: string }, messageId?: string) {
    return this.contextLog.lastTrace(channel, messageId)
  }

  /** The user's 3 most recent exchanges with the bot here, plus the 3 most similar to `query` (004 phase 2). */
  recallEpisodes(session: Session, query: string) {
    const owner = { platform: session.platform, userId: session.userId!, guildId: session.guildId ?? '', channelId: session.channelId! }
    return this.episodes.recall(episodeScope(owner), query).catch(() => [])
  }

  /** `topicSearch` of this session's channel as an LLM tool definition (name, JSON schema, handler). */
  searchTool(session: Session) {
    return this.parts.searchTool({ platform: session.platform, channelId: session.channelId })
  }

  /** Entities of a scope for a query (`knowledgeScope(session)` or a `{platform, guildId, userId}` scope), best first. Never throws. */
  searchEntities(
    scope: KnowledgeScope | Session,
    query: string,
    options: { types?: EntityType[]; limit?: number } = {},
  ): Promise<FoundEntity[]> {
    return this.parts.knowledge.searchEntities(scopeOf(scope), query, options)
  }

  /** A user's profile where the session is (a group, or their private chat); undefined before anything was learnt. Never throws. */
  getUserProfile(user: Session | ProfileRef): Promise<ProfileRow | undefined> {
    const ref = 'event' in user ? { platform: user.platform, userId: user.userId ?? '', guildId: user.guildId ?? '' } : user
    return this.parts.knowledge.getUserProfile(ref).catch(() => undefined)
  }

  /** The relations around an entity of a scope, breadth first, bounded in nodes (50) and time (200 ms). */
  queryGraph(scope: KnowledgeScope | Session, entity: string, options: GraphOptions = {}): Promise<Graph> {
    return this.parts.knowledge.queryGraph(scopeOf(scope), entity, options)
  }

  /** An entity of a scope with its relations and the entities at their other ends. */
  entity(scope: KnowledgeScope | Session, name: string): Promise<EntityDetails | undefined> {
    return this.parts.knowledge.entity(scopeOf(scope), name)
  }

  /** `searchEntities`, `getUserProfile` and `queryGraph` of this session as LLM tool definitions. */
  knowledgeTools(session: Session) {
    return this.parts.knowledgeTools(knowledgeScopeOf(session), {
      platform: session.platform,
      userId: session.userId ?? '',
      guildId: session.guildId ?? '',
    })
  }

  /** Rewrites the user profiles that are due now (the timer does it hourly). Returns how many. */
  consolidateProfiles(): Promise<number> {
    return this.parts.knowledge.profiles.consolidateDue()
  }

  /** The raw messages of a topic, oldest first, optionally within a time range (000 §3.4). */
  topicMessages(topicId: string, options: { since?: Date; until?: Date; limit?: number } = {}) {
    return this.summaries.rawMessages(topicId, options)
  }

  /** Closes idle topics and summarises them in the background. */
  closeIdleTopics() {
    return this.parts.maintenance.closeIdleTopics()
  }

  /** Evolves a group's long-term memory now (seed 002); `group` is `{platform, guildId}` or `platform:guildId`. */
  evolve(group: { platform: string; guildId: string } | string, options: { days?: number } = {}) {
    return this.groups.evolve(group, options)
  }

  /**
   * A moderated group's pending proposals (seed 002's operations waiting for an admin), oldest first,
   * with the group's mode; `group` is `{platform, guildId}` or `platform:guildId`.
   */
  reviewQueue(group: GroupRef | string): Promise<ReviewQueueResponse> {
    return this.groups.pendingReviews(group)
  }

  /**
   * Applies a pending proposal as an evolution would (a new version, the change log naming `by`), or with
   * `statement` instead of the proposed text. With `group`, a proposal of another group is refused, as the
   * commands refuse it. Refusals are `ReviewError`s (unknown, other group, decided, expired, stale, changed).
   */
  approveReview(id: string, options: { by: string; statement?: string; group?: GroupRef | string }): Promise<ReviewDecision> {
    return this.groups.approveReview(id, options)
  }

  /** Turns a pending proposal down, keeping `by` and `reason` on it; nothing else changes. */
  rejectReview(id: string, options: { by: string; reason?: string; group?: GroupRef | string }): Promise<ReviewDecision> {
    return this.groups.rejectReview(id, options)
  }

  /** Sets a group's evolution mode (`review`: its evolutions wait in the queue); it then no longer follows `group.mode`. */
  setReviewMode(group: GroupRef | string, mode: EvolutionMode, options: { by?: string } = {}): Promise<EvolutionMode> {
    return this.groups.setMode(group, mode, options.by)
  }

  /** A group's evolution mode: its own, else `group.mode`. */
  reviewMode(group: GroupRef | string): Promise<EvolutionMode> {
    return this.groups.mode(group)
  }

  /** Queues an evolution of every group with new messages; returns how many were queued. */
  evolveDueGroups(): Promise<number> {
    return this.parts.maintenance.evolveDueGroups()
  }

  /** Waits until captured messages are written and indexed and background memory work is done. */
  async flush() {
    await this.parts.capture.flush()
    await this.parts.queue.idle()
    await this.parts.messageIndex.flush()
    await this.parts.contextLog.settled()
    await this.parts.messages.settled()
    await this.index.settled()
  }

  async status(): Promise<MemoryStatus> {
    const { capture, queue, outbox } = this.parts
    // what was said a moment ago (the status command itself) is written first, so waiting counts reach 0
    await withTimeout(capture.flush(), CAPTURE_SETTLE_MS).catch(() => undefined)
    return {
      embedder: this.providers.embedder.id,
      llm: this.providers.judge.id,
      choices: this.providers.choices,
      index: this.parts.engine,
      cache: this.index.stats(),
      held: this.parts.messages.held(),
      breakers: { vectorStore: this.index.state, ...this.providers.states() },
      queue: queue.size,
      captureBuffer: capture.recorder.pending,
      outbox: await outbox.size(),
      dialogues: capture.waiting,
      facts: await this.facts.count(undefined, { history: true }),
      counters: this.counters.snapshot(),
    }
  }
}
