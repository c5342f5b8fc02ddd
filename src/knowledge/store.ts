import type { PersonRef } from '../scope'
import type { EntityRow, KnowledgeScope, ProfileRow, PromotedTopicRow, RelationRow } from './types'

/** The knowledge tables, read and written only through this store. */
export interface KnowledgeStore {
  entitiesOf(scope: KnowledgeScope): Promise<EntityRow[]>
  entities(ids: string[]): Promise<EntityRow[]>
  /** Entities of a platform that name any of `sourceIds` (a forget). */
  entitiesFrom(platform: string, sourceIds: string[]): Promise<EntityRow[]>
  allEntityIds(): Promise<string[]>
  upsertEntities(rows: EntityRow[]): Promise<void>
  removeEntities(ids: string[]): Promise<void>
  /** Relations of a scope whose subject or object is one of `entityIds`. */
  relationsTouching(scope: KnowledgeScope, entityIds: string[]): Promise<RelationRow[]>
  relationsFrom(platform: string, sourceIds: string[]): Promise<RelationRow[]>
  upsertRelations(rows: RelationRow[]): Promise<void>
  removeRelations(ids: string[]): Promise<void>
  profile(ref: PersonRef): Promise<ProfileRow | undefined>
  /** Profiles with something learnt since their last consolidation. */
  pendingProfiles(limit: number): Promise<ProfileRow[]>
  upsertProfile(row: ProfileRow): Promise<void>
  /** Profiles of a user (in every guild), of a guild, or every profile (an export). */
  profilesOf(filter?: { platform: string; userId?: string; guildId?: string }): Promise<ProfileRow[]>
  /** Removes every profile of a user on a platform; returns how many. */
  removeProfiles(platform: string, userId: string): Promise<number>
  /** Which of these topics were promoted into the knowledge already. */
  promotedTopics(topicIds: string[]): Promise<Set<string>>
  markPromoted(row: PromotedTopicRow): Promise<void>
}
