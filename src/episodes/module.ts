import { defineMemoryKind } from '../module'
import { EpisodicMemory } from './episodic'
import { KoishiEpisodeStore } from './koishi-store'
import { defineEpisodeTable } from './table'

declare module '../module' {
  interface ModuleParts {
    episodes: EpisodicMemory
  }
}

/** User → bot exchanges, recalled by recency and similarity. */
export const episodesModule = defineMemoryKind({
  name: 'episodes',
  tables: defineEpisodeTable,
  create: ({ ctx, sync }) => new EpisodicMemory({ ...sync, store: new KoishiEpisodeStore(ctx) }),
  indexes: (episodes) => [episodes.indexed],
  erase: (episodes) => ({
    messages: async (_owner, erased) => ({
      episodes: await episodes.remove(erased.flatMap((row) => (row.answers ? [row.id, row.answers] : [row.id]))),
    }),
  }),
})
