import { defineMemoryKind, topicsOf } from '../module'
import type { TopicThresholds } from './attributor'
import { TopicAttributor } from './attributor'
import { rewordTopics } from './forget'
import { LlmTopicJudge } from './judge'
import { KoishiTopicStore } from './koishi-store'
import { defineTopicTable } from './table'

export interface TopicsPart {
  store: KoishiTopicStore
  attributor: TopicAttributor
}

export interface TopicSettings {
  /** Ask the model when similarity alone cannot tell (only with a model). */
  useLlm: boolean
  idleMs: number
  followMs: number
  thresholds: Partial<TopicThresholds>
}

declare module '../module' {
  interface ModuleParts {
    topics: TopicsPart
  }
}

/** Topics of a channel and the real-time attribution of each message to one. */
export const topicsModule = defineMemoryKind({
  name: 'topics',
  tables: defineTopicTable,
  create(env, settings: TopicSettings) {
    const { ctx, embedder, llm, counters, logger } = env
    const store = new KoishiTopicStore(ctx)
    const options = {
      topics: store,
      messages: env.part('messages').store,
      embedder,
      judge: settings.useLlm && llm ? new LlmTopicJudge(llm, { counters, logger }) : undefined,
      idleMs: settings.idleMs,
      followMs: settings.followMs,
      counters,
      logger,
    }
    try {
      return { store, attributor: new TopicAttributor({ ...options, thresholds: settings.thresholds }) }
    } catch (error) {
      logger.error('topic thresholds ignored (%s); using the defaults of the embedder', (error as Error).message)
      return { store, attributor: new TopicAttributor(options) }
    }
  },
  erase: (part, env) => ({
    // a topic's words and title are made again from the messages left
    afterMessages: (owner, erased) =>
      rewordTopics({ topics: part.store, messages: env.part('messages').store }, owner.userId, topicsOf(erased)),
  }),
})
