import type { Counters, Logger } from '../core/observability'
import type { Foreground } from '../core/foreground'
import type { BuiltContext, ContextBuilder, ContextOptions, ContextTarget, TopicSearchOptions } from '../context'
import { assemblePrompt, quickSearch, topicSearchTool } from '../context'
import { withTimeout } from '../core/timeout'
import type { EpisodicMemory } from '../episodes'
import { episodeScope } from '../episodes'
import type { FactsPart, RecallOptions } from '../facts'
import type { EntityRow, KnowledgePart, KnowledgeScope, ProfileRow, RecalledItem } from '../knowledge'
import { knowledgeScope, knowledgeTools, recallKnowledge } from '../knowledge'
import type { MessagesPart } from '../messages'
import type { ChatMessage } from '../providers/types'
import type { PersonRef, Scope, UserRef } from '../scope'
import { personOf } from '../scope'
import { truncateToTokens } from '../text/token-count'
import { FusedRecall } from './fused-recall'
import type { MemoryQuery, RecalledMemory } from './recalled'
import type { TopicSummariesPart } from '../topic-summaries'
import type { TopicsPart } from '../topics'

export interface RecallDeps {
  facts: FactsPart
  knowledge: KnowledgePart
  messages: MessagesPart
  topics: TopicsPart
  topicSummaries: TopicSummariesPart
  episodes: EpisodicMemory
  builder: ContextBuilder
  /** Writes what capture still buffers. */
  flushCapture(): Promise<void>
  /** Marks the reads below as a reply's, for background work to step aside. */
  foreground: Foreground
  counters: Counters
  logger: Logger
  /** Share of BM25 in the ranking of recalled memories; the rest is embedding similarity. */
  lexicalShare: number
  /** The tokens a context may take for its target (its group's budget per reply), given what was asked for. */
  tokenCap?(target: ContextTarget, asked: number | undefined): Promise<number | undefined>
}

export interface RecallSettings {
  topK: number
  minScore: number
  /** Entities, relations and profiles are learnt and recalled. */
  knowledge: boolean
  /** Most tokens of the user's profile in an assembled prompt (0: none). */
  profileTokens: number
}

/** How long a read waits for buffered messages to be written before it goes on without them. */
const CAPTURE_SETTLE_MS = 500

/**
 * What the memory hands a reply: the user's facts, knowledge-aware recall, the context of a message,
 * the prompt assembled from it, and the deep-search tools, each bound to one scope. Nothing here
 * changes memory, and nothing throws into a reply.
 */
export class Recall {
  private readonly fused: FusedRecall

  constructor(
    private readonly deps: RecallDeps,
    private readonly settings: RecallSettings,
  ) {
    this.fused = new FusedRecall(deps)
  }

  /**
   * A user's memories relevant to `query`: facts and the lines they said, fused (none in a scope
   * that names no user). Never throws: a failure yields `[]` and is logged.
   */
  async memories(scope: Scope, query: string, options: Partial<MemoryQuery> = {}): Promise<RecalledMemory[]> {
    const { platform, userId } = scope
    if (!platform || !userId || !query.trim()) return []
    try {
      return await this.deps.foreground.during(() =>
        this.fused.recall({ ...scope, platform, userId }, query, {
          topK: options.topK ?? this.settings.topK,
          minScore: options.minScore ?? this.settings.minScore,
          history: options.history,
          factsOnly: options.factsOnly,
        }),
      )
    } catch (error) {
      this.deps.counters.inc('retrieve.failed')
      this.deps.logger.warn('memory recall failed, returning nothing: %s', (error as Error).message)
      return []
    }
  }

  /** A user's facts relevant to `query`, in a scope that names the user (none without one). */
  facts(scope: Scope, query: string, topK = this.settings.topK, minScore = this.settings.minScore, options: RecallOptions = {}) {
    return scope.userId ? this.deps.facts.retriever.retrieve(scope, query, topK, minScore, options) : Promise.resolve([])
  }

  /** The user's memories (facts and lines), their preferences, the relations of the entities the query names in the scope's knowledge, fused by rank. */
  async withKnowledge(
    scope: Scope & { platform: string; userId: string },
    query: string,
    topK = this.settings.topK,
  ): Promise<RecalledItem[]> {
    const { knowledge } = this.deps
    try {
      const found = await this.memories(scope, query, { topK })
      const user = personOf(scope)
      const where = knowledgeScope(user)
      const on = this.settings.knowledge
      return await recallKnowledge(
        knowledge.store,
        where,
        query,
        {
          facts: found.map((memory) => ({ kind: memory.kind, text: memory.content, sourceIds: memory.sources.map((line) => line.id) })),
          entities: on ? await knowledge.knowledge.searchEntities(where, query, { limit: topK }) : [],
          profile: on ? await knowledge.knowledge.getUserProfile(user) : undefined,
        },
        topK,
      )
    } catch (error) {
      this.deps.logger.warn('knowledge recall failed, returning nothing: %s', (error as Error).message)
      return []
    }
  }

  /** The context a reply should see; what capture still buffers is written first, for half a second at most. */
  async buildContext(target: ContextTarget, options: ContextOptions = {}): Promise<BuiltContext> {
    return this.deps.foreground.during(async () => {
      await withTimeout(this.deps.flushCapture(), CAPTURE_SETTLE_MS).catch(() => this.deps.counters.inc('context.capture-unsettled'))
      const tokenBudget = this.deps.tokenCap ? await this.deps.tokenCap(target, options.tokenBudget) : options.tokenBudget
      return this.deps.builder.build(target, tokenBudget === undefined ? options : { ...options, tokenBudget })
    })
  }

  /** Waits for capture's buffer as a read does, at most half a second. */
  settleCapture(): Promise<void> {
    return withTimeout(this.deps.flushCapture(), CAPTURE_SETTLE_MS).catch(() => undefined)
  }

  /** The user's recent exchanges with the bot here, and those most similar to `query`. Never throws. */
  episodes(target: ContextTarget, query: string) {
    return this.deps.episodes.recall(episodeScope(target), query).catch(() => [])
  }

  /** A user's profile where they are, cut to the prompt's share; undefined when there is none. */
  async profileText(user: PersonRef): Promise<string | undefined> {
    const profile = await this.deps.knowledge.knowledge.getUserProfile(user)
    return profile?.profileText ? truncateToTokens(profile.profileText, this.settings.profileTokens) : undefined
  }

  /** Chat messages for a model: the system prompt, what the memory recalls, and the current message. */
  async assemblePrompt(
    target: ContextTarget,
    options: ContextOptions & { system?: string; style?: 'messages' | 'transcript' } = {},
  ): Promise<ChatMessage[]> {
    const [context, episodes, profile] = await Promise.all([
      this.buildContext(target, options),
      this.episodes(target, target.content),
      this.settings.profileTokens ? this.profileText(personOf(target)).catch(() => undefined) : undefined,
    ])
    return assemblePrompt({
      system: options.system ?? '',
      context,
      profile,
      current: { name: target.userName ?? target.userId, content: target.content },
      episodes: episodes.filter((episode) => episode.userMessageId !== target.messageId),
      style: options.style,
    })
  }

  /** `search_chat_history` of a channel as an LLM tool. */
  searchTool(channel: { platform: string; channelId?: string }, options?: TopicSearchOptions) {
    const { messages, topics, topicSummaries } = this.deps
    return topicSearchTool(
      {
        search: quickSearch(messages.index),
        store: messages.store,
        topics: {
          list: async (where, { limit }) =>
            (await topics.store.list(where, limit)).map((topic) => ({
              id: topic.id,
              title: topic.title,
              updatedAt: topic.updatedAt,
              active: topic.active,
            })),
        },
        summaries: topicSummaries.summaries.searchSummaries,
      },
      channel,
      options,
    )
  }

  /** The knowledge tools of a scope and user (`search_entities`, `get_user_profile`, `query_knowledge_graph`). */
  knowledgeTools(scope: KnowledgeScope, user: PersonRef) {
    return knowledgeTools(this.deps.knowledge.knowledge, scope, user)
  }

  /** A user's profiles (each guild, and their private chat) and the entities drawn from what they said. */
  async userKnowledge(owner: UserRef): Promise<{ profiles: ProfileRow[]; entities: EntityRow[] }> {
    const { store } = this.deps.knowledge
    const said = await this.deps.messages.store.ofUser(owner.platform, owner.userId)
    const [profiles, entities] = await Promise.all([
      store.profilesOf(owner),
      store.entitiesFrom(
        owner.platform,
        said.map((row) => row.id),
      ),
    ])
    return { profiles, entities }
  }
}
