import type { Context } from 'koishi'
import { $ } from 'koishi'
import type { GuildMessages } from '../messages'
import { KoishiMessageStore } from '../messages'
import { groupId } from './group-id'
import type { GroupMemoriesDeps } from './memories'
import { GroupMemories } from './memories'
import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupMessage, GroupRef, GroupSettingRow, ListStatus, ReviewRow } from './types'
import type { GroupMemoryStore, ReviewStore } from './store'
import { defineGroupTables } from './table'
import type { Outbox } from '../store/outbox'
import { KoishiOutbox } from '../store/outbox'
import type { VectorIndex } from '../store/vector-index'
import { chunks } from '../core/chunks'
import { KoishiGroupSources } from './sources'

const EPOCH = new Date(0)

/**
 * The Koishi-database implementation of `GroupMemoryStore` (tables in `table.ts`; captured messages
 * are read through the message store). Lease changes are conditional updates (`WHERE owner = …`)
 * followed by a read of the row, so they hold between Koishi instances sharing a MySQL or PostgreSQL
 * database, whatever a driver reports as the number of matched rows.
 */
export class KoishiGroupStore implements GroupMemoryStore {
  constructor(
    private ctx: Context,
    private messages: GuildMessages = new KoishiMessageStore(ctx),
  ) {}

  private get db() {
    return this.ctx.database
  }

  async getMemories(ids: string[]) {
    const unique = [...new Set(ids.filter(Boolean))]
    const rows: GroupMemoryRow[] = []
    for (const part of chunks(unique)) rows.push(...(await this.db.get('memory_group', { id: { $in: part } })))
    return rows
  }

  async activeMemories(group: GroupRef, limit: number) {
    return this.db.get(
      'memory_group',
      { platform: group.platform, guildId: group.guildId, status: 'active', supersededBy: '' },
      {
        limit,
        sort: { strength: 'desc', updatedAt: 'desc' },
      },
    )
  }

  async listMemories(group: GroupRef, status: ListStatus, limit: number, offset: number) {
    const query = {
      platform: group.platform,
      guildId: group.guildId,
      supersededBy: '',
      ...(status === 'all' ? {} : { status }),
    }
    const [total, rows] = await Promise.all([
      this.db.eval('memory_group', (row) => $.count(row.id), query),
      this.db.get('memory_group', query, { limit, offset, sort: { updatedAt: 'desc', id: 'asc' } }),
    ])
    return { total, rows }
  }

  async putMemory(row: GroupMemoryRow) {
    await this.db.upsert('memory_group', [row])
  }

  async patchMemory(id: string, patch: Partial<GroupMemoryRow>) {
    const { id: _, ...rest } = patch
    await this.db.set('memory_group', { id }, rest)
  }

  async getChanges(ids: string[]) {
    const unique = [...new Set(ids.filter(Boolean))]
    const rows: GroupChangeRow[] = []
    for (const part of chunks(unique)) rows.push(...(await this.db.get('memory_group_change', { id: { $in: part } })))
    return rows
  }

  async putChange(row: GroupChangeRow) {
    await this.db.upsert('memory_group_change', [row])
  }

  async changesSince(group: GroupRef, since: Date, limit: number) {
    return this.db.get(
      'memory_group_change',
      { platform: group.platform, guildId: group.guildId, createdAt: { $gte: since } },
      {
        limit,
        sort: { createdAt: 'desc', id: 'desc' },
      },
    )
  }

  recentMessages(group: GroupRef, query: { since: Date; after: Date; limit: number; roles: GroupMessage['role'][] }) {
    return this.messages.recentInGuild(group, query)
  }

  countMessages(group: GroupRef, after: Date) {
    return this.messages.countInGuild(group, after)
  }

  activeGroups(since: Date) {
    return this.messages.activeGuilds(since)
  }

  async getLease(group: GroupRef) {
    const [row] = await this.db.get('memory_group_lease', { id: groupId(group) })
    return row
  }

  async leases() {
    return this.db.get('memory_group_lease', {})
  }

  async acquireLease(group: GroupRef, owner: string, now: Date, until: Date) {
    const id = groupId(group)
    if (!(await this.getLease(group))) {
      const row: GroupLeaseRow = {
        id,
        platform: group.platform,
        guildId: group.guildId,
        owner: '',
        expiresAt: EPOCH,
        watermark: EPOCH,
        lastEvolvedAt: EPOCH,
        pending: '',
      }
      try {
        await this.db.create('memory_group_lease', row)
      } catch {
        // another instance created it first; the conditional update below decides
      }
    }
    await this.db.set(
      'memory_group_lease',
      { id, $or: [{ owner: '' }, { owner }, { expiresAt: { $lt: now } }] },
      { owner, expiresAt: until },
    )
    return (await this.getLease(group))?.owner === owner
  }

  async patchLease(
    group: GroupRef,
    owner: string,
    patch: Partial<Pick<GroupLeaseRow, 'owner' | 'expiresAt' | 'watermark' | 'lastEvolvedAt' | 'pending'>>,
  ) {
    const id = groupId(group)
    const before = patch.owner === undefined ? undefined : await this.getLease(group)
    await this.db.set('memory_group_lease', { id, owner }, patch)
    // a release cannot be checked by reading the owner back; it only matters that it did not steal
    if (patch.owner !== undefined) return before?.owner === owner
    return (await this.getLease(group))?.owner === owner
  }

  async knows(group: GroupRef) {
    if (await this.messages.hasGuild(group)) return true
    return this.hasMemories(group)
  }

  async activeIds() {
    const rows = await this.db.get('memory_group', { status: 'active', supersededBy: '' }, ['id'])
    return rows.map((row) => row.id)
  }

  /** Every version of every memory of a group, or of every group (an export). */
  memoriesOf(group?: GroupRef) {
    return this.db.get('memory_group', group ? { platform: group.platform, guildId: group.guildId } : {})
  }

  /** The whole change log of a group, or of every group (an export). */
  changesOf(group?: GroupRef) {
    return this.db.get('memory_group_change', group ? { platform: group.platform, guildId: group.guildId } : {})
  }

  /** Whether the group has a memory version. */
  async hasMemories(group: GroupRef) {
    const [row] = await this.db.get('memory_group', { platform: group.platform, guildId: group.guildId }, { fields: ['id'], limit: 1 })
    return Boolean(row)
  }

  /** Removes memory versions by id (a forget: see `forget.ts`). */
  async removeMemories(ids: string[]) {
    for (const part of chunks([...new Set(ids)])) await this.db.remove('memory_group', { id: { $in: part } })
  }

  /** Removes change-log rows by id (a forget). */
  async removeChanges(ids: string[]) {
    for (const part of chunks([...new Set(ids)])) await this.db.remove('memory_group_change', { id: { $in: part } })
  }
}

/** The review queue and the per-group settings in the Koishi database (tables in `table.ts`). */
export class KoishiReviewStore implements ReviewStore {
  constructor(private ctx: Context) {}

  private get db() {
    return this.ctx.database
  }

  async getReviews(ids: string[]) {
    const unique = [...new Set(ids.filter(Boolean))]
    const rows: ReviewRow[] = []
    for (const part of chunks(unique)) rows.push(...(await this.db.get('memory_group_review', { id: { $in: part } })))
    return rows
  }

  async addReviews(rows: ReviewRow[]) {
    if (!rows.length) return
    const stored = new Set((await this.getReviews(rows.map((row) => row.id))).map((row) => row.id))
    const fresh = rows.filter((row) => !stored.has(row.id))
    if (fresh.length) await this.db.upsert('memory_group_review', fresh)
  }

  pendingReviews(group: GroupRef, limit: number) {
    return this.db.get(
      'memory_group_review',
      { platform: group.platform, guildId: group.guildId, status: 'pending' },
      { limit, sort: { createdAt: 'asc', opIndex: 'asc' } },
    )
  }

  async decideReview(id: string, patch: Partial<ReviewRow>) {
    const { id: _, ...rest } = patch
    await this.db.set('memory_group_review', { id, status: 'pending' }, rest)
    // read back (what a driver reports as matched rows differs between drivers); decisions are made
    // holding the group's lease, so a row in the asked-for state is this call's
    const [row] = await this.db.get('memory_group_review', { id }, ['status', 'decidedBy'])
    return Boolean(row && row.status === rest.status && row.decidedBy === rest.decidedBy)
  }

  overdueReviews(before: Date, limit: number) {
    return this.db.get('memory_group_review', { status: 'pending', createdAt: { $lt: before } }, { limit, sort: { createdAt: 'asc' } })
  }

  /** Every proposal of a group, whatever its status. */
  reviewsOf(group: GroupRef) {
    return this.db.get('memory_group_review', { platform: group.platform, guildId: group.guildId })
  }

  /** Whether the group has a proposal, whatever its status. */
  async hasReviews(group: GroupRef) {
    const [row] = await this.db.get(
      'memory_group_review',
      { platform: group.platform, guildId: group.guildId },
      { fields: ['id'], limit: 1 },
    )
    return Boolean(row)
  }

  /** Removes proposals by id (a forget). */
  async removeReviews(ids: string[]) {
    for (const part of chunks([...new Set(ids)])) await this.db.remove('memory_group_review', { id: { $in: part } })
  }

  async getSetting(group: GroupRef) {
    const [row] = await this.db.get('memory_group_setting', { id: groupId(group) })
    return row
  }

  async putSetting(row: GroupSettingRow) {
    await this.db.upsert('memory_group_setting', [row])
  }
}

export interface CreateGroupMemoriesOptions extends Omit<GroupMemoriesDeps, 'store' | 'vector' | 'reviews'> {
  /** The vector index (the service's `LanceIndex`); left out, search scans the database. */
  index?: VectorIndex
  /** LanceDB table name. Default `group_memories`. */
  table?: string
  /** Where index work waits; default: the outbox of an instance with no name. */
  outbox?: Outbox
  /** The guild's messages; default: a message store of its own. */
  messages?: GuildMessages
}

/**
 * Wires group memory onto a Koishi context: declares the tables and builds `GroupMemories` over the
 * Koishi database, the given vector index and the shared outbox (`memory_outbox`).
 */
export function createGroupMemories(ctx: Context, options: CreateGroupMemoriesOptions): GroupMemories {
  defineGroupTables(ctx)
  const { index, table, outbox, messages, ...rest } = options
  return new GroupMemories({
    ...rest,
    store: new KoishiGroupStore(ctx, messages),
    reviews: new KoishiReviewStore(ctx),
    sources: new KoishiGroupSources(ctx),
    vector: index ? { index, outbox: outbox ?? new KoishiOutbox(ctx), table } : undefined,
  })
}
