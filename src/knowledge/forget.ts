import type { EntityIndex } from './entity-index'
import type { KnowledgeStore } from './store'
import type { ProfileRow } from './types'
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
export async function forgetKnowledge(deps: ForgetDeps, owner: UserRef, messageIds: string[]): Promise<ForgottenKnowledge> {
  const profiles = await deps.store.removeProfiles(owner.platform, owner.userId)
  return { ...(await forgetSources(deps, owner, messageIds)), profiles }
}

/**
 * Some of a user's messages are erased (`memory.forget <id>`): the entities and relations only they
 * support go, and the user's profiles lose what was learnt only from them; their text is written
 * again from what is left (the forgotten fact is gone already).
 */
export async function forgetLines(
  deps: ForgetDeps & { rewrite(profile: ProfileRow): Promise<unknown> },
  owner: UserRef,
  messageIds: string[],
): Promise<Omit<ForgottenKnowledge, 'profiles'>> {
  const erased = new Set(messageIds)
  const counts = await forgetSources(deps, owner, messageIds)
  for (const profile of await deps.store.profilesOf(owner)) {
    profile.preferences = keptItems(profile.preferences, erased)
    profile.traits = keptItems(profile.traits, erased)
    await deps.rewrite(profile)
  }
  return counts
}

function keptItems<T extends { sourceIds: string[] }>(items: T[], erased: Set<string>): T[] {
  return items
    .filter((item) => !item.sourceIds.length || item.sourceIds.some((id) => !erased.has(id)))
    .map((item) => ({ ...item, sourceIds: item.sourceIds.filter((id) => !erased.has(id)) }))
}

interface ForgetDeps {
  store: KnowledgeStore
  entityIndex: Pick<EntityIndex, 'remove'>
}

async function forgetSources(deps: ForgetDeps, owner: UserRef, messageIds: string[]): Promise<Omit<ForgottenKnowledge, 'profiles'>> {
  const { store, entityIndex } = deps
  const erased = new Set(messageIds)
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
  return { entities: gone.length, relations: dropped.size }
}
