import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupMessage, GroupRef, ListStatus } from '../../src/group/types'
import type { GroupMemoryStore } from '../../src/group/store'

const EPOCH = new Date(0)
const clone = <T>(value: T): T => structuredClone(value)
const key = (group: GroupRef) => `${group.platform}:${group.guildId}`
const inGroup = (row: GroupRef, group: GroupRef) => row.platform === group.platform && row.guildId === group.guildId

export interface StoredMessage extends GroupMessage {
  platform: string
  guildId: string
}

/**
 * An in-memory `GroupMemoryStore` that copies rows in and out like a database. `failWhen` makes a
 * write throw (a crash between two writes); `writes` counts the writes done.
 */
export class MemoryGroupStore implements GroupMemoryStore {
  memories = new Map<string, GroupMemoryRow>()
  changes = new Map<string, GroupChangeRow>()
  leaseRows = new Map<string, GroupLeaseRow>()
  messages: StoredMessage[] = []
  writes = 0
  failWhen?: (write: string, arg: unknown) => boolean

  private write(name: string, arg: unknown) {
    if (this.failWhen?.(name, arg)) throw new Error(`injected failure on ${name}`)
    this.writes++
  }

  addMessages(group: GroupRef, messages: { content: string; userName?: string; userId?: string; role?: 'user' | 'assistant'; at: Date }[]) {
    for (const message of messages) {
      this.messages.push({
        id: `m${this.messages.length + 1}`,
        platform: group.platform,
        guildId: group.guildId,
        userId: message.userId ?? message.userName ?? 'u',
        userName: message.userName ?? message.userId ?? 'u',
        content: message.content,
        role: message.role ?? 'user',
        createdAt: message.at,
      })
    }
  }

  /** Every version of every memory of a group. */
  rowsOf(group: GroupRef) {
    return [...this.memories.values()].filter((row) => inGroup(row, group)).map(clone)
  }

  heads(group: GroupRef) {
    return this.rowsOf(group).filter((row) => row.status === 'active' && !row.supersededBy)
  }

  async getMemories(ids: string[]) {
    return ids.flatMap((id) => (this.memories.has(id) ? [clone(this.memories.get(id)!)] : []))
  }

  async activeMemories(group: GroupRef, limit: number) {
    return this.heads(group)
      .sort((a, b) => b.strength - a.strength || b.updatedAt.getTime() - a.updatedAt.getTime())
      .slice(0, limit)
  }

  async listMemories(group: GroupRef, status: ListStatus, limit: number, offset: number) {
    const rows = this.rowsOf(group)
      .filter((row) => !row.supersededBy && (status === 'all' || row.status === status))
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || a.id.localeCompare(b.id))
    return { total: rows.length, rows: rows.slice(offset, offset + limit) }
  }

  async putMemory(row: GroupMemoryRow) {
    this.write('putMemory', row)
    this.memories.set(row.id, clone(row))
  }

  async patchMemory(id: string, patch: Partial<GroupMemoryRow>) {
    this.write('patchMemory', { id, ...patch })
    const row = this.memories.get(id)
    if (row) Object.assign(row, clone(patch))
  }

  async getChanges(ids: string[]) {
    return ids.flatMap((id) => (this.changes.has(id) ? [clone(this.changes.get(id)!)] : []))
  }

  async putChange(row: GroupChangeRow) {
    this.write('putChange', row)
    this.changes.set(row.id, clone(row))
  }

  async changesSince(group: GroupRef, since: Date, limit: number) {
    return [...this.changes.values()]
      .filter((row) => inGroup(row, group) && row.createdAt >= since)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
      .slice(0, limit)
      .map(clone)
  }

  async recentMessages(group: GroupRef, query: { since: Date; after: Date; limit: number; roles: GroupMessage['role'][] }) {
    return this.messages
      .filter((m) => inGroup(m, group) && query.roles.includes(m.role) && m.createdAt >= query.since && m.createdAt > query.after)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, query.limit)
      .reverse()
      .map(({ platform: _p, guildId: _g, ...message }) => clone(message))
  }

  async countMessages(group: GroupRef, after: Date) {
    return this.messages.filter((m) => inGroup(m, group) && m.role === 'user' && m.createdAt > after).length
  }

  async knows(group: GroupRef) {
    return this.messages.some((m) => inGroup(m, group)) || [...this.memories.values()].some((row) => inGroup(row, group))
  }

  async activeGroups(since: Date) {
    const newest = new Map<string, GroupRef & { newest: Date }>()
    for (const m of this.messages) {
      if (!m.guildId || m.createdAt <= since) continue
      const seen = newest.get(key(m))
      if (!seen || seen.newest < m.createdAt) newest.set(key(m), { platform: m.platform, guildId: m.guildId, newest: m.createdAt })
    }
    return [...newest.values()]
  }

  async getLease(group: GroupRef) {
    const row = this.leaseRows.get(key(group))
    return row && clone(row)
  }

  async leases() {
    return [...this.leaseRows.values()].map(clone)
  }

  async acquireLease(group: GroupRef, owner: string, now: Date, until: Date) {
    let row = this.leaseRows.get(key(group))
    if (!row) {
      row = { id: key(group), ...group, owner: '', expiresAt: EPOCH, watermark: EPOCH, lastEvolvedAt: EPOCH, pending: '' }
      this.leaseRows.set(row.id, row)
    }
    if (row.owner && row.owner !== owner && row.expiresAt >= now) return false
    Object.assign(row, { owner, expiresAt: until })
    return true
  }

  async patchLease(group: GroupRef, owner: string, patch: Partial<GroupLeaseRow>) {
    this.write('patchLease', patch)
    const row = this.leaseRows.get(key(group))
    if (!row || row.owner !== owner) return false
    Object.assign(row, clone(patch))
    return true
  }

  async activeIds() {
    return [...this.memories.values()].filter((row) => row.status === 'active' && !row.supersededBy).map((row) => row.id)
  }
}

/** A memory row with defaults, for seeding a store. */
export function memoryRow(group: GroupRef, id: string, statement: string, extra: Partial<GroupMemoryRow> = {}): GroupMemoryRow {
  const created = extra.createdAt ?? new Date('2025-01-01T00:00:00Z')
  return {
    id,
    platform: group.platform,
    guildId: group.guildId,
    statement,
    version: 1,
    parentId: '',
    supersededBy: '',
    changeSummary: '',
    status: 'active',
    deprecatedReason: '',
    statusBy: '',
    tags: [],
    strength: 0.5,
    runId: '',
    createdAt: created,
    updatedAt: extra.updatedAt ?? created,
    ...extra,
  }
}
