import { chunks } from '../core/chunks'
import type { FactRow } from '../facts'
import type { EntityRow, KnowledgeScope, RelationRow } from '../knowledge'
import type { GroupRef, UserRef } from '../scope'
import type { TransferPorts } from './ports'
import type { RecordKind, RecordRows, TransferRecord } from './records'
import { RECORD_KINDS, recordLine } from './records'

/**
 * What to export: one user's memory (their facts in every guild, their profiles, the knowledge of
 * their private chats), one group's (the facts learnt there, its group memories with their history and
 * change log, its topics and their summaries, the profiles and knowledge kept there), or everything.
 */
export type ExportSelection = { user: UserRef } | { group: GroupRef } | { all: true }

export type KindCounts = Record<RecordKind, number>

export interface ExportResult {
  /** JSON Lines, one record a line, each ending in a newline; `''` when nothing was selected. */
  text: string
  counts: KindCounts
  total: number
}

/** Rows read per query when paging through a table. */
const PAGE = 500

export const zeroCounts = (): KindCounts => Object.fromEntries(RECORD_KINDS.map((kind) => [kind, 0])) as KindCounts

const byTime =
  <T extends { id: string }>(at: (row: T) => Date) =>
  (a: T, b: T) =>
    at(a).getTime() - at(b).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const sortedBy = <T extends { id: string }>(rows: T[], at: (row: T) => Date) => [...rows].sort(byTime(at))

async function factsOf(ports: TransferPorts, selection: ExportSelection): Promise<FactRow[]> {
  const { facts } = ports
  if ('user' in selection) return facts.ofUser(selection.user.platform, selection.user.userId)
  if ('group' in selection) {
    const rows: FactRow[] = []
    const scope = { platform: selection.group.platform, guildId: selection.group.guildId }
    for (let offset = 0; ; offset += PAGE) {
      const page = await facts.list(scope, PAGE, offset, { history: true })
      rows.push(...page)
      if (page.length < PAGE) break
    }
    // a page boundary moved by a write meanwhile could repeat a row
    return [...new Map(rows.map((row) => [row.id, row])).values()]
  }
  const rows: FactRow[] = []
  for (const part of chunks(await facts.allIds())) rows.push(...(await facts.get(part)))
  return rows
}

async function entitiesOf(ports: TransferPorts, selection: ExportSelection): Promise<EntityRow[]> {
  const { knowledge } = ports
  if ('user' in selection) return knowledge.entitiesOf({ ...selection.user, guildId: '' })
  if ('group' in selection) return knowledge.entitiesOf({ ...selection.group, userId: '' })
  const rows: EntityRow[] = []
  for (const part of chunks(await knowledge.allEntityIds())) rows.push(...(await knowledge.entities(part)))
  return rows
}

/** The relations among the entities, scope by scope (a relation joins two entities of one scope). */
async function relationsOf(ports: TransferPorts, entities: EntityRow[]): Promise<RelationRow[]> {
  const byScope = new Map<string, { scope: KnowledgeScope; ids: string[] }>()
  for (const row of entities) {
    const key = JSON.stringify([row.platform, row.guildId, row.userId])
    const entry = byScope.get(key) ?? { scope: { platform: row.platform, guildId: row.guildId, userId: row.userId }, ids: [] }
    entry.ids.push(row.id)
    byScope.set(key, entry)
  }
  const rows: RelationRow[] = []
  for (const { scope, ids } of byScope.values()) rows.push(...(await ports.knowledge.relationsTouching(scope, ids)))
  return [...new Map(rows.map((row) => [row.id, row])).values()]
}

/**
 * The records of a selection, kind by kind in `RECORD_KINDS` order, each kind in the order its rows
 * were made (then by id), ids as they are stored: exporting the same memory twice gives the same lines.
 */
export async function* exportRecords(ports: TransferPorts, selection: ExportSelection): AsyncGenerator<TransferRecord> {
  const emit = function* <K extends RecordKind>(kind: K, rows: RecordRows[K][]) {
    for (const data of rows) yield { kind, data } as TransferRecord
  }
  yield* emit(
    'fact',
    sortedBy(await factsOf(ports, selection), (row) => row.createdAt),
  )

  const guild = 'group' in selection ? selection.group : undefined
  if (!('user' in selection)) {
    yield* emit(
      'group-memory',
      sortedBy(await ports.groups.memoriesOf(guild), (row) => row.createdAt),
    )
    yield* emit(
      'group-change',
      sortedBy(await ports.groups.changesOf(guild), (row) => row.createdAt),
    )
    yield* emit(
      'topic',
      sortedBy(await ports.topics.inGuild(guild), (row) => row.createdAt),
    )
    const summaries = await ports.summaries.inGuild(guild)
    yield* emit(
      'summary',
      summaries.sort((a, b) => (a.topicId < b.topicId ? -1 : a.topicId > b.topicId ? 1 : a.version - b.version)),
    )
  }

  const profiles =
    'user' in selection
      ? await ports.knowledge.profilesOf(selection.user)
      : await ports.knowledge.profilesOf(guild && { platform: guild.platform, guildId: guild.guildId })
  yield* emit(
    'profile',
    sortedBy(profiles, (row) => row.updatedAt),
  )
  const entities = await entitiesOf(ports, selection)
  yield* emit(
    'entity',
    sortedBy(entities, (row) => row.firstSeen),
  )
  yield* emit(
    'relation',
    sortedBy(await relationsOf(ports, entities), (row) => row.createdAt),
  )
}

/** Characters of lines handed to `write` at once. */
const WRITE_CHUNK = 64 * 1024

/**
 * The selection as JSON Lines handed to `write` a chunk at a time (whole lines, each ending in a
 * newline), so an export is never built as one string; `write` is not called when nothing is selected.
 */
export async function writeExport(
  ports: TransferPorts,
  selection: ExportSelection,
  write: (chunk: string) => Promise<void>,
): Promise<Omit<ExportResult, 'text'>> {
  const counts = zeroCounts()
  let total = 0
  let pending: string[] = []
  let size = 0
  for await (const record of exportRecords(ports, selection)) {
    counts[record.kind]++
    total++
    const line = `${recordLine(record)}\n`
    pending.push(line)
    size += line.length
    if (size < WRITE_CHUNK) continue
    await write(pending.join(''))
    pending = []
    size = 0
  }
  if (pending.length) await write(pending.join(''))
  return { counts, total }
}

/** The selection as JSON Lines, with how many records of each kind. */
export async function exportMemory(ports: TransferPorts, selection: ExportSelection): Promise<ExportResult> {
  const parts: string[] = []
  const { counts, total } = await writeExport(ports, selection, async (chunk) => void parts.push(chunk))
  return { text: parts.join(''), counts, total }
}
