import { defineMemoryKind } from '../module'
import { GroupForget } from './forget'
import { createGroupMemories, KoishiGroupStore, KoishiReviewStore } from './koishi-store'
import type { GroupMemories, GroupMemoriesOptions } from './memories'
import type { EvolutionPrompts } from './prompts'
import { KoishiGroupSources } from './sources'
import { defineGroupTables } from './table'

export interface GroupPart {
  memories: GroupMemories
  store: KoishiGroupStore
  /** What a forget does to group memory. */
  forget: GroupForget
}

export interface GroupSettings {
  /** The evolution prompts (editable in the console), read at each evolution. */
  prompts: () => EvolutionPrompts
  options: Partial<GroupMemoriesOptions>
}

declare module '../module' {
  interface ModuleParts {
    group: GroupPart
  }
}

/** Group memory that evolves (keep / update / create / delete), its versions, change log and review queue. */
export const groupModule = defineMemoryKind({
  name: 'group',
  tables: defineGroupTables,
  create({ ctx, index, outbox, embedder, llm, charge, counters, logger, part }, settings: GroupSettings) {
    // the message store the other kinds read, with its one cache of rows in the memory budget
    const messages = part('messages').store
    const memories = createGroupMemories(ctx, {
      messages,
      index,
      outbox,
      embedder,
      llm: () => llm,
      charge,
      prompts: settings.prompts,
      counters,
      logger,
      options: settings.options,
    })
    const store = new KoishiGroupStore(ctx, messages)
    const forget = new GroupForget({
      store,
      reviews: new KoishiReviewStore(ctx),
      sources: new KoishiGroupSources(ctx),
      index: memories.index,
      exclusive: (group, task) => memories.evolver.exclusive(group, task),
      counters,
      logger,
    })
    return { memories, store, forget }
  },
  indexes: (part) => [part.memories.index?.table],
  erase: (part) => ({
    // once the messages are gone, so an evolution starting meanwhile cannot read them again
    afterMessages: async (owner, erased) => ({ groupMemories: await part.forget.eraseMessages(owner.platform, erased) }),
  }),
})
