import { chunks } from '../core/chunks'
import type { FactRow } from '../facts'
import type { GroupChangeRow } from '../group'
import type { KnowledgeScope, RelationRow } from '../knowledge'
import { profileId } from '../knowledge'
import type { TopicSummaryRow } from '../topic-summaries'
import { summaryId } from '../topic-summaries'
import type { Mem0Options } from './mem0'
import { isMem0, mem0Fact } from './mem0'
import type { TransferPorts } from './ports'
import type { LineProblem, RecordKind, RecordRows } from './records'
import { checkRecord, isOurs, RECORD_KINDS } from './records'
import type { GuildRef } from '../scope'

export interface ImportOptions {
  /** The platform of mem0 memories (ours name their own). */
  platform?: string
  /** mem0 memories become this user's, whatever their `user_id`. */
  userId?: string
}

export interface BadLine {
  /** 1-based: the line of the file, or the entry of a JSON array (`layout: 'array'`). */
  line: number
  problem: LineProblem | 'store-failed'
  /** The validator's or the database's own words (English). */
  detail?: string
}

export interface KindResult {
  imported: number
  /** Duplicates: a row with the same id and content, or the same content in the same place, is there already. */
  skipped: number
}

export interface ImportResult {
  counts: Record<RecordKind, KindResult>
  /** Lines that were not imported, in order; every other line was. */
  bad: BadLine[]
  /** `lines`: JSON Lines; `array`: one JSON array (or mem0's `{results: […]}`), whose entries `line` numbers. */
  layout: 'lines' | 'array'
  /** Records read in each format. */
  formats: { ours: number; mem0: number }
  /** Rows stored under a fresh id, because theirs was taken by another row or too long for its column. */
  renamed: number
}

/** The longest id each table keeps (`table.ts` of each domain). */
const ID_LENGTH = { fact: 31, group: 31, change: 63, topic: 63, entity: 31, relation: 31 }
/** Rows embedded and indexed in one call. */
const INDEX_BATCH = 64

interface Item<K extends RecordKind> {
  line: number
  data: RecordRows[K]
}

type Items = { [K in RecordKind]: Item<K>[] }

interface Entry {
  line: number
  value: unknown
}

/**
 * The entries of a text: one JSON array (ours or mem0's, also as `{results: […]}`) or a single JSON
 * value read whole, else JSON Lines read line by line; a line that is not JSON is reported and the
 * others are read.
 */
export function readEntries(text: string): { layout: ImportResult['layout']; entries: Entry[]; bad: BadLine[] } {
  const body = text.replace(/^\uFEFF/, '')
  const trimmed = body.trim()
  if (!trimmed) return { layout: 'lines', entries: [], bad: [] }
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    const whole = parseJson(trimmed)
    if (whole.ok) {
      const value = whole.value as { results?: unknown }
      const list = Array.isArray(value) ? value : Array.isArray(value?.results) && !isOurs(value) ? value.results : undefined
      if (list) return { layout: 'array', entries: list.map((item, i) => ({ line: i + 1, value: item })), bad: [] }
      // one value: a file of one line, or one pretty-printed record
      const line = body.split(/\r?\n/).findIndex((row) => row.trim()) + 1
      return { layout: 'lines', entries: [{ line, value: whole.value }], bad: [] }
    }
  }
  const entries: Entry[] = []
  const bad: BadLine[] = []
  body.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (!line) return
    const parsed = parseJson(line)
    // no detail: the parser's message quotes the line, and the file may not be meant for the chat
    if (parsed.ok) entries.push({ line: i + 1, value: parsed.value })
    else bad.push({ line: i + 1, problem: 'not-json' })
  })
  return { layout: 'lines', entries, bad }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const emptyCounts = () =>
  Object.fromEntries(RECORD_KINDS.map((kind) => [kind, { imported: 0, skipped: 0 }])) as Record<RecordKind, KindResult>

const time = (date: Date | null | undefined) => (date ? date.getTime() : null)
const key = (...parts: unknown[]) => JSON.stringify(parts)

/**
 * Reads an export (ours, one record a line, or mem0's memories) and re-creates what it holds through
 * each domain's own store and index. A row keeps its id when the id is free and fits its column, else
 * gets a fresh one, and the rows that name it (versions, the change log, summaries, relations) are
 * pointed at the new id. A row already there — the same id with the same content, or the same content
 * in the same place — is skipped and counted. A line that cannot be read, or a row the database
 * refuses, is reported with its number; the others are imported.
 */
export async function importMemory(ports: TransferPorts, text: string, options: ImportOptions = {}): Promise<ImportResult> {
  const { layout, entries, bad } = readEntries(text)
  const result: ImportResult = { counts: emptyCounts(), bad, layout, formats: { ours: 0, mem0: 0 }, renamed: 0 }
  const items = Object.fromEntries(RECORD_KINDS.map((kind) => [kind, []])) as unknown as Items
  const mem0: Mem0Options = { platform: options.platform, userId: options.userId, now: ports.now() }
  for (const { line, value } of entries) {
    if (isOurs(value)) {
      const checked = checkRecord(value)
      if (!checked.ok) bad.push({ line, problem: checked.problem, detail: checked.detail })
      else {
        result.formats.ours++
        ;(items[checked.value.kind] as Item<RecordKind>[]).push({ line, data: checked.value.data })
      }
    } else if (isMem0(value)) {
      const checked = mem0Fact(value, mem0)
      if (!checked.ok) bad.push({ line, problem: checked.problem, detail: checked.detail })
      else {
        result.formats.mem0++
        items.fact.push({ line, data: checked.value })
      }
    } else bad.push({ line, problem: 'unknown-format' })
  }
  await new Importer(ports, result).run(items)
  result.bad.sort((a, b) => a.line - b.line)
  return result
}

/** One import: the ids it kept or changed, kind by kind, so later kinds point at the right rows. */
class Importer {
  /** Id in the file → id stored (or of the row already there that it duplicates). */
  private readonly facts = new Map<string, string>()
  private readonly memories = new Map<string, string>()
  private readonly topics = new Map<string, string>()
  private readonly entities = new Map<string, string>()
  /** Ids given out in this import (not in the database yet). */
  private readonly given = new Set<string>()

  constructor(
    private readonly ports: TransferPorts,
    private readonly result: ImportResult,
  ) {}

  async run(items: Items): Promise<void> {
    await this.importFacts(items.fact)
    await this.importGroupMemories(items['group-memory'])
    await this.importGroupChanges(items['group-change'])
    await this.importTopics(items.topic)
    await this.importSummaries(items.summary)
    await this.importProfiles(items.profile)
    await this.importEntities(items.entity)
    await this.importRelations(items.relation)
  }

  private skip(kind: RecordKind) {
    this.result.counts[kind].skipped++
  }

  /**
   * The id a new row is stored under: its own when it is free (not in the database, not given out in
   * this import, not another line's) and fits, else a fresh one.
   */
  private async idFor(
    own: string,
    maxLength: number,
    taken: boolean,
    fileIds: Set<string>,
    exists: (id: string) => Promise<boolean>,
    prefix = '',
  ): Promise<string> {
    if (own && own.length <= maxLength && !taken && !this.given.has(own)) {
      this.given.add(own)
      return own
    }
    if (own) this.result.renamed++
    for (let attempt = 0; attempt < 100; attempt++) {
      const id = `${prefix}${this.ports.newId()}`.slice(0, maxLength)
      if (this.given.has(id) || fileIds.has(id) || (await exists(id))) continue
      this.given.add(id)
      return id
    }
    throw new Error('could not make a fresh id')
  }

  /**
   * The rows of a kind other rows point at (group memories, topics, entities), each kept under its own
   * id or a fresh one, or skipped as the twin of a row already there or earlier in the file; `ids`
   * learns where each file id went.
   */
  private async place<K extends 'group-memory' | 'topic' | 'entity'>(kind: K, items: Item<K>[], how: Placement<RecordRows[K]>) {
    const fileIds = new Set(items.map((item) => item.data.id))
    const seen = new Map<string, string>()
    const planned: Item<K>[] = []
    for (const { line, data } of items) {
      if (how.ids.has(data.id)) {
        this.skip(kind)
        continue
      }
      const existing = data.id.length <= how.maxLength ? await how.get(data.id) : undefined
      const twin = (row: RecordRows[K]) => how.sameAs(row, data)
      const inFile = how.fileKey(data)
      const earlier = (existing && twin(existing) ? existing.id : undefined) ?? (await how.around(data)).find(twin)?.id ?? seen.get(inFile)
      if (earlier) {
        how.ids.set(data.id, earlier)
        this.skip(kind)
        continue
      }
      const id = await this.idFor(data.id, how.maxLength, Boolean(existing), fileIds, async (id) => Boolean(await how.get(id)))
      how.ids.set(data.id, id)
      seen.set(inFile, id)
      planned.push({ line, data: { ...data, id } })
    }
    return planned
  }

  /** Stores each row, reporting the lines the database refuses; returns the rows stored. */
  private async store<K extends RecordKind>(kind: K, rows: Item<K>[], write: (row: RecordRows[K]) => Promise<void>) {
    const stored: RecordRows[K][] = []
    for (const { line, data } of rows) {
      try {
        await write(data)
        stored.push(data)
        this.result.counts[kind].imported++
      } catch (error) {
        this.result.bad.push({ line, problem: 'store-failed', detail: (error as Error).message.slice(0, 200) })
      }
    }
    return stored
  }

  /** Indexes stored rows the way a normal write does; what cannot be indexed now waits in the outbox (or for reconciling). */
  private async index<T>(rows: T[], put: (rows: T[]) => Promise<unknown>) {
    for (const part of chunks(rows, INDEX_BATCH)) await put(part).catch(() => undefined)
  }

  private async importFacts(items: Item<'fact'>[]) {
    const { facts, factIndex } = this.ports
    const fileIds = new Set(items.map((item) => item.data.id))
    const seen = new Map<string, string>()
    const planned: Item<'fact'>[] = []
    for (const { line, data } of items) {
      const own = data.id
      if (own && this.facts.has(own)) {
        this.skip('fact')
        continue
      }
      const scope = { platform: data.platform, userId: data.userId, guildId: data.guildId }
      const [existing] = own && own.length <= ID_LENGTH.fact ? await facts.get([own]) : []
      const same = existing && sameScope(existing, data) && existing.content === data.content
      // a current fact duplicates a current one; a closed one, any row with its words
      const duplicate = same ? existing : await facts.findByContent(scope, data.content, { history: Boolean(data.validTo) })
      const inFile = key(data.platform, data.userId, data.guildId, data.content, time(data.validTo))
      const earlier = duplicate?.id ?? seen.get(inFile)
      if (earlier) {
        if (own) this.facts.set(own, earlier)
        this.skip('fact')
        continue
      }
      const id = await this.idFor(own, ID_LENGTH.fact, Boolean(existing), fileIds, async (id) => (await facts.get([id])).length > 0)
      if (own) this.facts.set(own, id)
      seen.set(inFile, id)
      planned.push({ line, data: { ...data, id } })
    }
    const remap = (id: string | undefined) => (id ? (this.facts.get(id) ?? id) : (id ?? ''))
    for (const { data } of planned) {
      data.parentId = remap(data.parentId)
      data.supersededBy = remap(data.supersededBy)
    }
    const stored = await this.store('fact', planned, (row) => facts.insert(row))
    await this.index(stored, (rows) => factIndex.put(rows))
  }

  private async importGroupMemories(items: Item<'group-memory'>[]) {
    const { groups, groupIndex } = this.ports
    const planned = await this.place('group-memory', items, {
      ids: this.memories,
      maxLength: ID_LENGTH.group,
      get: async (id) => (await groups.getMemories([id]))[0],
      around: cachedBy(
        (row) => key(row.platform, row.guildId),
        (row) => groups.memoriesOf({ platform: row.platform, guildId: row.guildId }),
      ),
      sameAs: (row, data) => sameGuild(row, data) && row.statement === data.statement && row.version === data.version,
      fileKey: (data) => key(data.platform, data.guildId, data.statement, data.version),
    })
    const remap = (id: string) => (id ? (this.memories.get(id) ?? id) : id)
    for (const { data } of planned) {
      data.parentId = remap(data.parentId)
      data.supersededBy = remap(data.supersededBy)
    }
    const stored = await this.store('group-memory', planned, (row) => groups.putMemory(row))
    if (groupIndex) await this.index(stored, (rows) => groupIndex.sync(rows, []))
  }

  private async importGroupChanges(items: Item<'group-change'>[]) {
    const { groups } = this.ports
    const fileIds = new Set(items.map((item) => item.data.id))
    const ofGroup = cachedBy(
      (row: GroupChangeRow) => key(row.platform, row.guildId),
      (row) => groups.changesOf({ platform: row.platform, guildId: row.guildId }),
    )
    const done = new Set<string>()
    const seen = new Set<string>()
    const planned: Item<'group-change'>[] = []
    for (const { line, data } of items) {
      if (done.has(data.id)) {
        this.skip('group-change')
        continue
      }
      done.add(data.id)
      const row = { ...data, memoryId: this.memories.get(data.memoryId) ?? data.memoryId }
      if (row.previousId) row.previousId = this.memories.get(row.previousId) ?? row.previousId
      const sameAs = (other: GroupChangeRow) =>
        sameGuild(other, row) &&
        other.action === row.action &&
        other.memoryId === row.memoryId &&
        other.createdAt.getTime() === row.createdAt.getTime() &&
        other.newStatement === row.newStatement
      const [existing] = row.id.length <= ID_LENGTH.change ? await groups.getChanges([row.id]) : []
      const inFile = key(row.platform, row.guildId, row.action, row.memoryId, row.createdAt.getTime(), row.newStatement)
      if ((existing && sameAs(existing)) || (await ofGroup(row)).some(sameAs) || seen.has(inFile)) {
        this.skip('group-change')
        continue
      }
      seen.add(inFile)
      row.id = await this.idFor(
        row.id,
        ID_LENGTH.change,
        Boolean(existing),
        fileIds,
        async (id) => (await groups.getChanges([id])).length > 0,
        'import.',
      )
      planned.push({ line, data: row })
    }
    await this.store('group-change', planned, (row) => groups.putChange(row))
  }

  private async importTopics(items: Item<'topic'>[]) {
    const { topics } = this.ports
    const planned = await this.place('topic', items, {
      ids: this.topics,
      maxLength: ID_LENGTH.topic,
      get: (id) => topics.get(id),
      around: cachedBy(
        (row) => key(row.platform, row.guildId),
        (row) => topics.inGuild({ platform: row.platform, guildId: row.guildId }),
      ),
      sameAs: (row, data) =>
        row.platform === data.platform &&
        row.channelId === data.channelId &&
        row.title === data.title &&
        row.createdAt.getTime() === data.createdAt.getTime(),
      fileKey: (data) => key(data.platform, data.channelId, data.title, data.createdAt.getTime()),
    })
    await this.store('topic', planned, (row) => topics.create(row))
  }

  private async importSummaries(items: Item<'summary'>[]) {
    const { summaries, summaryIndex, embedderId } = this.ports
    const seen = new Set<string>()
    const planned: Item<'summary'>[] = []
    for (const { line, data } of items) {
      const topicId = this.topics.get(data.topicId) ?? data.topicId
      // a summary is its topic's version: that version there already (or twice in the file) is a duplicate
      const id = summaryId(topicId, data.version)
      if (seen.has(id) || (await summaries.get([id])).length) {
        this.skip('summary')
        continue
      }
      seen.add(id)
      // indexed anew with this instance's embedder
      planned.push({ line, data: { ...data, id, topicId, embedder: embedderId } })
    }
    const stored = await this.store('summary', planned, (row) => summaries.insert(row))
    if (!summaryIndex) return
    // only the newest version of a topic is in the index
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

  private async importProfiles(items: Item<'profile'>[]) {
    const { knowledge } = this.ports
    const seen = new Set<string>()
    const planned: Item<'profile'>[] = []
    for (const { line, data } of items) {
      // a profile's id is made from whose it is and where; one is kept per user per place
      const ref = { platform: data.platform, guildId: data.guildId, userId: data.userId }
      const id = profileId(ref)
      if (seen.has(id) || (await knowledge.profile(ref))) {
        this.skip('profile')
        continue
      }
      seen.add(id)
      planned.push({ line, data: { ...data, id } })
    }
    await this.store('profile', planned, (row) => knowledge.upsertProfile(row))
  }

  private async importEntities(items: Item<'entity'>[]) {
    const { knowledge, entityIndex } = this.ports
    const planned = await this.place('entity', items, {
      ids: this.entities,
      maxLength: ID_LENGTH.entity,
      get: async (id) => (await knowledge.entities([id]))[0],
      around: cachedBy(
        (row) => key(row.platform, row.guildId, row.userId),
        (row) => knowledge.entitiesOf({ platform: row.platform, guildId: row.guildId, userId: row.userId }),
      ),
      sameAs: (row, data) => sameKnowledgeScope(row, data) && row.key === data.key,
      fileKey: (data) => key(data.platform, data.guildId, data.userId, data.key),
    })
    const stored = await this.store('entity', planned, (row) => knowledge.upsertEntities([row]))
    await this.index(stored, (rows) => entityIndex.put(rows))
  }

  private async importRelations(items: Item<'relation'>[]) {
    const { knowledge } = this.ports
    const fileIds = new Set(items.map((item) => item.data.id))
    const done = new Set<string>()
    const seen = new Set<string>()
    const planned: Item<'relation'>[] = []
    for (const { line, data } of items) {
      if (done.has(data.id)) {
        this.skip('relation')
        continue
      }
      done.add(data.id)
      const row: RelationRow = {
        ...data,
        subjectId: this.entities.get(data.subjectId) ?? data.subjectId,
        objectId: this.entities.get(data.objectId) ?? data.objectId,
      }
      const sameAs = (other: RelationRow) =>
        sameKnowledgeScope(other, row) &&
        other.subjectId === row.subjectId &&
        other.predicate === row.predicate &&
        other.objectId === row.objectId &&
        time(other.validTo) === time(row.validTo)
      const [existing] = row.id.length <= ID_LENGTH.relation ? await knowledge.relations([row.id]) : []
      const inFile = key(row.platform, row.guildId, row.userId, row.subjectId, row.predicate, row.objectId, time(row.validTo))
      if ((existing && sameAs(existing)) || (await knowledge.relationsTouching(row, [row.subjectId])).some(sameAs) || seen.has(inFile)) {
        this.skip('relation')
        continue
      }
      seen.add(inFile)
      row.id = await this.idFor(
        row.id,
        ID_LENGTH.relation,
        Boolean(existing),
        fileIds,
        async (id) => (await knowledge.relations([id])).length > 0,
      )
      planned.push({ line, data: row })
    }
    await this.store('relation', planned, (row) => knowledge.upsertRelations([row]))
  }
}

/** How `place` finds a row's twins and tells whether an id is taken, for one kind. */
interface Placement<Row extends { id: string }> {
  /** File id → the id it was stored under, or of its twin. */
  ids: Map<string, string>
  maxLength: number
  get(id: string): Promise<Row | undefined>
  /** The rows already there a row may be the twin of (its group, guild or scope). */
  around(row: Row): Promise<Row[]>
  sameAs(existing: Row, row: Row): boolean
  /** What makes two lines of the file the same row. */
  fileKey(row: Row): string
}

/** `load`, asked once per key. */
function cachedBy<Row, T>(keyOf: (row: Row) => string, load: (row: Row) => Promise<T>): (row: Row) => Promise<T> {
  const known = new Map<string, Promise<T>>()
  return (row) => {
    const at = keyOf(row)
    if (!known.has(at)) known.set(at, load(row))
    return known.get(at)!
  }
}

function sameScope(a: FactRow, b: FactRow) {
  return a.platform === b.platform && a.userId === b.userId && a.guildId === b.guildId
}

function sameGuild(a: GuildRef, b: GuildRef) {
  return a.platform === b.platform && a.guildId === b.guildId
}

function sameKnowledgeScope(a: KnowledgeScope, b: KnowledgeScope) {
  return a.platform === b.platform && a.guildId === b.guildId && a.userId === b.userId
}
