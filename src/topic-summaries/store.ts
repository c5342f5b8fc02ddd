import type { SummaryChannel, TopicSummaryRow } from './types'

/** Where summaries live (the Koishi table `memory_summary`; memory in unit tests). No business logic. */
export interface TopicSummaryStore {
  /** Inserts a new row; throws when the id exists (a concurrent writer made this version). */
  insert(row: TopicSummaryRow): Promise<void>
  get(ids: string[]): Promise<TopicSummaryRow[]>
  /** The newest version of a topic's summary. */
  latest(topicId: string): Promise<TopicSummaryRow | undefined>
  /** Every version of a topic's summary, oldest first. */
  versions(topicId: string): Promise<TopicSummaryRow[]>
  /** The newest version of each summarised topic of a channel, most recent `lastMessageAt` first. */
  latestInChannel(channel: SummaryChannel, limit: number): Promise<TopicSummaryRow[]>
  /**
   * The newest version of the summaries of group topics with at least `minTopicMessages` messages,
   * most recent `lastMessageAt` first, at most `limit` topics.
   */
  busiest(minTopicMessages: number, limit: number): Promise<TopicSummaryRow[]>
  /** Ids of the newest version of every summarised topic (to reindex). */
  latestIds(): Promise<string[]>
  /** Removes every version of these topics' summaries; returns the ids removed. */
  removeTopics(topicIds: string[]): Promise<string[]>
}
