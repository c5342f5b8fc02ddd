import type { Embedder, LLM } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { Scope } from '../scope'
import type { TopicRow, TopicStore } from '../topics'
import type { MessageRow, MessageStore } from '../messages'
import type { VectorSide } from '../store/index-sync'
import type { GenerateOptions } from './generate'
import { generateSummary } from './generate'
import { SummaryIndex } from './summary-index'
import type { SummaryPrompts } from './prompts'
import type { SummaryHit, SummarySearchOptions } from './search'
import { DEFAULT_SEARCH_WEIGHTS, searchSummaries } from './search'
import type { TopicSummaryRow, SummaryTrigger } from './types'
import type { TopicSummaryStore } from './store'

export interface TopicSummariesOptions {
  /** Summarise a topic again once it has this many messages more than at its last summary. 0 disables. Default 50. */
  countThreshold: number
  /** Automatic triggers skip topics with fewer messages than this (by hand there is no minimum). Default 3. */
  minMessages: number
  /** The newest this many messages of a topic are summarised. Default 500. */
  maxMessages: number
  /** Most active topics one scheduled pass looks at. Default 100. */
  scheduleBatch: number
  /** Default fusion weights of hybrid search. */
  searchWeights: { keyword: number; vector: number }
  generate: Partial<GenerateOptions>
}

export const DEFAULT_SUMMARY_OPTIONS: TopicSummariesOptions = {
  countThreshold: 50,
  minMessages: 3,
  maxMessages: 500,
  scheduleBatch: 100,
  searchWeights: DEFAULT_SEARCH_WEIGHTS,
  generate: {},
}

export interface TopicSummariesDeps {
  store: TopicSummaryStore
  topics: Pick<TopicStore, 'get'>
  messages: Pick<MessageStore, 'byTopic'>
  /** Active, unarchived topics of every channel, most recently active first (the scheduled pass). */
  activeTopics?: (limit: number) => Promise<TopicRow[]>
  embedder: Embedder
  /** The chat model, looked up on every run; undefined: offline summaries, marked `fallback`. */
  llm: () => LLM | undefined
  /** Charges a summary's model calls to the budget of the topic's group (or private chat's user). */
  charge?<T>(where: { platform: string; guildId: string; userId: string }, work: () => Promise<T>): Promise<T>
  prompts?: () => SummaryPrompts
  /** The LanceDB side; left out, search has only its keyword leg. */
  vector?: VectorSide
  counters: Counters
  logger: Logger
  now?: () => Date
  options?: Partial<TopicSummariesOptions>
}

export type SummarizeResult =
  | { status: 'created'; row: TopicSummaryRow; indexed: boolean }
  /** Nothing new since the last summary (automatic triggers), or another writer made this version. */
  | { status: 'unchanged'; row?: TopicSummaryRow }
  /** Fewer messages than `minMessages` (automatic triggers), or none at all. */
  | { status: 'too-few'; messages: number }
  | { status: 'not-found' }

export interface RawMessageOptions {
  /** Messages at or after this time. */
  since?: Date
  /** Messages at or before this time. */
  until?: Date
  /** Most messages (the newest of the range). Default 100. */
  limit?: number
}

/**
 * Whether a topic had messages since its summary: more messages than it had then, or a message
 * later than the summary was made (the summary's own `lastMessageAt` is not compared: the topic's
 * last message may be one without text, which the summary leaves out).
 */
export function changedSince(
  topic: Pick<TopicRow, 'messageCount' | 'lastMessageAt'>,
  summary: Pick<TopicSummaryRow, 'topicMessageCount' | 'createdAt'>,
): boolean {
  return topic.messageCount > summary.topicMessageCount || topic.lastMessageAt.getTime() > summary.createdAt.getTime()
}

/** The summary id of a topic's version: `<topicId>#<version>`. */
export const summaryId = (topicId: string, version: number) => `${topicId}#${version}`

/**
 * Topic summaries (design §3) behind one object: the four triggers (design §3.2), generation (design §3.3,
 * see `generateSummary`), versioned storage with an index in LanceDB, search (design §3.5) and raw messages
 * on demand (design §3.5). Koishi-free: the service builds it from a `KoishiSummaryStore` and the topic and
 * message stores. Summaries of one topic are made one at a time in this process; two processes
 * racing to write the same version collide on its id and one of them gives way.
 */
export class TopicSummaries {
  readonly index?: SummaryIndex
  readonly options: TopicSummariesOptions
  private readonly now: () => Date
  private readonly running = new Map<string, Promise<unknown>>()
  /** `topicMessageCount` of each topic's newest summary (0 when none), for the count trigger. */
  private readonly baseCounts = new Map<string, number>()

  constructor(private deps: TopicSummariesDeps) {
    this.now = deps.now ?? (() => new Date())
    this.options = { ...DEFAULT_SUMMARY_OPTIONS, ...deps.options }
    if (deps.vector) {
      const { index, outbox, table } = deps.vector
      this.index = new SummaryIndex(
        { index, outbox, embedder: deps.embedder, counters: deps.counters, logger: deps.logger },
        deps.store,
        table,
      )
    }
  }

  /**
   * Trigger "by hand" (`memory.summarize [topic]`): always makes a new version, even when nothing
   * changed, as long as the topic has a message.
   */
  summarizeNow(topicId: string): Promise<SummarizeResult> {
    return this.summarize(topicId, 'manual')
  }

  /**
   * Trigger "closed or inactive": summarises each topic `TopicAttributor.closeIdleTopics()` returned,
   * unless nothing was said since its last summary or it is too short. One failing topic does not
   * stop the others.
   */
  async onTopicsClosed(topics: Pick<TopicRow, 'id'>[]): Promise<SummarizeResult[]> {
    const out: SummarizeResult[] = []
    for (const topic of topics) out.push(await this.safely(topic.id, 'closed'))
    return out
  }

  /**
   * Trigger "message count": call after messages were attributed to these topics. A topic with at
   * least `countThreshold` messages more than at its last summary (or than 0, before the first) is
   * summarised. Cheap when nothing is due: the base counts are cached in memory.
   */
  async onTopicMessages(topicIds: string[]): Promise<SummarizeResult[]> {
    const threshold = this.options.countThreshold
    if (threshold <= 0) return []
    const out: SummarizeResult[] = []
    for (const id of new Set(topicIds.filter(Boolean))) {
      const topic = await this.deps.topics.get(id)
      if (!topic) continue
      let base = this.baseCounts.get(id)
      if (base === undefined) {
        base = (await this.deps.store.latest(id))?.topicMessageCount ?? 0
        this.remember(id, base)
      }
      if (topic.messageCount - base >= threshold) out.push(await this.safely(id, 'count'))
    }
    return out
  }

  /**
   * Hot topics of groups (promoted into long-term knowledge, design §4.5): the newest summaries of
   * topics with at least `minMessages` messages and `minParticipants` speakers, most recent first, at
   * most `limit`.
   */
  async hotTopics(options: { minMessages: number; minParticipants: number; limit: number }): Promise<TopicSummaryRow[]> {
    const rows = await this.deps.store.busiest(options.minMessages, options.limit * 4)
    return rows.filter((row) => row.participants.length >= options.minParticipants).slice(0, options.limit)
  }

  /**
   * Trigger "schedule": looks at up to `scheduleBatch` active topics and summarises those with new
   * messages since their last summary (and at least `minMessages`); unchanged topics cost one read.
   */
  async scheduledPass(): Promise<{ checked: number; summarized: number; skipped: number; failed: number }> {
    const stats = { checked: 0, summarized: 0, skipped: 0, failed: 0 }
    if (!this.deps.activeTopics) return stats
    const topics = await this.deps.activeTopics(this.options.scheduleBatch)
    for (const topic of topics) {
      stats.checked++
      const result = await this.safely(topic.id, 'schedule', topic)
      if (result.status === 'created') stats.summarized++
      else if ('error' in result) stats.failed++
      else stats.skipped++
    }
    return stats
  }

  /**
   * Makes a new version of a topic's summary. Automatic triggers (`closed`, `count`, `schedule`)
   * skip a topic with nothing new since its last summary or with fewer than `minMessages`
   * messages; `manual` does neither. Throws when the database fails (callers on a timer use the
   * triggers above, which log and count instead).
   */
  summarize(topicId: string, trigger: SummaryTrigger = 'manual', known?: TopicRow): Promise<SummarizeResult> {
    const previous = this.running.get(topicId) ?? Promise.resolve()
    const run = previous.catch(() => undefined).then(() => this.run(topicId, trigger, known))
    this.running.set(topicId, run)
    const cleanup = () => {
      if (this.running.get(topicId) === run) this.running.delete(topicId)
    }
    run.then(cleanup, cleanup)
    return run
  }

  private async safely(
    topicId: string,
    trigger: SummaryTrigger,
    known?: TopicRow,
  ): Promise<SummarizeResult | { status: 'unchanged'; error: string }> {
    try {
      return await this.summarize(topicId, trigger, known)
    } catch (error) {
      this.deps.counters.inc('summary.error')
      this.deps.logger.warn('topic %s: summary failed: %s', topicId, (error as Error).message)
      return { status: 'unchanged', error: (error as Error).message }
    }
  }

  private remember(topicId: string, count: number) {
    if (this.baseCounts.size >= 10_000) this.baseCounts.clear()
    this.baseCounts.set(topicId, count)
  }

  private async run(topicId: string, trigger: SummaryTrigger, known?: TopicRow): Promise<SummarizeResult> {
    const { store, counters } = this.deps
    // re-read: a summary made while this call waited for the topic's lock must be seen
    const topic = (await this.deps.topics.get(topicId)) ?? known
    if (!topic) return { status: 'not-found' }
    const latest = await store.latest(topicId)
    const automatic = trigger !== 'manual'
    if (automatic && latest && !changedSince(topic, latest)) {
      this.remember(topicId, latest.topicMessageCount)
      return { status: 'unchanged', row: latest }
    }
    if (automatic && topic.messageCount < this.options.minMessages) return { status: 'too-few', messages: topic.messageCount }

    const now = this.now()
    const messages = (
      await this.deps.messages.byTopic(topicId, { before: new Date(now.getTime() + 1), limit: this.options.maxMessages })
    ).filter((m) => m.content.trim())
    if (!messages.length || (automatic && messages.length < this.options.minMessages))
      return { status: 'too-few', messages: messages.length }

    const generate = () =>
      generateSummary(topic.title, messages, {
        llm: this.deps.llm(),
        prompts: this.deps.prompts?.(),
        counters,
        logger: this.deps.logger,
        options: this.options.generate,
      })
    // a private chat's topic is its user's: the one who speaks there beside the bot
    const userId = topic.guildId ? '' : (messages.find((message) => message.role === 'user')?.userId ?? '')
    const charge = this.deps.charge
    const draft = await (charge ? charge({ platform: topic.platform, guildId: topic.guildId, userId }, generate) : generate())
    const version = (latest?.version ?? 0) + 1
    const row: TopicSummaryRow = {
      id: summaryId(topicId, version),
      topicId,
      platform: topic.platform,
      guildId: topic.guildId,
      channelId: topic.channelId,
      version,
      title: topic.title,
      summary: draft.summary,
      participants: draft.participants,
      firstMessageAt: draft.firstMessageAt,
      lastMessageAt: draft.lastMessageAt,
      messageCount: draft.messageCount,
      topicMessageCount: Math.max(topic.messageCount, draft.messageCount),
      keywords: draft.keywords,
      quality: draft.quality,
      fallback: draft.fallback,
      segments: draft.segments,
      language: draft.language,
      trigger,
      model: draft.model,
      embedder: this.deps.embedder.id,
      createdAt: now,
    }
    try {
      await store.insert(row)
    } catch (error) {
      const winner = await store.latest(topicId)
      if (winner && winner.version >= version) {
        counters.inc('summary.conflict')
        this.deps.logger.debug('topic %s: version %d was written by another writer', topicId, version)
        return { status: 'unchanged', row: winner }
      }
      throw error
    }
    this.remember(topicId, row.topicMessageCount)
    counters.inc('summary.created')
    const indexed = this.index ? await this.index.put(row, latest ? [latest.id] : []) : false
    return { status: 'created', row, indexed }
  }

  /** The newest summary of a topic. */
  latest(topicId: string): Promise<TopicSummaryRow | undefined> {
    return this.deps.store.latest(topicId)
  }

  /** Every version of a topic's summary, oldest first. */
  versions(topicId: string): Promise<TopicSummaryRow[]> {
    return this.deps.store.versions(topicId)
  }

  /**
   * Keyword, vector or hybrid search over one channel's summaries (see `search.ts`); the default
   * fusion weights come from the options. Bound, so it can be handed to `topicSearch` as it is.
   */
  searchSummaries = (query: string, scope: Scope, options: SummarySearchOptions = {}): Promise<SummaryHit[]> => {
    return searchSummaries(
      { store: this.deps.store, index: this.index, counters: this.deps.counters, logger: this.deps.logger },
      query,
      scope,
      { weights: this.options.searchWeights, ...options },
    )
  }

  /** Erases every summary of these topics (they may quote a forgotten user), index rows included. */
  async eraseTopics(topicIds: string[]): Promise<number> {
    if (!topicIds.length) return 0
    const ids = await this.deps.store.removeTopics(topicIds)
    await this.index?.table.remove(ids)
    return ids.length
  }

  /**
   * The raw messages of a topic (design §3.5), oldest first, optionally only those in [since, until];
   * the newest `limit` of the range.
   */
  async rawMessages(topicId: string, options: RawMessageOptions = {}): Promise<MessageRow[]> {
    const limit = options.limit ?? 100
    if (!topicId || limit <= 0) return []
    const before = options.until && new Date(options.until.getTime() + 1)
    const since = options.since?.getTime()
    if (since === undefined) return this.deps.messages.byTopic(topicId, { before, limit })
    // read past the limit a little: byTopic cannot bound from below, so older rows are filtered here
    const rows = await this.deps.messages.byTopic(topicId, { before, limit: limit + 1000 })
    return rows.filter((m) => m.createdAt.getTime() >= since).slice(-limit)
  }
}
