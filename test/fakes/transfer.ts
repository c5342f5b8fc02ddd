import { Counters } from '../../src/core/observability'
import { factIndexKind } from '../../src/facts/fact-index'
import type { FactRow } from '../../src/facts/table'
import { GroupIndex } from '../../src/group/group-index'
import type { GroupRef } from '../../src/group/types'
import { entityIndexKind } from '../../src/knowledge/entity-index'
import type { KnowledgeStore } from '../../src/knowledge/store'
import type { EntityRow, KnowledgeScope, ProfileRow, PromotedTopicRow, RelationRow } from '../../src/knowledge/types'
import { profileId } from '../../src/knowledge/types'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { IndexedTable } from '../../src/store/index-sync'
import { SummaryIndex } from '../../src/topic-summaries/summary-index'
import type { TransferPorts } from '../../src/transfer'
import { ExactIndex } from './exact-index'
import { MemoryFacts } from './facts'
import { MemoryGroupStore } from './group-store'
import { MemoryMessages } from './messages'
import { quiet } from './logger'
import { MemoryOutbox } from './outbox'
import { MemorySummaries } from './summaries'
import { MemoryTopics } from './topics'
import type { PersonRef } from '../../src/scope'

const clone = <T>(value: T): T => structuredClone(value)
const inGuild = (row: { platform: string; guildId: string }, guild?: { platform: string; guildId: string }) =>
  !guild || (row.platform === guild.platform && row.guildId === guild.guildId)
const sameScope = (row: KnowledgeScope, scope: KnowledgeScope) =>
  row.platform === scope.platform && row.guildId === scope.guildId && row.userId === scope.userId

/** Facts whose `insert` refuses an existing id, as the database's `create` does. */
export class StrictFacts extends MemoryFacts {
  async insert(row: FactRow) {
    if (this.rows.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    await super.insert(row)
  }
}

export class TransferGroupStore extends MemoryGroupStore {
  async memoriesOf(group?: GroupRef) {
    return [...this.memories.values()].filter((row) => inGuild(row, group)).map(clone)
  }
  async changesOf(group?: GroupRef) {
    return [...this.changes.values()].filter((row) => inGuild(row, group)).map(clone)
  }
}

export class TransferTopics extends MemoryTopics {
  async create(row: Parameters<MemoryTopics['create']>[0]) {
    if (this.rows.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    await super.create(clone(row))
  }
  async inGuild(guild?: { platform: string; guildId: string }) {
    return [...this.rows.values()].filter((row) => inGuild(row, guild)).map(clone)
  }
}

export class TransferSummaries extends MemorySummaries {
  async inGuild(guild?: { platform: string; guildId: string }) {
    return [...this.rows.values()].filter((row) => inGuild(row, guild)).map(clone)
  }
}

/** An in-memory `KnowledgeStore` (rows copied in and out like a database). */
export class MemoryKnowledge implements KnowledgeStore {
  entityRows = new Map<string, EntityRow>()
  relationRows = new Map<string, RelationRow>()
  profileRows = new Map<string, ProfileRow>()
  async entitiesOf(scope: KnowledgeScope) {
    return [...this.entityRows.values()].filter((row) => sameScope(row, scope)).map(clone)
  }
  async entities(ids: string[]) {
    return ids.flatMap((id) => (this.entityRows.has(id) ? [clone(this.entityRows.get(id)!)] : []))
  }
  async entitiesFrom() {
    return []
  }
  async allEntityIds() {
    return [...this.entityRows.keys()]
  }
  async upsertEntities(rows: EntityRow[]) {
    for (const row of rows) this.entityRows.set(row.id, clone(row))
  }
  async removeEntities(ids: string[]) {
    for (const id of ids) this.entityRows.delete(id)
  }
  async relationsTouching(scope: KnowledgeScope, entityIds: string[]) {
    return [...this.relationRows.values()]
      .filter((row) => sameScope(row, scope) && (entityIds.includes(row.subjectId) || entityIds.includes(row.objectId)))
      .map(clone)
  }
  async relations(ids: string[]) {
    return ids.flatMap((id) => (this.relationRows.has(id) ? [clone(this.relationRows.get(id)!)] : []))
  }
  async relationsFrom() {
    return []
  }
  async upsertRelations(rows: RelationRow[]) {
    for (const row of rows) this.relationRows.set(row.id, clone(row))
  }
  async removeRelations(ids: string[]) {
    for (const id of ids) this.relationRows.delete(id)
  }
  async profile(ref: PersonRef) {
    const row = this.profileRows.get(profileId(ref))
    return row && clone(row)
  }
  async profilesOf(filter?: { platform: string; userId?: string; guildId?: string }) {
    return [...this.profileRows.values()]
      .filter(
        (row) =>
          !filter ||
          (row.platform === filter.platform &&
            (filter.userId === undefined || row.userId === filter.userId) &&
            (filter.guildId === undefined || row.guildId === filter.guildId)),
      )
      .map(clone)
  }
  async pendingProfiles() {
    return []
  }
  async upsertProfile(row: ProfileRow) {
    this.profileRows.set(row.id, clone(row))
  }
  async removeProfiles() {
    return 0
  }
  async promotedTopics() {
    return new Set<string>()
  }
  async markPromoted(_: PromotedTopicRow) {}
}

/** One memory instance in memory: every store an export reads and an import writes, with an index per table. */
export function transferInstance(options: { ids?: string } = {}) {
  const counters = new Counters()
  const embedder = new OfflineEmbedder({ dims: 64 })
  const outbox = new MemoryOutbox()
  const sync = (index: ExactIndex) => ({ index, embedder, outbox, counters, logger: quiet })
  const indexes = { facts: new ExactIndex(), groups: new ExactIndex(), summaries: new ExactIndex(), entities: new ExactIndex() }
  const facts = new StrictFacts()
  const groups = new TransferGroupStore()
  const topics = new TransferTopics()
  const summaries = new TransferSummaries()
  const knowledge = new MemoryKnowledge()
  const messages = new MemoryMessages()
  let n = 0
  const ports: TransferPorts = {
    facts,
    factIndex: new IndexedTable(sync(indexes.facts), factIndexKind('memories', facts)),
    groups,
    groupIndex: new GroupIndex(sync(indexes.groups), groups),
    topics,
    summaries,
    summaryIndex: new SummaryIndex(sync(indexes.summaries), summaries),
    knowledge,
    messages,
    entityIndex: new IndexedTable(sync(indexes.entities), entityIndexKind(knowledge)),
    embedderId: embedder.id,
    newId: () => `${options.ids ?? 'new'}${++n}`,
    now: () => new Date('2026-03-01T00:00:00Z'),
  }
  return { ports, facts, groups, topics, summaries, knowledge, messages, indexes, outbox, embedder }
}
