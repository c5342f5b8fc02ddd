import type { Context } from 'koishi'
import type { EntityRow, ProfileRow, PromotedTopicRow, RelationRow } from './types'

declare module 'koishi' {
  interface Tables {
    memory_entity: EntityRow
    memory_relation: RelationRow
    memory_profile: ProfileRow
    memory_promoted_topic: PromotedTopicRow
  }
}

/** Entities, relations and user profiles (design §4.5). */
export function defineKnowledgeTables(ctx: Context) {
  ctx.model.extend(
    'memory_entity',
    {
      id: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      userId: 'string(127)',
      name: 'string(255)',
      key: 'string(255)',
      type: 'string(15)',
      aliases: 'json',
      description: 'text',
      confidence: 'double',
      mentions: 'unsigned',
      firstSeen: 'timestamp',
      lastSeen: 'timestamp',
      sourceIds: 'json',
    },
    { primary: 'id', indexes: [['platform', 'guildId', 'userId', 'key']] },
  )
  ctx.model.extend(
    'memory_relation',
    {
      id: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      userId: 'string(127)',
      subjectId: 'string(31)',
      predicate: 'string(255)',
      objectId: 'string(31)',
      confidence: 'double',
      sourceIds: 'json',
      validFrom: { type: 'timestamp', nullable: true },
      validTo: { type: 'timestamp', nullable: true },
      createdAt: 'timestamp',
    },
    { primary: 'id', indexes: [['subjectId'], ['objectId']] },
  )
  ctx.model.extend(
    'memory_profile',
    {
      id: 'string(40)',
      platform: 'string(63)',
      guildId: 'string(127)',
      userId: 'string(127)',
      userName: 'string(255)',
      profileText: 'text',
      preferences: 'json',
      traits: 'json',
      pending: 'unsigned',
      updatedAt: 'timestamp',
      consolidatedAt: 'timestamp',
    },
    { primary: 'id', indexes: [['platform', 'userId']] },
  )
  ctx.model.extend(
    'memory_promoted_topic',
    {
      topicId: 'string(63)',
      platform: 'string(63)',
      guildId: 'string(127)',
      summaryId: 'string(127)',
      entities: 'unsigned',
      relations: 'unsigned',
      promotedAt: 'timestamp',
    },
    { primary: 'topicId' },
  )
}
