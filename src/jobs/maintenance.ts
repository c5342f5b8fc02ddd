import type { Logger } from '../core/observability'
import type { GroupMemories } from '../group'
import type { TopicSummaries } from '../topic-summaries'
import type { TopicAttributor, TopicRow } from '../topics'
import type { KeyedQueue } from './queue'

export interface MaintenanceDeps {
  queue: KeyedQueue
  attributor: Pick<TopicAttributor, 'closeIdleTopics'>
  /** Closed topics end the dialogues of their channels that have been quiet since. */
  onTopicsClosed(closed: TopicRow[]): void
  summaries: Pick<TopicSummaries, 'onTopicsClosed' | 'scheduledPass'>
  groups: Pick<GroupMemories, 'groupsWithNewMessages' | 'evolve'>
  /** Whether a chat model is configured (group evolution needs one). */
  hasModel: boolean
  summariesEnabled: boolean
  evolutionDays: number
  /** Fewest new messages that make a group due for the daily evolution. */
  evolutionMinMessages: number
  logger: Logger
}

/** The background work the timers start: closing idle topics, summaries, group evolution. */
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

  /** Queues an evolution of every group with new messages; returns how many were queued. */
  async evolveDueGroups(): Promise<number> {
    const { groups, queue, hasModel, evolutionDays, evolutionMinMessages, logger } = this.deps
    if (!hasModel) return 0
    try {
      let queued = 0
      for (const group of await groups.groupsWithNewMessages(evolutionDays, evolutionMinMessages)) {
        if (queue.push(`group:${group.platform}:${group.guildId}`, () => groups.evolve(group))) queued++
      }
      return queued
    } catch (error) {
      logger.warn('scheduled group evolution failed: %s', (error as Error).message)
      return 0
    }
  }
}
