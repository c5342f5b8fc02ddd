import type { Logger } from '../core/observability'
import type { EntityIndex } from './entity-index'
import type { KnowledgeStore } from './store'
import { nameKey } from './names'
import type { EntityRow, EntityType, KnowledgeScope } from './types'

export interface EntitySearchOptions {
  types?: EntityType[]
  /** Default 10. */
  limit?: number
}

export interface FoundEntity {
  entity: EntityRow
  score: number
  /** The query names it (its name or an alias), rather than the index finding it near the query. */
  named: boolean
}

const inScope = (row: EntityRow, scope: KnowledgeScope) =>
  row.platform === scope.platform && row.guildId === scope.guildId && row.userId === scope.userId

/**
 * Entities of a scope for a query (design §4.7): a name or alias the query contains first, then
 * the hybrid (vector + full-text) hits of the `knowledge_entities` index. With the index down, the
 * name matches alone. Never throws.
 */
export async function searchEntities(
  deps: { store: Pick<KnowledgeStore, 'entitiesOf' | 'entities'>; index: Pick<EntityIndex, 'search'>; logger: Logger },
  scope: KnowledgeScope,
  query: string,
  options: EntitySearchOptions = {},
): Promise<FoundEntity[]> {
  const limit = options.limit ?? 10
  const wanted = (row: EntityRow) => inScope(row, scope) && (!options.types?.length || options.types.includes(row.type))
  const key = nameKey(query)
  if (!key) return []
  try {
    const found = new Map<string, FoundEntity>()
    for (const row of await deps.store.entitiesOf(scope)) {
      const names = [row.key, ...row.aliases.map(nameKey)].filter((name) => name.length >= 2 || name === key)
      if (wanted(row) && names.some((name) => key.includes(name) || name.includes(key)))
        found.set(row.id, { entity: row, score: 1, named: true })
    }
    const hits = await deps.index.search(query, scope, limit * 2).catch((error: Error) => {
      deps.logger.debug('entity search without the index: %s', error.message)
      return []
    })
    const rows = new Map((await deps.store.entities(hits.map((hit) => hit.id))).map((row) => [row.id, row]))
    for (const hit of hits) {
      const row = rows.get(hit.id)
      if (row && wanted(row) && !found.has(row.id)) found.set(row.id, { entity: row, score: hit.relevance, named: false })
    }
    return [...found.values()].sort((a, b) => b.score - a.score || b.entity.mentions - a.entity.mentions).slice(0, limit)
  } catch (error) {
    deps.logger.warn('could not search entities: %s', (error as Error).message)
    return []
  }
}
