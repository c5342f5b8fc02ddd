import type { IndexedTable, IndexKind } from '../store/index-sync'
import type { FactStore } from './store'
import type { FactRow } from './table'

/** The LanceDB copy of facts: searched by their content, scoped to their user and guild. */
export type FactIndex = IndexedTable<FactRow>

export function factIndexKind(table: string, facts: Pick<FactStore, 'get' | 'allIds' | 'idsAfter' | 'changedSince'>): IndexKind<FactRow> {
  return {
    table,
    name: 'facts',
    fields: (fact) => ({
      id: fact.id,
      text: fact.content,
      platform: fact.platform,
      user_id: fact.userId,
      guild_id: fact.guildId,
      channel_id: fact.channelId,
      created_at: fact.createdAt.getTime(),
    }),
    load: (ids) => facts.get(ids),
    allIds: () => facts.allIds(),
    ...(facts.idsAfter && { idsAfter: (after, limit) => facts.idsAfter!(after, limit) }),
    ...(facts.changedSince && { changedSince: (since) => facts.changedSince!(since) }),
  }
}
