import { defineMemoryKind } from '../module'
import { createGroupMemories, KoishiGroupStore } from './koishi-store'
import type { GroupMemories, GroupMemoriesOptions } from './memories'
import type { EvolutionPrompts } from './prompts'
import { defineGroupTables } from './table'

export interface GroupPart {
  memories: GroupMemories
  store: KoishiGroupStore
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
  create({ ctx, index, outbox, embedder, llm, counters, logger }, settings: GroupSettings) {
    const memories = createGroupMemories(ctx, {
      index,
      outbox,
      embedder,
      llm: () => llm,
      prompts: settings.prompts,
      counters,
      logger,
      options: settings.options,
    })
    return { memories, store: new KoishiGroupStore(ctx) }
  },
  indexes: (part) => [part.memories.index?.table],
})
