import { chunks } from '../core/chunks'
import type { MessageRow } from '../messages'
import type { TopicSummaryRow } from '../topic-summaries'
import type { ImportResult, Item } from './results'
import type { Named, Placed } from './placement'
import { ID_LENGTH } from './placement'
import type { TransferPorts } from './ports'
import type { RecordKind, RecordRows } from './records'
import { RECORD_KINDS } from './records'
import type { SourceOwner } from './references'
import { channelOwner, factOwner, groupOwner, knowledgeOwner, mayDrawOn } from './references'

/** Rows written (and embedded, indexed) in one batch. */
const BATCH = 64

type Batches = { [K in RecordKind]: Item<K>[] }

/** Why a row's line is refused: a reference to another owner's row, or a required one that names nothing. */
class Refused extends Error {
  constructor(
    readonly problem: 'foreign-reference' | 'missing-reference',
    readonly detail: string,
  ) {
    super(problem)
  }
}

/**
 * The second pass of an import: each placed line's row with its references resolved (`references.ts`),
 * written in batches through the domain's store and index, kinds in `RECORD_KINDS` order within a batch.
 */
export class Writer {
  private readonly batches = Object.fromEntries(RECORD_KINDS.map((kind) => [kind, []])) as unknown as Batches
  private pending = 0
  /** Stored ids of rows whose line was refused: a reference to one names nothing. */
  private readonly refused = new Set<string>()

  constructor(
    private readonly ports: TransferPorts,
    private readonly result: ImportResult,
    private readonly placed: Placed,
  ) {}

  async add(item: Item): Promise<void> {
    const id = this.placed.lines.get(item.line)
    if (id === undefined) return
    ;(this.batches[item.kind] as Item[]).push({ ...item, data: { ...item.data, id } } as Item)
    if (++this.pending >= BATCH) await this.flush()
  }

  async finish(): Promise<void> {
    await this.flush()
  }

  private async flush() {
    this.pending = 0
    for (const kind of RECORD_KINDS) {
      const items = this.batches[kind] as Item[]
      if (!items.length) continue
      this.batches[kind] = []
      await this.write(kind, items)
    }
  }

  private async write(kind: RecordKind, items: Item[]) {
    const messages = await this.sources(items)
    const rows: Item[] = []
    for (const item of items) {
      try {
        rows.push({ ...item, data: this.resolve(item, messages) } as Item)
      } catch (error) {
        if (!(error instanceof Refused)) throw error
        this.refused.add(item.data.id as string)
        this.result.bad.push({ line: item.line, problem: error.problem, detail: error.detail })
      }
    }
    const existing = await this.existing(rows)
    const kept = rows.flatMap((item) => {
      try {
        return [{ ...item, data: this.resolveStored(item, existing) } as Item]
      } catch (error) {
        if (!(error instanceof Refused)) throw error
        this.refused.add(item.data.id as string)
        this.result.bad.push({ line: item.line, problem: error.problem, detail: error.detail })
        return []
      }
    })
    const stored = await this.store(kind, kept)
    await this.index(kind, stored)
  }

  /** The messages the batch's rows name as their sources. */
  private async sources(items: Item[]): Promise<Map<string, MessageRow>> {
    const ids = new Set(items.flatMap((item) => sourceIdsOf(item)))
    const found = new Map<string, MessageRow>()
    for (const part of chunks([...ids])) for (const row of await this.ports.messages.byIds(part)) found.set(row.id, row)
    return found
  }

  /** A row's sources kept: its owner's messages; another's refuse the line, one that names nothing is left out. */
  private sourcesFor(owner: SourceOwner, ids: string[], messages: Map<string, MessageRow>, field: string): string[] {
    return ids.filter((id) => {
      const message = messages.get(id)
      if (!message) {
        this.result.unlinked++
        return false
      }
      if (!mayDrawOn(owner, message)) throw new Refused('foreign-reference', `${field}: ${id}`)
      return true
    })
  }

  /** The references the file's own rows resolve: file ids to stored ids, owners checked; the rest stay for `resolveStored`. */
  private resolve(item: Item, messages: Map<string, MessageRow>): RecordRows[RecordKind] {
    const row = item.data
    switch (item.kind) {
      case 'fact': {
        const fact = row as RecordRows['fact']
        const owner = { platform: fact.platform, userId: fact.userId, guildId: fact.guildId, channelId: fact.channelId }
        return { ...fact, sourceIds: this.sourcesFor(owner, fact.sourceIds, messages, 'sourceIds') }
      }
      case 'profile': {
        const profile = row as RecordRows['profile']
        const owner = { platform: profile.platform, userId: profile.userId, guildId: profile.guildId }
        return {
          ...profile,
          preferences: profile.preferences.map((p) => ({ ...p, sourceIds: this.sourcesFor(owner, p.sourceIds, messages, 'preferences') })),
          traits: profile.traits.map((t) => ({ ...t, sourceIds: this.sourcesFor(owner, t.sourceIds, messages, 'traits') })),
        }
      }
      case 'entity':
      case 'relation': {
        const known = row as RecordRows['entity'] | RecordRows['relation']
        return { ...known, sourceIds: this.sourcesFor(known, known.sourceIds, messages, 'sourceIds') }
      }
      default:
        return row
    }
  }

  /** The stored rows the batch's references name outside the file, by kind and id. */
  private async existing(items: Item[]): Promise<Map<string, { owner: string }>> {
    const wanted: Record<Named, Set<string>> = { fact: new Set(), 'group-memory': new Set(), topic: new Set(), entity: new Set() }
    for (const item of items) for (const [kind, id] of referencesOf(item)) if (id && !this.placed.ids[kind].has(id)) wanted[kind].add(id)
    const found = new Map<string, { owner: string }>()
    const { facts, groups, topics, knowledge } = this.ports
    const fits = (kind: Named) => [...wanted[kind]].filter((id) => id.length <= ID_LENGTH[kind === 'group-memory' ? 'group' : kind])
    for (const part of chunks(fits('fact')))
      for (const row of await facts.get(part)) found.set(`fact\n${row.id}`, { owner: factOwner(row) })
    for (const part of chunks(fits('group-memory')))
      for (const row of await groups.getMemories(part)) found.set(`group-memory\n${row.id}`, { owner: groupOwner(row) })
    for (const id of fits('topic')) {
      const row = await topics.get(id)
      if (row) found.set(`topic\n${id}`, { owner: channelOwner(row) })
    }
    for (const part of chunks(fits('entity')))
      for (const row of await knowledge.entities(part)) found.set(`entity\n${row.id}`, { owner: knowledgeOwner(row) })
    return found
  }

  /**
   * Where a reference goes: the file's row of that id (its stored id) or a stored row, when either is
   * the same owner's; another owner's refuses the line; nothing (or a refused line's row) gives `''`.
   */
  private target(kind: Named, id: string, owner: string, field: string, existing: Map<string, { owner: string }>): string {
    if (!id) return ''
    const inFile = this.placed.ids[kind].get(id)
    const whose = inFile !== undefined ? this.placed.owners[kind].get(id) : existing.get(`${kind}\n${id}`)?.owner
    if (whose === undefined || (inFile !== undefined && this.refused.has(inFile))) {
      this.result.unlinked++
      return ''
    }
    if (whose !== owner) throw new Refused('foreign-reference', `${field}: ${id}`)
    return inFile ?? id
  }

  private required(kind: Named, id: string, owner: string, field: string, existing: Map<string, { owner: string }>): string {
    const before = this.result.unlinked
    const found = this.target(kind, id, owner, field, existing)
    if (found) return found
    this.result.unlinked = before
    throw new Refused('missing-reference', `${field}: ${id}`)
  }

  private resolveStored(item: Item, existing: Map<string, { owner: string }>): RecordRows[RecordKind] {
    const at = (kind: Named, id: string, owner: string, field: string) => this.target(kind, id, owner, field, existing)
    switch (item.kind) {
      case 'fact': {
        const row = item.data as RecordRows['fact']
        const owner = factOwner(row)
        return {
          ...row,
          parentId: at('fact', row.parentId ?? '', owner, 'parentId'),
          supersededBy: at('fact', row.supersededBy ?? '', owner, 'supersededBy'),
        }
      }
      case 'group-memory': {
        const row = item.data as RecordRows['group-memory']
        const owner = groupOwner(row)
        return {
          ...row,
          parentId: at('group-memory', row.parentId, owner, 'parentId'),
          supersededBy: at('group-memory', row.supersededBy, owner, 'supersededBy'),
        }
      }
      case 'group-change': {
        const row = item.data as RecordRows['group-change']
        const owner = groupOwner(row)
        return {
          ...row,
          memoryId: at('group-memory', row.memoryId, owner, 'memoryId'),
          previousId: at('group-memory', row.previousId, owner, 'previousId'),
        }
      }
      case 'summary': {
        const row = item.data as RecordRows['summary']
        // indexed anew with this instance's embedder
        const topicId = this.required('topic', row.topicId, channelOwner(row), 'topicId', existing)
        return { ...row, topicId, embedder: this.ports.embedderId }
      }
      case 'relation': {
        const row = item.data as RecordRows['relation']
        const owner = knowledgeOwner(row)
        return {
          ...row,
          subjectId: this.required('entity', row.subjectId, owner, 'subjectId', existing),
          objectId: this.required('entity', row.objectId, owner, 'objectId', existing),
        }
      }
      default:
        return item.data
    }
  }

  /** Stores each row, reporting the lines the database refuses; returns the rows stored. */
  private async store(kind: RecordKind, items: Item[]): Promise<unknown[]> {
    const stored: unknown[] = []
    for (const { line, data } of items) {
      try {
        await this.writeRow(kind, data)
        stored.push(data)
        this.result.counts[kind].imported++
      } catch (error) {
        this.refused.add(data.id as string)
        this.result.bad.push({ line, problem: 'store-failed', detail: (error as Error).message.slice(0, 200) })
      }
    }
    return stored
  }

  private writeRow(kind: RecordKind, data: RecordRows[RecordKind]): Promise<unknown> {
    const { facts, groups, topics, summaries, knowledge } = this.ports
    switch (kind) {
      case 'fact':
        return facts.insert(data as RecordRows['fact'])
      case 'group-memory':
        return groups.putMemory(data as RecordRows['group-memory'])
      case 'group-change':
        return groups.putChange(data as RecordRows['group-change'])
      case 'topic':
        return topics.create(data as RecordRows['topic'])
      case 'summary':
        return summaries.insert(data as RecordRows['summary'])
      case 'profile':
        return knowledge.upsertProfile(data as RecordRows['profile'])
      case 'entity':
        return knowledge.upsertEntities([data as RecordRows['entity']])
      case 'relation':
        return knowledge.upsertRelations([data as RecordRows['relation']])
    }
  }

  /** Indexes stored rows the way a normal write does; what cannot be indexed now waits in the outbox (or for reconciling). */
  private async index(kind: RecordKind, stored: unknown[]) {
    const { factIndex, groupIndex, entityIndex } = this.ports
    if (!stored.length) return
    if (kind === 'fact') await factIndex.put(stored as RecordRows['fact'][]).catch(() => undefined)
    if (kind === 'group-memory' && groupIndex) await groupIndex.sync(stored as RecordRows['group-memory'][], []).catch(() => undefined)
    if (kind === 'entity') await entityIndex.put(stored as RecordRows['entity'][]).catch(() => undefined)
    if (kind === 'summary') await this.indexSummaries(stored as TopicSummaryRow[])
  }

  /** Only the newest version of a topic's summary is in the index. */
  private async indexSummaries(stored: TopicSummaryRow[]) {
    const { summaries, summaryIndex } = this.ports
    if (!summaryIndex) return
    const added = new Set(stored.map((row) => row.id))
    for (const topicId of new Set(stored.map((row) => row.topicId))) {
      const versions: TopicSummaryRow[] = await summaries.versions(topicId).catch(() => [])
      const latest = versions.at(-1)
      if (!latest || !added.has(latest.id)) continue
      await summaryIndex
        .put(
          latest,
          versions.slice(0, -1).map((row) => row.id),
        )
        .catch(() => undefined)
    }
  }
}

/** The message ids a row names as its sources. */
function sourceIdsOf(item: Item): string[] {
  switch (item.kind) {
    case 'fact':
    case 'entity':
    case 'relation':
      return (item.data as { sourceIds: string[] }).sourceIds
    case 'profile': {
      const row = item.data as RecordRows['profile']
      return [...row.preferences.flatMap((p) => p.sourceIds), ...row.traits.flatMap((t) => t.sourceIds)]
    }
    default:
      return []
  }
}

/** The rows a row names by id: kind and file id. */
function referencesOf(item: Item): [Named, string][] {
  switch (item.kind) {
    case 'fact': {
      const row = item.data as RecordRows['fact']
      return [
        ['fact', row.parentId ?? ''],
        ['fact', row.supersededBy ?? ''],
      ]
    }
    case 'group-memory': {
      const row = item.data as RecordRows['group-memory']
      return [
        ['group-memory', row.parentId],
        ['group-memory', row.supersededBy],
      ]
    }
    case 'group-change': {
      const row = item.data as RecordRows['group-change']
      return [
        ['group-memory', row.memoryId],
        ['group-memory', row.previousId],
      ]
    }
    case 'summary':
      return [['topic', (item.data as RecordRows['summary']).topicId]]
    case 'relation': {
      const row = item.data as RecordRows['relation']
      return [
        ['entity', row.subjectId],
        ['entity', row.objectId],
      ]
    }
    default:
      return []
  }
}
