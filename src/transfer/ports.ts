import type { FactStore, FactRow } from '../facts'
import type { GroupChangeRow, GroupMemoryRow, GroupMemoryStore, GroupRef } from '../group'
import type { EntityRow, KnowledgeStore, ProfileRow, RelationRow } from '../knowledge'
import type { TopicSummaryRow, TopicSummaryStore } from '../topic-summaries'
import type { TopicRow, TopicStore } from '../topics'
import type { MessageStore } from '../messages'
import type { GuildRef } from '../scope'

/**
 * What an export reads and an import writes, domain by domain: each domain's own store and the index
 * its normal writes go through, so an imported row is stored and indexed (embedded with the configured
 * embedder) exactly as a learnt one is. Nothing here reaches a table another way.
 */
export interface TransferPorts {
  facts: Pick<FactStore, 'get' | 'list' | 'ofUser' | 'allIds' | 'findByContent' | 'insert'>
  /** The facts' index: `put` embeds and writes, or leaves the rows in the outbox. */
  factIndex: { put(rows: FactRow[]): Promise<boolean> }
  groups: Pick<GroupMemoryStore, 'getMemories' | 'getChanges' | 'putMemory' | 'putChange'> & {
    /** Every version of every memory of a group, or of every group. */
    memoriesOf(group?: GroupRef): Promise<GroupMemoryRow[]>
    /** The change log of a group, or of every group. */
    changesOf(group?: GroupRef): Promise<GroupChangeRow[]>
  }
  /** The group memories' index: active heads are indexed, the rest removed. */
  groupIndex?: { sync(rows: GroupMemoryRow[], deleteIds: string[]): Promise<void> }
  topics: Pick<TopicStore, 'get' | 'create'> & {
    /** Every topic of a guild, or of every channel. */
    inGuild(guild?: GuildRef): Promise<TopicRow[]>
  }
  summaries: Pick<TopicSummaryStore, 'get' | 'insert' | 'versions'> & {
    /** Every summary version of a guild's topics, or of every topic. */
    inGuild(guild?: GuildRef): Promise<TopicSummaryRow[]>
  }
  /** The summaries' index: it holds the newest version of each topic. */
  summaryIndex?: { put(row: TopicSummaryRow, replacedIds: string[]): Promise<boolean> }
  knowledge: Pick<
    KnowledgeStore,
    'entitiesOf' | 'entities' | 'allEntityIds' | 'upsertEntities' | 'relationsTouching' | 'upsertRelations' | 'profile' | 'upsertProfile'
  > & {
    /** Profiles of a user (every guild), of a guild, or all of them. */
    profilesOf(filter?: { platform: string; userId?: string; guildId?: string }): Promise<ProfileRow[]>
    /** Relations by id. */
    relations(ids: string[]): Promise<RelationRow[]>
  }
  /** Captured messages, read only: whose a row's `sourceIds` are. */
  messages: Pick<MessageStore, 'byIds'>
  /** The entities' index. */
  entityIndex: { put(rows: EntityRow[]): Promise<boolean> }
  /** The id of the configured embedder: imported summaries are indexed with it. */
  embedderId: string
  /** A fresh id for a row whose own is taken or too long (short: it fits every id column). */
  newId(): string
  now(): Date
}
