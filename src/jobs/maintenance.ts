import type { Logger } from '../core/observability'
import type { GroupMemories } from '../group'
import type { HotTopic } from '../knowledge'
import type { TopicSummaries } from '../topic-summaries'
import type { TopicAttributor, TopicRow } from '../topics'
import type { KeyedQueue } from '../core/keyed-queue'
import type { BudgetGate } from '../budget'
import { budgetOwnerOf } from '../budget'
import type { GroupRef } from '../scope'

export interface MaintenanceDeps {
  queue: KeyedQueue
  attributor: Pick<TopicAttributor, 'closeIdleTopics'>
  /** Closed topics end the dialogues of their channels that have been quiet since. */
  onTopicsClosed(closed: TopicRow[]): void
  summaries: Pick<TopicSummaries, 'onTopicsClosed' | 'scheduledPass' | 'hotTopics' | 'rawMessages'>
  /**
   * Learns hot topics' summaries into their groups' knowledge, each topic once, at most `limit`;
   * left out when the knowledge is off. Returns how many were promoted.
   */
  promoteTopics?(topics: HotTopic[], limit: number): Promise<number>
  /** What makes a topic hot: messages and speakers. */
  hotTopic: { minMessages: number; minParticipants: number }
  groups: Pick<GroupMemories, 'groupsWithNewMessages' | 'evolve' | 'expireReviews'>
  /** Whether a chat model is configured (group evolution needs one). */
  hasModel: boolean
  /** The model-call budgets each group's evolution is charged to. */
  budgets?: BudgetGate
  summariesEnabled: boolean
  evolutionDays: number
  /** Fewest new messages that make a group due for the daily evolution. */
  evolutionMinMessages: number
  logger: Logger
}

/** Most hot topics promoted into long-term knowledge per run (the run is hourly). */
const HOT_TOPICS_PER_RUN = 5

/** The background work the timers start: closing idle topics, summaries, group evolution and its review queue. */
export class Maintenance {
  constructor(private readonly deps: MaintenanceDeps) {}

  /** Closes topics idle at `now` (a replay passes its own clock) and summarises them in the background. */
  async closeIdleTopics(now?: Date) {
    const { attributor, queue, summaries, summariesEnabled, logger } = this.deps
    try {
      const closed = await attributor.closeIdleTopics(now)
      if (closed.length) this.deps.onTopicsClosed(closed)
      if (closed.length && summariesEnabled) queue.push('summaries:closed', () => summaries.onTopicsClosed(closed))
      return closed
    } catch (error) {
      logger.warn('closing idle topics failed: %s', (error as Error).message)
      return []
    }
  }

  /** Queues the scheduled pass over active topics' summaries. */
  summarizeTopics(): void {
    this.deps.queue.push('summaries:scheduled', () => this.deps.summaries.scheduledPass())
  }

  /**
   * Promotes hot mid-term topics (many messages, several speakers, summarised) into long-term
   * knowledge, at most `HOT_TOPICS_PER_RUN` per run; on the timer that consolidates profiles.
   * Returns how many were promoted; never throws.
   */
  async promoteHotTopics(): Promise<number> {
    const { promoteTopics, summaries, summariesEnabled, hotTopic, logger } = this.deps
    if (!promoteTopics || !summariesEnabled) return 0
    try {
      const rows = await summaries.hotTopics({ ...hotTopic, limit: HOT_TOPICS_PER_RUN * 4 })
      const topics: HotTopic[] = rows.map((row) => ({
        topicId: row.topicId,
        platform: row.platform,
        guildId: row.guildId,
        summaryId: row.id,
        summary: row.summary,
        at: row.lastMessageAt,
        sourceIds: async () => (await summaries.rawMessages(row.topicId, { limit: 200 })).map((message) => message.id),
      }))
      return await promoteTopics(topics, HOT_TOPICS_PER_RUN)
    } catch (error) {
      logger.warn('promoting hot topics failed: %s', (error as Error).message)
      return 0
    }
  }

  /** Queues an evolution of every group with new messages; returns how many were queued. */
  async evolveDueGroups(): Promise<number> {
    const { groups, queue, hasModel, budgets, evolutionDays, evolutionMinMessages, logger } = this.deps
    if (!hasModel) return 0
    try {
      let queued = 0
      for (const group of await groups.groupsWithNewMessages(evolutionDays, evolutionMinMessages)) {
        const evolve = budgets ? () => this.evolveWithin(budgets, group) : () => groups.evolve(group)
        if (queue.push(`group:${group.platform}:${group.guildId}`, evolve)) queued++
      }
      return queued
    } catch (error) {
      logger.warn('scheduled group evolution failed: %s', (error as Error).message)
      return 0
    }
  }

  /** Evolution is the model's work alone: a group whose calls of the day are spent evolves on a later day. */
  private async evolveWithin(budgets: BudgetGate, group: GroupRef) {
    const owner = budgetOwnerOf(group)
    if (!(await budgets.allows(owner))) return budgets.noteOffline(owner)
    await this.deps.groups.evolve(group)
  }

  /** Closes the review proposals that waited past `group.reviewExpiryHours` (logged per group). Never throws. */
  async expireReviews(): Promise<number> {
    try {
      return await this.deps.groups.expireReviews()
    } catch (error) {
      this.deps.logger.warn('expiring group memory proposals failed: %s', (error as Error).message)
      return 0
    }
  }
}
