import { defineMemoryKind } from '../module'
import { IndexedTable } from '../store/index-sync'
import { entityIndexKind } from './entity-index'
import { KnowledgeExtractor } from './extractor'
import { Knowledge } from './knowledge'
import { KoishiKnowledgeStore } from './koishi-store'
import { KnowledgeLearner } from './learner'
import { ProfileBook } from './profiles'
import { defineKnowledgeTables } from './table'
import type { EntityRow } from './types'

export interface KnowledgePart {
  store: KoishiKnowledgeStore
  entityIndex: IndexedTable<EntityRow>
  profiles: ProfileBook
  learner: KnowledgeLearner
  knowledge: Knowledge
}

export interface KnowledgeSettings {
  /** New items after which a profile is rewritten. */
  consolidateAfter: number
  /** Similarity at which two entities merge; undefined: by name and alias alone. */
  mergeSimilarity?: number
}

declare module '../module' {
  interface ModuleParts {
    knowledge: KnowledgePart
  }
}

/** Entities, relations and profiles learnt from what was said. */
export const knowledgeModule = defineMemoryKind({
  name: 'knowledge',
  tables: defineKnowledgeTables,
  create(env, settings: KnowledgeSettings): KnowledgePart {
    const { ctx, sync, llm, counters, logger, newId, now, fence } = env
    const facts = env.part('facts').store
    const store = new KoishiKnowledgeStore(ctx)
    const entityIndex = new IndexedTable(sync, entityIndexKind(store))
    const profiles = new ProfileBook({
      store,
      factsOf: async (ref, limit) => (await facts.list(ref, limit)).map((row) => row.content),
      llm,
      charge: env.charge,
      threshold: settings.consolidateAfter,
      counters,
      logger,
      now,
    })
    const learner = new KnowledgeLearner({
      store,
      entityIndex,
      mergeSimilarity: settings.mergeSimilarity,
      extractor: new KnowledgeExtractor(logger),
      profiles,
      counters,
      logger,
      newId,
      now,
      forgottenAt: (owner) => fence.since(owner),
    })
    const knowledge = new Knowledge({ store, index: entityIndex, learner, profiles, logger, counters })
    return { store, entityIndex, profiles, learner, knowledge }
  },
  indexes: (part) => [part.entityIndex],
  // before any message goes: entities and relations name their sources by message id
  erase: (part) => ({
    user: (owner, messageIds) => part.knowledge.forgetUser(owner, messageIds),
    messages: (owner, erased) =>
      part.knowledge.forgetMessages(
        owner,
        erased.map((row) => row.id),
      ),
  }),
})
