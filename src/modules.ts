import { channelSummariesModule } from './channel-summaries'
import type { Config } from './config'
import { contextModule } from './context'
import { episodesModule } from './episodes'
import { factsModule } from './facts'
import { groupModule } from './group'
import { knowledgeModule } from './knowledge'
import { messagesModule } from './messages'
import type { Registration } from './module'
import { register } from './module'
import type { Embedder } from './providers/types'
import { topicSummariesModule } from './topic-summaries'
import { topicsModule } from './topics'

/**
 * The memory kinds, in the order they are built (a kind may use the parts of those above it), each
 * with its settings from the console's configuration. A new kind is its folder and one line here.
 */
export function memoryModules(config: Config, embedder: Pick<Embedder, 'lexical'>): Registration[] {
  const { prompts } = config
  return [
    register(messagesModule),
    register(topicsModule, {
      useLlm: config.topics.useLlm,
      idleMs: config.topics.idleMinutes * 60_000,
      followMs: config.topics.followMinutes * 60_000,
      thresholds: { join: config.topics.joinThreshold, low: config.topics.lowThreshold },
    }),
    register(channelSummariesModule, { temperature: config.llm.temperature }),
    register(topicSummariesModule, {
      countThreshold: config.summaries.countThreshold,
      minMessages: config.summaries.minMessages,
      searchWeights: { keyword: config.summaries.keywordWeight, vector: config.summaries.vectorWeight },
    }),
    register(factsModule, {
      prompts: { extraction: { zh: prompts.extractionZh, en: prompts.extractionEn } },
      table: config.store.factsTable,
      lexicalShare: config.retrieval.lexicalShare,
    }),
    register(episodesModule),
    register(contextModule),
    register(groupModule, {
      prompts: () => ({ zh: prompts.groupEvolveZh, en: prompts.groupEvolveEn }),
      options: {
        maxMemories: config.group.maxMemories,
        maxMessages: config.group.maxMessages,
        defaultDays: config.group.days,
        leaseMs: config.group.leaseSeconds * 1000,
        includeBotMessages: config.group.includeBotMessages,
        temperature: config.llm.temperature,
        searchThreshold: config.group.searchThreshold || undefined,
        mode: config.group.mode,
        expiryMs: config.group.reviewExpiryHours * 3_600_000,
      },
    }),
    register(knowledgeModule, {
      consolidateAfter: config.knowledge.consolidateAfter,
      // the offline embedder only sees shared characters (上海, 上海交大): it merges by name and alias alone
      mergeSimilarity: embedder.lexical || config.knowledge.mergeSimilarity >= 1 ? undefined : config.knowledge.mergeSimilarity,
    }),
  ]
}
