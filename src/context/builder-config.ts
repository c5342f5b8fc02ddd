import type { Counters, Logger } from '../core/observability'
import type { RetrievedMemory } from '../facts'
import type { ChannelRef, MessageStore } from '../messages'
import type { Embedder } from '../providers/types'
import type { RelevanceScorer } from './scorer'
import type { QuickSearch } from './search-tool'
import type { TermStats } from './term-stats'
import type { BuiltContext, ContextTarget } from './types'

export interface ContextBuilderConfig {
  /** Default 2000. */
  tokenBudget: number
  /** Messages of the recent time window considered. Default 50. */
  maxMessages: number
  /** Default 24. */
  timeWindowHours: number
  /** Past this the builder falls back to the recent window. Default 5000. */
  timeoutMs: number
  /** Reply-chain links followed. Default 5. */
  replyDepth: number
  /** Thread members considered. Default 15. */
  threadLimit: number
  /** Topic members considered. Default 20. */
  topicLimit: number
  /** Semantic neighbours asked of the search. Default 300. */
  semanticLimit: number
  /** Best candidates whose neighbouring turns are also considered. Default 24. */
  adjacentHits: number
  /** Turns on each side of such a candidate. Default 3. */
  adjacentTurns: number
  /** Share of a neighbour's content relevance a turn inherits, per turn of distance. Default 0.7. */
  adjacentDecay: number
  /**
   * Share of the lexical (BM25) match in the semantic signal; the rest is embedding similarity.
   * Default 0.7. The service sets it by its embedder (`defaultLexicalShare`): 1 for the offline one,
   * whose similarity only counts shared words (LoCoMo at 1,000 tokens: 0.815 against 0.811 at 0.7),
   * 0.3 for an embedding model, whose similarity carries meaning.
   */
  lexicalShare: number
  /**
   * Which candidate's embedding similarity counts as "unrelated" (0) when calibrating: the quantile
   * of the pool's similarities. Default 0 (the least similar candidate).
   */
  similarityFloor: number
  /** Most of the budget the long-term memories may take. Default 0.15. */
  longTermShare: number
  /** Most of the budget the rolling summary may take. Default 0.15. */
  summaryShare: number
  /** Most of the budget the group's memories may take (in a group chat). Default 0.1. */
  groupShare: number
  /** Long-term memories asked for. Default 5. */
  longTermTopK: number
  /** Embed candidates the search did not score, so every candidate has an embedding similarity. Default true. */
  embedCandidates: boolean
  /**
   * Least share of the target's keyword weight a sentence of the rolling summary must cover to be
   * shown (when the target has keywords); 0 shows the summary whole. Default 0.3.
   */
  summaryCoverage: number
  /**
   * Least share of the recency signal kept when the target asks about something said earlier: recency
   * counts in proportion to how well the recent window matches the target compared with the best
   * match of all candidates, but never less than this. 1 keeps recency as it is. Default 0.5.
   */
  recencyFloor: number
}

export const DEFAULT_CONTEXT_CONFIG: Readonly<ContextBuilderConfig> = Object.freeze({
  tokenBudget: 2000,
  maxMessages: 50,
  timeWindowHours: 24,
  timeoutMs: 5000,
  replyDepth: 5,
  threadLimit: 15,
  topicLimit: 20,
  semanticLimit: 300,
  adjacentHits: 24,
  adjacentTurns: 3,
  adjacentDecay: 0.7,
  lexicalShare: 0.7,
  similarityFloor: 0,
  longTermShare: 0.15,
  summaryShare: 0.15,
  groupShare: 0.1,
  longTermTopK: 5,
  embedCandidates: true,
  summaryCoverage: 0.3,
  recencyFloor: 0.5,
})

export interface ContextBuilderDeps {
  store: MessageStore
  /** Semantic neighbours; without it that source is skipped. */
  search?: QuickSearch
  /**
   * Similarities of the channel's messages `ids` to the target's vector, as the search gives them,
   * where the search can tell them at once (it holds the channel's vectors); the builder embeds the
   * candidates it gets none for.
   */
  similarities?: (channel: ChannelRef, vector: Float32Array, ids: string[]) => (number | undefined)[] | undefined
  /** Embeds the target (for the search) and candidates the search did not score. */
  embedder?: Embedder
  /** The channel's term statistics (fed on capture); without them the candidate pool's are used. */
  termStats?: TermStats
  /** The target author's long-term memories relevant to the target (a `retrieve`). */
  longTerm?: (target: ContextTarget, topK: number) => Promise<RetrievedMemory[]>
  /** The channel's rolling summary. */
  summary?: (channel: ChannelRef) => Promise<string | undefined>
  /** What the group remembers that bears on the target (design §6), asked only in a group chat. */
  group?: (target: ContextTarget) => Promise<NonNullable<BuiltContext['group']>>
  /** The topic of the target when its row has none yet (e.g. the attribution's best guess). */
  topicOf?: (target: ContextTarget) => Promise<string | undefined>
  /** Told about every context built (the context log). Errors are ignored. */
  onBuilt?: (target: ContextTarget, context: BuiltContext) => void
  scorer?: RelevanceScorer
  /** Memory for the features of messages and the embeddings of candidates kept across builds (default 8 MB and 4 MB). */
  cacheBytes?: { features: number; vectors: number }
  counters: Counters
  logger: Logger
  /** Milliseconds, for build times. Default `performance.now`. */
  clock?: () => number
}
