import type { EntityIndex } from './entity-index'
import type { KnowledgeStore } from './store'
import type { UserRef } from '../scope'

export interface ForgottenKnowledge {
  entities: number
  relations: number
  profiles: number
}

/**
 * A user is forgotten (`forget --all`): their profiles go, and the entities and relations that only
 * their messages support (every source among `messageIds`), with the relations of the entities that go
 * and the entities' index rows. What others' messages also support stays, without the erased sources.
 */
export async function forgetKnowledge(
  deps: { store: KnowledgeStore; entityIndex: Pick<EntityIndex, 'remove'> },
  owner: UserRef,
  messageIds: string[],
): Promise<ForgottenKnowledge> {
  const { store, entityIndex } = deps
  const erased = new Set(messageIds)
  const profiles = await store.removeProfiles(owner.platform, owner.userId)
  const entities = await store.entitiesFrom(owner.platform, messageIds)
  const gone = entities.filter((row) => row.sourceIds.every((id) => erased.has(id)))
  const kept = entities.filter((row) => !gone.includes(row))
  for (const row of kept) row.sourceIds = row.sourceIds.filter((id) => !erased.has(id))
  const goneIds = new Set(gone.map((row) => row.id))
  const relations = await store.relationsFrom(owner.platform, messageIds)
  const byScope = new Map<string, { scope: (typeof gone)[number]; ids: string[] }>()
  for (const row of gone) {
    const key = JSON.stringify([row.platform, row.guildId, row.userId])
    byScope.set(key, { scope: row, ids: [...(byScope.get(key)?.ids ?? []), row.id] })
  }
  const orphaned = (await Promise.all([...byScope.values()].map(({ scope, ids }) => store.relationsTouching(scope, ids)))).flat()
  const dropped = new Map(
    [...relations.filter((row) => row.sourceIds.every((id) => erased.has(id))), ...orphaned].map((row) => [row.id, row]),
  )
  const trimmed = relations.filter((row) => !dropped.has(row.id) && !goneIds.has(row.subjectId) && !goneIds.has(row.objectId))
  for (const row of trimmed) row.sourceIds = row.sourceIds.filter((id) => !erased.has(id))
  await store.removeRelations([...dropped.keys()])
  await store.upsertRelations(trimmed)
  await store.removeEntities([...goneIds])
  await store.upsertEntities(kept)
  await entityIndex.remove([...goneIds])
  return { entities: gone.length, relations: dropped.size, profiles }
}
