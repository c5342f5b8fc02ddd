import type { IndexedTable, IndexKind } from '../store/index-sync'
import type { KnowledgeStore } from './store'
import type { EntityRow } from './types'

export const ENTITIES_TABLE = 'knowledge_entities'

/** The LanceDB copy of entities: searched by name, aliases and description, in their scope. */
export type EntityIndex = IndexedTable<EntityRow>

export function entityText(row: Pick<EntityRow, 'name' | 'aliases' | 'description'>): string {
  return [row.name, ...row.aliases, row.description].filter(Boolean).join(' ')
}

export function entityIndexKind(store: Pick<KnowledgeStore, 'entities' | 'allEntityIds'>): IndexKind<EntityRow> {
  return {
    table: ENTITIES_TABLE,
    name: 'entities',
    fields: (row) => ({
      id: row.id,
      text: entityText(row),
      platform: row.platform,
      user_id: row.userId,
      guild_id: row.guildId,
      channel_id: '',
      created_at: row.firstSeen.getTime(),
    }),
    load: (ids) => store.entities(ids),
    allIds: () => store.allEntityIds(),
  }
}
