import type { Context } from 'koishi'
import { chunks } from '../core/chunks'
import type { PersonRef } from '../scope'
import { cleanId } from '../scope'
import type { EntityRow, KnowledgeScope, ProfileRow, PromotedTopicRow, RelationRow } from './types'
import { profileId } from './types'
import type { KnowledgeStore } from './store'

/** A knowledge scope or a profile's user as the rows keep them. */
function scoped(ref: PersonRef): PersonRef {
  return { platform: cleanId(ref.platform), guildId: cleanId(ref.guildId), userId: cleanId(ref.userId) }
}

/** Rows whose `sourceIds` share an id with `ids`; JSON columns are not queryable everywhere, so this reads the platform's rows. */
function naming<T extends { sourceIds: string[] }>(rows: T[], ids: string[]): T[] {
  const wanted = new Set(ids)
  return rows.filter((row) => row.sourceIds.some((id) => wanted.has(id)))
}

export class KoishiKnowledgeStore implements KnowledgeStore {
  constructor(private readonly ctx: Context) {}

  entitiesOf(scope: KnowledgeScope) {
    return this.ctx.database.get('memory_entity', scoped(scope))
  }

  async entities(ids: string[]) {
    const rows: EntityRow[] = []
    for (const part of chunks(ids)) rows.push(...(await this.ctx.database.get('memory_entity', { id: { $in: part } })))
    return rows
  }

  async entitiesFrom(platform: string, sourceIds: string[]) {
    return sourceIds.length ? naming(await this.ctx.database.get('memory_entity', { platform: cleanId(platform) }), sourceIds) : []
  }

  async allEntityIds() {
    return (await this.ctx.database.get('memory_entity', {}, ['id'])).map((row) => row.id)
  }

  async upsertEntities(rows: EntityRow[]) {
    if (rows.length) await this.ctx.database.upsert('memory_entity', rows)
  }

  async removeEntities(ids: string[]) {
    for (const part of chunks(ids)) await this.ctx.database.remove('memory_entity', { id: { $in: part } })
  }

  async relationsTouching(scope: KnowledgeScope, entityIds: string[]) {
    const rows: RelationRow[] = []
    for (const part of chunks(entityIds)) {
      rows.push(
        ...(await this.ctx.database.get('memory_relation', {
          ...scoped(scope),
          $or: [{ subjectId: { $in: part } }, { objectId: { $in: part } }],
        })),
      )
    }
    return [...new Map(rows.map((row) => [row.id, row])).values()]
  }

  /** Relations by id (an import checks the ids it would keep). */
  async relations(ids: string[]) {
    const rows: RelationRow[] = []
    for (const part of chunks(ids)) rows.push(...(await this.ctx.database.get('memory_relation', { id: { $in: part } })))
    return rows
  }

  async relationsFrom(platform: string, sourceIds: string[]) {
    return sourceIds.length ? naming(await this.ctx.database.get('memory_relation', { platform: cleanId(platform) }), sourceIds) : []
  }

  async upsertRelations(rows: RelationRow[]) {
    if (rows.length) await this.ctx.database.upsert('memory_relation', rows)
  }

  async removeRelations(ids: string[]) {
    for (const part of chunks(ids)) await this.ctx.database.remove('memory_relation', { id: { $in: part } })
  }

  async profile(ref: PersonRef) {
    const [row] = await this.ctx.database.get('memory_profile', { id: profileId(scoped(ref)) })
    return row
  }

  pendingProfiles(limit: number) {
    return this.ctx.database.get('memory_profile', { pending: { $gt: 0 } }, { limit, sort: { updatedAt: 'asc' } })
  }

  async upsertProfile(row: ProfileRow) {
    await this.ctx.database.upsert('memory_profile', [row])
  }

  /** Profiles of a user (in every guild), of a guild, or every profile (an export). */
  profilesOf(filter?: { platform: string; userId?: string; guildId?: string }): Promise<ProfileRow[]> {
    if (!filter) return this.ctx.database.get('memory_profile', {})
    const where: Partial<Record<'platform' | 'userId' | 'guildId', string>> = { platform: cleanId(filter.platform) }
    if (filter.userId !== undefined) where.userId = cleanId(filter.userId)
    if (filter.guildId !== undefined) where.guildId = cleanId(filter.guildId)
    return this.ctx.database.get('memory_profile', where)
  }

  async removeProfiles(platform: string, userId: string) {
    const result = await this.ctx.database.remove('memory_profile', { platform: cleanId(platform), userId: cleanId(userId) })
    return result.matched ?? 0
  }

  async promotedTopics(topicIds: string[]) {
    const found = new Set<string>()
    for (const part of chunks([...new Set(topicIds)]))
      for (const row of await this.ctx.database.get('memory_promoted_topic', { topicId: { $in: part } }, ['topicId']))
        found.add(row.topicId)
    return found
  }

  async markPromoted(row: PromotedTopicRow) {
    await this.ctx.database.upsert('memory_promoted_topic', [row])
  }
}
