import { cosine } from '../providers/vectors'
import type { Embedder } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import { cleanText } from '../text/clean'
import { checkDays } from './evolution'
import { checkGroup, groupId, sameGroup } from './group-id'
import type { GroupIndex } from './group-index'
import { searchable } from './group-index'
import type {
  ChangesResponse,
  ChangeView,
  GroupChangeRow,
  GroupMemoryRow,
  GroupRef,
  HistoryResponse,
  ListResponse,
  ListStatus,
  ManualResponse,
  MemoryView,
  SearchResponse,
} from './types'
import type { GroupMemoryStore } from './store'
import { GroupMemoryError } from './types'

/**
 * Reading and hand-editing a group's memories: list, semantic search, history of a memory, recent
 * changes, delete, restore and set strength. Every call names its group and only ever sees or
 * touches that group's rows; a memory id of another group is "not found".
 */

export interface QueryDeps {
  store: GroupMemoryStore
  index?: GroupIndex
  embedder: Embedder
  counters: Counters
  logger: Logger
  now: () => Date
  newId: () => string
  /** Default similarity threshold of `search`. */
  searchThreshold: number
}

export interface ListOptions {
  status?: ListStatus
  limit?: number
  offset?: number
}

export interface SearchOptions {
  limit?: number
  /** Minimum cosine similarity, 0–1. */
  threshold?: number
}

export const LIST_LIMIT = { default: 20, max: 100 }
export const SEARCH_LIMIT = { default: 5, max: 50 }
export const CHANGES_DAYS = 7
/** Most change rows returned by `changes`. */
export const CHANGES_MAX = 500
/** Active memories compared directly when the vector index is unavailable. */
const SCAN_MAX = 500
/** Longest chain followed by `history`. */
const CHAIN_MAX = 1000
const STATUSES: ListStatus[] = ['active', 'deprecated', 'all']

const bad = (message: string) => new GroupMemoryError(message, 'bad-request')
const round = (value: number) => Math.round(value * 1000) / 1000

function checkInt(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw bad(`${name} must be a whole number from ${min} to ${max}`)
  }
  return value
}

function checkUnit(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) throw bad(`${name} must be a number from 0 to 1`)
  return value
}

export function memoryView(row: GroupMemoryRow): MemoryView {
  return {
    memory_id: row.id,
    group_id: groupId(row),
    statement: row.statement,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    parent_id: row.parentId || null,
    status: row.status,
    superseded_by: row.supersededBy || null,
    change_summary: row.changeSummary,
    deprecated_reason: row.deprecatedReason,
    tags: row.tags,
    strength: row.strength,
  }
}

export function changeView(row: GroupChangeRow): ChangeView {
  return {
    timestamp: row.createdAt.toISOString(),
    action: row.action,
    memory_id: row.memoryId,
    previous_id: row.previousId || null,
    old_statement: row.oldStatement,
    new_statement: row.newStatement,
    change_reason: row.reason,
    version: row.version,
    actor: row.actor || null,
  }
}

export class GroupQueries {
  constructor(private deps: QueryDeps) {}

  async list(group: GroupRef, options: ListOptions = {}): Promise<ListResponse> {
    group = checkGroup(group)
    const status = options.status ?? 'active'
    if (!STATUSES.includes(status)) throw bad(`status must be one of ${STATUSES.join(', ')}`)
    const limit = checkInt('limit', options.limit, LIST_LIMIT.default, 1, LIST_LIMIT.max)
    const offset = checkInt('offset', options.offset, 0, 0, 1_000_000)
    const { total, rows } = await this.deps.store.listMemories(group, status, limit, offset)
    return { success: true, group_id: groupId(group), total, memories: rows.map(memoryView) }
  }

  /**
   * Active memories of the group similar to `query`, best first, with their cosine similarity as
   * `score`. Uses the LanceDB index (hybrid vector + full-text, scoped to the group); when it is
   * unavailable, compares the group's active memories directly (`source: 'scan'`).
   */
  async search(group: GroupRef, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    group = checkGroup(group)
    const text = typeof query === 'string' ? query.trim() : ''
    if (!text) throw bad('the query is empty')
    if (text.length > 2000) throw bad('the query is longer than 2000 characters')
    const limit = checkInt('limit', options.limit, SEARCH_LIMIT.default, 1, SEARCH_LIMIT.max)
    const threshold = checkUnit('threshold', options.threshold, this.deps.searchThreshold)
    const { store, index, counters, logger } = this.deps

    let scored: { row: GroupMemoryRow; score: number }[] | undefined
    let source: SearchResponse['source'] = 'index'
    if (index) {
      try {
        // replaced versions may linger in the index until the outbox drains: ask for a few more
        const hits = await index.search(group, text, limit * 2 + 5)
        const rows = new Map((await store.getMemories(hits.map((hit) => hit.id))).map((row) => [row.id, row]))
        scored = hits.flatMap((hit) => {
          const row = rows.get(hit.id)
          // the database is the truth: only this group's active heads
          return row && sameGroup(row, group) && searchable(row) ? [{ row, score: hit.similarity }] : []
        })
      } catch (error) {
        counters.inc('group.search-fallback')
        logger.debug('group memory search falls back to a scan: %s', (error as Error).message)
      }
    }
    if (!scored) {
      source = 'scan'
      const rows = await store.activeMemories(group, SCAN_MAX)
      if (!rows.length) scored = []
      else {
        const [vector, ...vectors] = await this.deps.embedder.embed([text, ...rows.map((row) => row.statement)])
        scored = rows.map((row, i) => ({ row, score: cosine(vector, vectors[i]) }))
      }
    }
    const results = scored
      .filter((hit) => hit.score >= threshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ row, score }) => ({
        memory_id: row.id,
        statement: row.statement,
        score: round(score),
        version: row.version,
        updated_at: row.updatedAt.toISOString(),
        strength: row.strength,
      }))
    return { success: true, group_id: groupId(group), query: text, source, results }
  }

  /** The version chain the memory belongs to, oldest first, from version 1 to the current head. */
  async history(group: GroupRef, memoryId: string): Promise<HistoryResponse> {
    group = checkGroup(group)
    const start = await this.find(group, memoryId)
    const chain = [start]
    const seen = new Set([start.id])
    const follow = async (next: (row: GroupMemoryRow) => string, add: (row: GroupMemoryRow) => void) => {
      let row = start
      while (next(row) && chain.length < CHAIN_MAX) {
        const id = next(row)
        if (seen.has(id)) break
        const [found] = await this.deps.store.getMemories([id])
        if (!found || !sameGroup(found, group)) break
        seen.add(id)
        add(found)
        row = found
      }
    }
    await follow(
      (row) => row.parentId,
      (row) => chain.unshift(row),
    )
    await follow(
      (row) => row.supersededBy,
      (row) => chain.push(row),
    )
    return {
      success: true,
      group_id: groupId(group),
      memory_id: start.id,
      current_version: chain[chain.length - 1].version,
      history: chain.map((row) => ({
        version: row.version,
        memory_id: row.id,
        statement: row.statement,
        created_at: row.createdAt.toISOString(),
        updated_at: row.updatedAt.toISOString(),
        parent_id: row.parentId || null,
        change_summary: row.changeSummary,
        status: row.status,
      })),
    }
  }

  /** The group's changes of the last `days` days (default 7), newest first. */
  async changes(group: GroupRef, options: { days?: number } = {}): Promise<ChangesResponse> {
    group = checkGroup(group)
    const days = checkDays(options.days, CHANGES_DAYS)
    const now = this.deps.now()
    const since = new Date(now.getTime() - days * 86_400_000)
    const rows = await this.deps.store.changesSince(group, since, CHANGES_MAX)
    return {
      success: true,
      group_id: groupId(group),
      period: `${since.toISOString().slice(0, 10)} to ${now.toISOString().slice(0, 10)}`,
      changes: rows.map(changeView),
    }
  }

  /** Deletes (deprecates) an active memory by hand. */
  async remove(group: GroupRef, memoryId: string, reason = ''): Promise<ManualResponse> {
    group = checkGroup(group)
    const row = await this.find(group, memoryId)
    if (row.supersededBy)
      throw new GroupMemoryError(`memory ${row.id} was replaced by ${row.supersededBy}; delete that version`, 'conflict')
    if (row.status !== 'active') throw new GroupMemoryError(`memory ${row.id} is already deleted`, 'conflict')
    const now = this.deps.now()
    const by = `manual:${this.deps.newId()}`
    const text = typeof reason === 'string' ? cleanText(reason.trim().slice(0, 1000)) : ''
    const patch = { status: 'deprecated' as const, deprecatedReason: text, statusBy: by, updatedAt: now }
    await this.deps.store.patchMemory(row.id, patch)
    await this.log(row, 'delete', row.statement, '', text, now)
    await this.deps.index?.sync([], [row.id])
    this.deps.counters.inc('group.manual')
    return { success: true, group_id: groupId(group), memory: memoryView({ ...row, ...patch }) }
  }

  /** Makes a deleted memory active again (only the head of its chain: a replaced version stays history). */
  async restore(group: GroupRef, memoryId: string): Promise<ManualResponse> {
    group = checkGroup(group)
    const row = await this.find(group, memoryId)
    if (row.supersededBy)
      throw new GroupMemoryError(
        `memory ${row.id} was replaced by ${row.supersededBy}; only a deleted current version can be restored`,
        'conflict',
      )
    if (row.status === 'active') throw new GroupMemoryError(`memory ${row.id} is active`, 'conflict')
    const now = this.deps.now()
    const patch = { status: 'active' as const, deprecatedReason: '', statusBy: `manual:${this.deps.newId()}`, updatedAt: now }
    await this.deps.store.patchMemory(row.id, patch)
    const restored = { ...row, ...patch }
    await this.log(row, 'restore', '', row.statement, row.deprecatedReason, now)
    await this.deps.index?.sync([restored], [])
    this.deps.counters.inc('group.manual')
    return { success: true, group_id: groupId(group), memory: memoryView(restored) }
  }

  /** Sets the strength (0–1) of the current version of a memory. */
  async setStrength(group: GroupRef, memoryId: string, strength: number): Promise<ManualResponse> {
    group = checkGroup(group)
    if (typeof strength !== 'number' || !Number.isFinite(strength) || strength < 0 || strength > 1)
      throw bad('strength must be a number from 0 to 1')
    const row = await this.find(group, memoryId)
    if (row.supersededBy)
      throw new GroupMemoryError(`memory ${row.id} was replaced by ${row.supersededBy}; set the strength of that version`, 'conflict')
    const now = this.deps.now()
    const patch = { strength: round(strength), updatedAt: now }
    await this.deps.store.patchMemory(row.id, patch)
    await this.log(row, 'strength', row.statement, row.statement, `strength ${row.strength} → ${patch.strength}`, now)
    this.deps.counters.inc('group.manual')
    return { success: true, group_id: groupId(group), memory: memoryView({ ...row, ...patch }) }
  }

  /** A memory of this group; anything else (unknown id, another group's id) is not found. */
  private async find(group: GroupRef, memoryId: string): Promise<GroupMemoryRow> {
    const id = typeof memoryId === 'string' ? memoryId.trim() : ''
    if (!id || id.length > 63) throw bad('a memory id is needed')
    const [row] = await this.deps.store.getMemories([id])
    if (!row || !sameGroup(row, group)) throw new GroupMemoryError(`no memory ${id} in group ${groupId(group)}`, 'not-found')
    return row
  }

  private async log(
    row: GroupMemoryRow,
    action: GroupChangeRow['action'],
    oldStatement: string,
    newStatement: string,
    reason: string,
    now: Date,
  ) {
    await this.deps.store.putChange({
      id: `manual.${this.deps.newId()}`,
      memoryId: row.id,
      previousId: '',
      platform: row.platform,
      guildId: row.guildId,
      action,
      oldStatement,
      newStatement,
      reason,
      version: row.version,
      runId: '',
      createdAt: now,
    })
  }
}
