import { createHash } from 'node:crypto'
import type { FactRow } from '../facts'
import type { GroupChangeRow } from '../group'
import type { KnowledgeScope, RelationRow } from '../knowledge'
import { profileId } from '../knowledge'
import type { GuildRef } from '../scope'
import { summaryId } from '../topic-summaries'
import type { ImportResult, Item } from './results'
import type { TransferPorts } from './ports'
import type { RecordKind, RecordRows } from './records'
import { channelOwner, factOwner, groupOwner, key, knowledgeOwner } from './references'

/** The longest id each table keeps (`table.ts` of each domain). */
export const ID_LENGTH = { fact: 31, group: 31, change: 63, topic: 63, entity: 31, relation: 31 }

/** The kinds other rows name by id. */
export type Named = 'fact' | 'group-memory' | 'topic' | 'entity'

/** Where the first pass put each line: what the second pass writes and how references resolve. */
export interface Placed {
  /** Line → the id its row is stored under; a line not here is not written. */
  lines: Map<number, string>
  /** File id → the id stored (or of the row already there that it duplicates), by kind. */
  ids: Record<Named, Map<string, string>>
  /** File id → whose the row is (`references.ts`), by kind. */
  owners: Record<Named, Map<string, string>>
}

const time = (date: Date | null | undefined) => (date ? date.getTime() : null)
/** A key of the file's rows kept short: the first pass holds one per row, never the row's text. */
const short = (...parts: unknown[]) =>
  createHash('sha1')
    .update(key(...parts))
    .digest('base64')

/** The first pass of an import: each valid line placed (an id, or skipped as a row already there). */
export class Placer {
  private readonly lines = new Map<number, string>()
  private readonly ids: Placed['ids'] = { fact: new Map(), 'group-memory': new Map(), topic: new Map(), entity: new Map() }
  private readonly owners: Placed['owners'] = { fact: new Map(), 'group-memory': new Map(), topic: new Map(), entity: new Map() }
  /** Ids given out in this import (not in the database yet). */
  private readonly given = new Set<string>()
  /** Rows placed in this import, by what makes two of them the same. */
  private readonly seen = new Map<string, string>()
  private readonly around = new Map<string, Promise<unknown[]>>()

  constructor(
    private readonly ports: TransferPorts,
    private readonly result: ImportResult,
  ) {}

  placed(): Placed {
    this.seen.clear()
    this.around.clear()
    return { lines: this.lines, ids: this.ids, owners: this.owners }
  }

  async place(item: Item): Promise<void> {
    switch (item.kind) {
      case 'fact':
        return this.fact(item as Item<'fact'>)
      case 'group-memory':
        return this.groupMemory(item as Item<'group-memory'>)
      case 'group-change':
        return this.groupChange(item as Item<'group-change'>)
      case 'topic':
        return this.topic(item as Item<'topic'>)
      case 'summary':
        return this.summary(item as Item<'summary'>)
      case 'profile':
        return this.profile(item as Item<'profile'>)
      case 'entity':
        return this.entity(item as Item<'entity'>)
      case 'relation':
        return this.relation(item as Item<'relation'>)
    }
  }

  private skip(kind: RecordKind) {
    this.result.counts[kind].skipped++
  }

  /** The rows already there a row may be the twin of, asked once per place. */
  private rowsAround<T>(at: string, load: () => Promise<T[]>): Promise<T[]> {
    if (!this.around.has(at)) this.around.set(at, load())
    return this.around.get(at) as Promise<T[]>
  }

  /** The id a new row is stored under: its own when it is free (not stored, not given out here) and fits, else a fresh one. */
  private async idFor(own: string, maxLength: number, taken: boolean, exists: (id: string) => Promise<boolean>, prefix = '') {
    if (own && own.length <= maxLength && !taken && !this.given.has(own)) {
      this.given.add(own)
      return own
    }
    if (own) this.result.renamed++
    for (let attempt = 0; attempt < 100; attempt++) {
      const id = `${prefix}${this.ports.newId()}`.slice(0, maxLength)
      if (this.given.has(id) || (await exists(id))) continue
      this.given.add(id)
      return id
    }
    throw new Error('could not make a fresh id')
  }

  /** Records where a named row went: `stored` (a fresh or its own id) or the twin it duplicates. */
  private named(kind: Named, item: Item, owner: string, id: string, store: boolean) {
    const own = item.data.id as string
    if (own && !this.ids[kind].has(own)) {
      this.ids[kind].set(own, id)
      this.owners[kind].set(own, owner)
    }
    if (store) this.lines.set(item.line, id)
    else this.skip(kind)
  }

  private async fact(item: Item<'fact'>) {
    const { facts } = this.ports
    const data = item.data
    const scope = { platform: data.platform, userId: data.userId, guildId: data.guildId }
    const [existing] = data.id && data.id.length <= ID_LENGTH.fact ? await facts.get([data.id]) : []
    const same = existing && sameScope(existing, data) && existing.content === data.content
    // a current fact duplicates a current one; a closed one, any row with its words
    const duplicate = same ? existing : await facts.findByContent(scope, data.content, { history: Boolean(data.validTo) })
    const inFile = short('fact', data.platform, data.userId, data.guildId, data.content, time(data.validTo))
    const earlier = duplicate?.id ?? this.seen.get(inFile)
    if (earlier) return this.named('fact', item, factOwner(data), earlier, false)
    const id = await this.idFor(data.id, ID_LENGTH.fact, Boolean(existing), async (id) => (await facts.get([id])).length > 0)
    this.seen.set(inFile, id)
    this.named('fact', item, factOwner(data), id, true)
  }

  private async groupMemory(item: Item<'group-memory'>) {
    const { groups } = this.ports
    const data = item.data
    const [existing] = data.id.length <= ID_LENGTH.group ? await groups.getMemories([data.id]) : []
    const twin = (row: RecordRows['group-memory']) =>
      sameGuild(row, data) && row.statement === data.statement && row.version === data.version
    const inFile = short('group-memory', data.platform, data.guildId, data.statement, data.version)
    const around = await this.rowsAround(key('group-memory', data.platform, data.guildId), () => groups.memoriesOf(guildOf(data)))
    const earlier = (existing && twin(existing) ? existing.id : undefined) ?? around.find(twin)?.id ?? this.seen.get(inFile)
    if (earlier) return this.named('group-memory', item, groupOwner(data), earlier, false)
    const id = await this.idFor(data.id, ID_LENGTH.group, Boolean(existing), async (id) => (await groups.getMemories([id])).length > 0)
    this.seen.set(inFile, id)
    this.named('group-memory', item, groupOwner(data), id, true)
  }

  private async groupChange(item: Item<'group-change'>) {
    const { groups } = this.ports
    const data = item.data
    const memoryId = this.ids['group-memory'].get(data.memoryId) ?? data.memoryId
    const sameAs = (other: GroupChangeRow) =>
      sameGuild(other, data) &&
      other.action === data.action &&
      other.memoryId === memoryId &&
      other.createdAt.getTime() === data.createdAt.getTime() &&
      other.newStatement === data.newStatement
    const [existing] = data.id.length <= ID_LENGTH.change ? await groups.getChanges([data.id]) : []
    const inFile = short('group-change', data.platform, data.guildId, data.action, memoryId, data.createdAt.getTime(), data.newStatement)
    const around = await this.rowsAround(key('group-change', data.platform, data.guildId), () => groups.changesOf(guildOf(data)))
    if ((existing && sameAs(existing)) || around.some(sameAs) || this.seen.has(inFile)) return this.skip('group-change')
    const id = await this.idFor(
      data.id,
      ID_LENGTH.change,
      Boolean(existing),
      async (id) => (await groups.getChanges([id])).length > 0,
      'import.',
    )
    this.seen.set(inFile, id)
    this.lines.set(item.line, id)
  }

  private async topic(item: Item<'topic'>) {
    const { topics } = this.ports
    const data = item.data
    const existing = data.id.length <= ID_LENGTH.topic ? await topics.get(data.id) : undefined
    const twin = (row: RecordRows['topic']) =>
      row.platform === data.platform &&
      row.channelId === data.channelId &&
      row.title === data.title &&
      row.createdAt.getTime() === data.createdAt.getTime()
    const inFile = short('topic', data.platform, data.channelId, data.title, data.createdAt.getTime())
    const around = await this.rowsAround(key('topic', data.platform, data.guildId), () => topics.inGuild(guildOf(data)))
    const earlier = (existing && twin(existing) ? existing.id : undefined) ?? around.find(twin)?.id ?? this.seen.get(inFile)
    if (earlier) return this.named('topic', item, channelOwner(data), earlier, false)
    const id = await this.idFor(data.id, ID_LENGTH.topic, Boolean(existing), async (id) => Boolean(await topics.get(id)))
    this.seen.set(inFile, id)
    this.named('topic', item, channelOwner(data), id, true)
  }

  private async summary(item: Item<'summary'>) {
    const data = item.data
    // a summary is its topic's version: that version there already (or twice in the file) is a duplicate
    const id = summaryId(this.ids.topic.get(data.topicId) ?? data.topicId, data.version)
    if (this.seen.has(`summary:${id}`) || (await this.ports.summaries.get([id])).length) return this.skip('summary')
    this.seen.set(`summary:${id}`, id)
    this.lines.set(item.line, id)
  }

  private async profile(item: Item<'profile'>) {
    const data = item.data
    // a profile's id is made from whose it is and where; one is kept per user per place
    const ref = { platform: data.platform, guildId: data.guildId, userId: data.userId }
    const id = profileId(ref)
    if (this.seen.has(`profile:${id}`) || (await this.ports.knowledge.profile(ref))) return this.skip('profile')
    this.seen.set(`profile:${id}`, id)
    this.lines.set(item.line, id)
  }

  private async entity(item: Item<'entity'>) {
    const { knowledge } = this.ports
    const data = item.data
    const [existing] = data.id.length <= ID_LENGTH.entity ? await knowledge.entities([data.id]) : []
    const twin = (row: RecordRows['entity']) => sameKnowledgeScope(row, data) && row.key === data.key
    const inFile = short('entity', data.platform, data.guildId, data.userId, data.key)
    const scope = { platform: data.platform, guildId: data.guildId, userId: data.userId }
    const around = await this.rowsAround(key('entity', scope), () => knowledge.entitiesOf(scope))
    const earlier = (existing && twin(existing) ? existing.id : undefined) ?? around.find(twin)?.id ?? this.seen.get(inFile)
    if (earlier) return this.named('entity', item, knowledgeOwner(data), earlier, false)
    const id = await this.idFor(data.id, ID_LENGTH.entity, Boolean(existing), async (id) => (await knowledge.entities([id])).length > 0)
    this.seen.set(inFile, id)
    this.named('entity', item, knowledgeOwner(data), id, true)
  }

  private async relation(item: Item<'relation'>) {
    const { knowledge } = this.ports
    const data = item.data
    const subjectId = this.ids.entity.get(data.subjectId) ?? data.subjectId
    const objectId = this.ids.entity.get(data.objectId) ?? data.objectId
    const sameAs = (other: RelationRow) =>
      sameKnowledgeScope(other, data) &&
      other.subjectId === subjectId &&
      other.predicate === data.predicate &&
      other.objectId === objectId &&
      time(other.validTo) === time(data.validTo)
    const [existing] = data.id.length <= ID_LENGTH.relation ? await knowledge.relations([data.id]) : []
    const inFile = short('relation', data.platform, data.guildId, data.userId, subjectId, data.predicate, objectId, time(data.validTo))
    if ((existing && sameAs(existing)) || (await knowledge.relationsTouching(data, [subjectId])).some(sameAs) || this.seen.has(inFile))
      return this.skip('relation')
    const id = await this.idFor(data.id, ID_LENGTH.relation, Boolean(existing), async (id) => (await knowledge.relations([id])).length > 0)
    this.seen.set(inFile, id)
    this.lines.set(item.line, id)
  }
}

const guildOf = (row: GuildRef): GuildRef => ({ platform: row.platform, guildId: row.guildId })

function sameScope(a: FactRow, b: FactRow) {
  return a.platform === b.platform && a.userId === b.userId && a.guildId === b.guildId
}

function sameGuild(a: GuildRef, b: GuildRef) {
  return a.platform === b.platform && a.guildId === b.guildId
}

function sameKnowledgeScope(a: KnowledgeScope, b: KnowledgeScope) {
  return a.platform === b.platform && a.guildId === b.guildId && a.userId === b.userId
}
