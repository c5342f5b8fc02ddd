import type { KnowledgeStore } from './store'
import { nameKey } from './names'
import type { EntityRow, KnowledgeScope, RelationRow } from './types'

export interface GraphOptions {
  /** Hops from the entity. Default 2. */
  maxDepth?: number
  /** Only these predicates. */
  relationTypes?: string[]
  /** Most nodes. Default 50. */
  maxNodes?: number
  /** Time budget in milliseconds. Default 200. */
  timeMs?: number
  /** Relations that stopped being true as well. */
  history?: boolean
}

export interface GraphNode {
  entity: EntityRow
  depth: number
}

export interface Graph {
  /** The entity asked about; absent when the scope has none of that name. */
  root?: EntityRow
  nodes: GraphNode[]
  edges: RelationRow[]
  /** The node or time bound stopped the search before it was complete. */
  truncated: boolean
}

/** The entity of a scope with this name or alias. */
export async function findEntity(
  store: Pick<KnowledgeStore, 'entitiesOf'>,
  scope: KnowledgeScope,
  name: string,
): Promise<EntityRow | undefined> {
  const key = nameKey(name)
  if (!key) return undefined
  const rows = await store.entitiesOf(scope)
  return rows.find((row) => row.key === key) ?? rows.find((row) => row.aliases.some((alias) => nameKey(alias) === key))
}

/**
 * The neighbourhood of an entity (design §4.7): breadth-first over the relation table, one query
 * per hop, bounded in nodes and time.
 */
export async function queryGraph(
  store: Pick<KnowledgeStore, 'entitiesOf' | 'entities' | 'relationsTouching'>,
  scope: KnowledgeScope,
  name: string,
  options: GraphOptions = {},
  clock: () => number = Date.now,
): Promise<Graph> {
  const maxDepth = options.maxDepth ?? 2
  const maxNodes = Math.max(1, options.maxNodes ?? 50)
  const deadline = clock() + (options.timeMs ?? 200)
  const root = await findEntity(store, scope, name)
  if (!root) return { nodes: [], edges: [], truncated: false }
  const nodes = new Map<string, GraphNode>([[root.id, { entity: root, depth: 0 }]])
  const edges = new Map<string, RelationRow>()
  const types = options.relationTypes?.length ? new Set(options.relationTypes) : undefined
  let frontier = [root.id]
  let truncated = false
  for (let depth = 1; depth <= maxDepth && frontier.length; depth++) {
    if (clock() > deadline) {
      truncated = true
      break
    }
    const relations = (await store.relationsTouching(scope, frontier)).filter(
      (row) => (options.history || !row.validTo) && (!types || types.has(row.predicate)),
    )
    const reached = new Set<string>()
    for (const relation of relations) {
      for (const id of [relation.subjectId, relation.objectId]) if (!nodes.has(id)) reached.add(id)
    }
    const room = maxNodes - nodes.size
    if (reached.size > room) truncated = true
    const found = await store.entities([...reached].slice(0, Math.max(0, room)))
    for (const entity of found)
      if (entity.platform === scope.platform && entity.guildId === scope.guildId && entity.userId === scope.userId)
        nodes.set(entity.id, { entity, depth })
    for (const relation of relations) if (nodes.has(relation.subjectId) && nodes.has(relation.objectId)) edges.set(relation.id, relation)
    frontier = found.map((entity) => entity.id)
    if (nodes.size >= maxNodes && frontier.length) truncated ||= depth < maxDepth
  }
  return { root, nodes: [...nodes.values()], edges: [...edges.values()], truncated }
}
