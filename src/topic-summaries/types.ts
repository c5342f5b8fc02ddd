/**
 * Mid-term memory (design §3): one summary per topic, regenerated as the topic grows. Types shared
 * by the Koishi-free core (`src/mid-term/*`) and the Koishi store (`src/store/koishi-summaries.ts`).
 */

/**
 * How good a summary is (design §3.4), each in [0, 1] (see `quality.ts` for the definitions).
 * `llmScore` is present only when an LLM rated the summary; `overall` is design §3.4's weighted mix
 * (0.3 coverage + 0.2 coherence + 0.2 relevance + 0.3 llm), renormalised over the parts present.
 */
export interface SummaryQuality {
  coverage: number
  coherence: number
  relevance: number
  llmScore?: number
  overall: number
}

/**
 * One version of a topic's summary. Regenerating writes a new row (version + 1) and keeps the older
 * ones; only the newest version of a topic is in the search index. The id is `<topicId>#<version>`,
 * so two writers racing to make the same version collide on the primary key instead of duplicating.
 */
export interface TopicSummaryRow {
  id: string
  topicId: string
  platform: string
  guildId: string
  channelId: string
  version: number
  /** The topic title when the summary was made. */
  title: string
  summary: string
  /** Display names (user name, else id) of who spoke, most active first. */
  participants: string[]
  /** Time of the first and of the last summarised message. */
  firstMessageAt: Date
  lastMessageAt: Date
  /** Messages the summary was made from. */
  messageCount: number
  /**
   * The topic's own `messageCount` when the summary was made: new messages since the summary are
   * `topic.messageCount - topicMessageCount` (the count trigger) even when long topics were capped.
   */
  topicMessageCount: number
  /** Weighted keywords (CJK-aware), heaviest first, weights in (0, 1]. */
  keywords: Record<string, number>
  quality: SummaryQuality
  /** Made by the offline extractive summariser (no LLM configured, or the LLM failed). */
  fallback: boolean
  /** Segments the topic was cut into for the LLM (1 for short topics, 0 for a fallback). */
  segments: number
  /** `zh` or `en`: the language of the prompts (the topic's language). */
  language: string
  /** What asked for it: `closed`, `count`, `schedule`, `manual`. */
  trigger: SummaryTrigger
  /** The LLM id, or `offline`. */
  model: string
  /** The embedder whose vector indexes this summary. */
  embedder: string
  createdAt: Date
}

export type SummaryTrigger = 'closed' | 'count' | 'schedule' | 'manual'

/** A channel: the scope of every summary query. */
export interface SummaryChannel {
  platform: string
  channelId: string
}
