import { defineMemoryKind, topicsOf } from '../module'
import type { TopicSummaries, TopicSummariesOptions } from './summaries'
import { createTopicSummaries, KoishiTopicSummaryStore } from './koishi-store'
import { defineTopicSummaryTable } from './table'

export interface TopicSummariesPart {
  summaries: TopicSummaries
  store: KoishiTopicSummaryStore
}

declare module '../module' {
  interface ModuleParts {
    topicSummaries: TopicSummariesPart
  }
}

/** Summaries of topics (mid-term), searched by keywords and vectors. */
export const topicSummariesModule = defineMemoryKind({
  name: 'topicSummaries',
  tables: defineTopicSummaryTable,
  create({ ctx, index, outbox, embedder, llm, charge, counters, logger, part }, options: Partial<TopicSummariesOptions>) {
    const summaries = createTopicSummaries(ctx, {
      topics: part('topics').store,
      messages: part('messages').store,
      index,
      outbox,
      embedder,
      llm: () => llm,
      charge,
      counters,
      logger,
      options,
    })
    return { summaries, store: new KoishiTopicSummaryStore(ctx) }
  },
  indexes: (part) => [part.summaries.index?.table],
  erase: (part) => ({
    messages: async (_owner, erased) => ({ topicSummaries: await part.summaries.eraseTopics(topicsOf(erased)) }),
  }),
})
