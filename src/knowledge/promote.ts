import type { Counters, Logger } from '../core/observability'
import type { KnowledgeStore } from './store'
import type { KnowledgeLearner } from './learner'
import { knowledgeScope } from './types'

/** A hot mid-term topic of a group, with its newest summary. */
export interface HotTopic {
  topicId: string
  platform: string
  guildId: string
  summaryId: string
  summary: string
  /** When the summarised talk ended: when what it says became known. */
  at: Date
  /** The topic's messages, the sources of what is learnt from its summary. */
  sourceIds(): Promise<string[]>
}

export interface PromoteDeps {
  store: Pick<KnowledgeStore, 'promotedTopics' | 'markPromoted'>
  learner: Pick<KnowledgeLearner, 'learnText'>
  counters: Counters
  logger: Logger
  now(): Date
}

/**
 * Promotes hot mid-term topics into their group's long-term knowledge (design §4.5):
 * the entities and relations of each topic's summary, drawn from the topic's messages. Each topic once
 * (`memory_promoted_topic`); at most `limit` per call; a topic that fails stays for the next call.
 * Private chats have no mid-term topics to promote. Returns how many were promoted; never throws.
 */
export async function promoteTopics(deps: PromoteDeps, topics: HotTopic[], limit: number): Promise<number> {
  try {
    const groupTopics = topics.filter((topic) => topic.guildId && topic.summary.trim())
    const done = await deps.store.promotedTopics(groupTopics.map((topic) => topic.topicId))
    let promoted = 0
    for (const topic of groupTopics) {
      if (promoted >= limit) break
      if (done.has(topic.topicId)) continue
      done.add(topic.topicId)
      try {
        const scope = knowledgeScope({ platform: topic.platform, guildId: topic.guildId })
        const learnt = await deps.learner.learnText(scope, topic.summary, await topic.sourceIds(), topic.at)
        await deps.store.markPromoted({
          topicId: topic.topicId,
          platform: topic.platform,
          guildId: topic.guildId,
          summaryId: topic.summaryId,
          ...learnt,
          promotedAt: deps.now(),
        })
        promoted++
      } catch (error) {
        deps.logger.warn('could not promote topic %s into the knowledge: %s', topic.topicId, (error as Error).message)
      }
    }
    deps.counters.inc('knowledge.topics_promoted', promoted)
    return promoted
  } catch (error) {
    deps.logger.warn('could not promote hot topics: %s', (error as Error).message)
    return 0
  }
}
