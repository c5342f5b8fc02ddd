import { createHash } from 'node:crypto'
import type { Extraction } from '../facts'
import type { PersonRef } from '../scope'

export type EntityType = NonNullable<Extraction['entities']>[number]['type']

export const ENTITY_TYPES: readonly EntityType[] = ['PERSON', 'LOCATION', 'ORGANIZATION', 'PRODUCT', 'EVENT', 'OTHER']

/**
 * Where knowledge lives: a group (`platform` + `guildId`, `userId` '') or a user's private space
 * (`platform` + `userId`, `guildId` ''). Knowledge never crosses from one scope to another.
 */
export type KnowledgeScope = PersonRef

/** The space a dialogue's knowledge goes to: its group, or the user's private chat. */
export function knowledgeScope(where: { platform: string; guildId: string; userId?: string }): KnowledgeScope {
  return where.guildId
    ? { platform: where.platform, guildId: where.guildId, userId: '' }
    : { platform: where.platform, guildId: '', userId: where.userId ?? '' }
}

/** Something named in a scope (design §4.5): one row per entity per scope. */
export interface EntityRow extends KnowledgeScope {
  id: string
  name: string
  /** `name` normalised (`nameKey`): what merging compares. */
  key: string
  type: EntityType
  aliases: string[]
  description: string
  confidence: number
  mentions: number
  firstSeen: Date
  lastSeen: Date
  /** Ids of the messages it was drawn from. */
  sourceIds: string[]
}

/** `subject —predicate→ object` between two entities of one scope (design §4.5). */
export interface RelationRow extends KnowledgeScope {
  id: string
  subjectId: string
  /** A short phrase in the language spoken (`住在`, `lives in`). */
  predicate: string
  objectId: string
  confidence: number
  sourceIds: string[]
  /** When it became true (the message's time); null when unknown. */
  validFrom: Date | null
  /** When it stopped being true (a newer statement closed it); null while current. */
  validTo: Date | null
  createdAt: Date
}

/** A user's preference: `key` (喜欢, likes) → `value`. Times in milliseconds since the epoch (kept in JSON). */
export interface Preference {
  key: string
  value: string
  confidence: number
  sourceIds: string[]
  validFrom: number
  /** Set when a later statement contradicted it. */
  validTo: number | null
}

export interface Trait {
  name: string
  confidence: number
  sourceIds: string[]
}

/** One user's profile in one scope (a group, or their private chat: `guildId` ''). */
export interface ProfileRow {
  id: string
  platform: string
  guildId: string
  userId: string
  userName: string
  profileText: string
  preferences: Preference[]
  traits: Trait[]
  /** What was learnt of the user since `profileText` was last consolidated (facts, preferences, traits). */
  pending: number
  updatedAt: Date
  consolidatedAt: Date
}

/** A short key for the row of a profile (ids can be long, and a primary key is bounded). */
export function profileId(ref: PersonRef): string {
  return createHash('sha1')
    .update(JSON.stringify([ref.platform, ref.guildId, ref.userId]))
    .digest('hex')
}

/** A hot mid-term topic whose summary was learnt into its group's knowledge: each topic once. */
export interface PromotedTopicRow {
  topicId: string
  platform: string
  guildId: string
  /** The summary version read. */
  summaryId: string
  entities: number
  relations: number
  promotedAt: Date
}
