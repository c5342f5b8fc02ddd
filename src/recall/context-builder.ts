import { definedOnly } from '../core/defined'
import type { MemoryBudget } from '../core/memory-budget'
import type { Counters, Logger } from '../core/observability'
import type { ChannelSummariesPart } from '../channel-summaries'
import type { ContextPart, ContextTarget, ScorerWeights } from '../context'
import { ContextBuilder, quickSearch, RelevanceScorer } from '../context'
import type { GroupPart } from '../group'
import type { MessagesPart } from '../messages'
import type { Embedder } from '../providers/types'
import type { RetrievedMemory } from '../facts'

export interface ContextBuilderDeps {
  messages: MessagesPart
  context: ContextPart
  channelSummaries: ChannelSummariesPart
  group: GroupPart
  embedder: Embedder
  /** The user's facts for a message (none without a user). */
  longTerm(target: ContextTarget, topK: number): Promise<RetrievedMemory[]>
  /** Where the builder's caches claim their memory. */
  budget: MemoryBudget
  counters: Counters
  logger: Logger
}

/** The console's context settings; unset ones take the builder's defaults. */
export interface ContextBuilderSettings {
  weights?: Partial<ScorerWeights>
  threshold?: number
  halfLifeHours?: number
  tokenBudget?: number
  timeoutMs?: number
  maxMessages?: number
  timeWindowHours?: number
  longTermShare?: number
  summaryShare?: number
  groupShare?: number
  summaryCoverage?: number
  recencyFloor?: number
  lexicalShare?: number
}

/**
 * The context builder over the kinds a reply's context draws on: the channel's messages and their
 * index, the user's facts, the rolling summary and, in a group, what the group remembers.
 */
export function createContextBuilder(deps: ContextBuilderDeps, settings: ContextBuilderSettings): ContextBuilder {
  const { messages, context, channelSummaries, group } = deps
  const { weights, threshold, halfLifeHours, ...options } = settings
  const builder: ContextBuilder = new ContextBuilder(
    {
      store: messages.store,
      search: quickSearch(messages.index),
      similarities: (channel, vector, ids) => messages.index.similarities(channel, vector, ids),
      embedder: deps.embedder,
      termStats: context.termStats,
      longTerm: deps.longTerm,
      summary: (channel) => channelSummaries.rolling.get(channel),
      // a group chat also sees what the group as a whole remembers (recall never throws)
      group: (target) =>
        group.memories.recall({ platform: target.platform, guildId: target.guildId }, target.content, { limit: 5, threshold: 0.05 }),
      onBuilt: (target, built) => context.log.record(target, built),
      cacheBytes: {
        features: deps.budget.claim('features', () => builder.held().features),
        vectors: deps.budget.claim('vectors', () => builder.held().vectors),
      },
      counters: deps.counters,
      logger: deps.logger,
      scorer: new RelevanceScorer(definedOnly({ weights: definedOnly(weights ?? {}), threshold, halfLifeHours })),
    },
    definedOnly(options),
  )
  return builder
}
