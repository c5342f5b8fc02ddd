import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupMessage, GroupRef, GroupSettingRow, ListStatus, ReviewRow } from './types'

/**
 * Where group memories, their change log, the lease and the captured messages live (the Koishi
 * database in production, memory in unit tests). Implementations do no business logic.
 */
export interface GroupMemoryStore {
  getMemories(ids: string[]): Promise<GroupMemoryRow[]>
  /** Active heads of a group, strongest first, then most recently updated; at most `limit`. */
  activeMemories(group: GroupRef, limit: number): Promise<GroupMemoryRow[]>
  /**
   * Heads of a group's chains (old versions are left out; they are reached through history) with
   * the given status, most recently updated first, and how many there are in all.
   */
  listMemories(group: GroupRef, status: ListStatus, limit: number, offset: number): Promise<{ total: number; rows: GroupMemoryRow[] }>
  /** Inserts or replaces a row by id. */
  putMemory(row: GroupMemoryRow): Promise<void>
  patchMemory(id: string, patch: Partial<GroupMemoryRow>): Promise<void>

  getChanges(ids: string[]): Promise<GroupChangeRow[]>
  /** Inserts or replaces a change-log row by id. */
  putChange(row: GroupChangeRow): Promise<void>
  /** A group's changes at or after `since`, newest first. */
  changesSince(group: GroupRef, since: Date, limit: number): Promise<GroupChangeRow[]>

  /**
   * The newest `limit` messages of a group with one of `roles`, created at or after `since` and
   * strictly after `after`, returned oldest first.
   */
  recentMessages(
    group: GroupRef,
    query: { since: Date; after: Date; limit: number; roles: GroupMessage['role'][] },
  ): Promise<GroupMessage[]>
  /** Groups (guildId not empty) with a message created after `since`, with the time of the newest. */
  activeGroups(since: Date): Promise<(GroupRef & { newest: Date })[]>

  getLease(group: GroupRef): Promise<GroupLeaseRow | undefined>
  leases(): Promise<GroupLeaseRow[]>
  /**
   * Takes the lease for `owner` until `until` when it is free, expired at `now`, or already held by
   * `owner`; creates the row when missing. Must be atomic against other instances (a conditional
   * update). Returns whether `owner` holds the lease afterwards.
   */
  acquireLease(group: GroupRef, owner: string, now: Date, until: Date): Promise<boolean>
  /**
   * Changes the lease row only while `owner` holds it (a conditional update: another instance that
   * took over an expired lease has changed the owner); returns whether it did.
   */
  patchLease(
    group: GroupRef,
    owner: string,
    patch: Partial<Pick<GroupLeaseRow, 'owner' | 'expiresAt' | 'watermark' | 'lastEvolvedAt' | 'pending'>>,
  ): Promise<boolean>
  /** Ids of the active heads of every group (for a full re-index). */
  activeIds(): Promise<string[]>
  /** How many messages members said in the group after `after` (no commands, not the bot). */
  countMessages(group: GroupRef, after: Date): Promise<number>
  /** Whether anything was said in the group or it has memories: a group that does not exist has neither. */
  knows(group: GroupRef): Promise<boolean>
}

/** Where the review queue and the per-group modes live (the Koishi database, or memory in tests). */
export interface ReviewStore {
  getReviews(ids: string[]): Promise<ReviewRow[]>
  /** Inserts the rows whose id is not stored yet (a replayed plan never reopens a decided proposal). */
  addReviews(rows: ReviewRow[]): Promise<void>
  /** A group's pending proposals, oldest first, at most `limit`. */
  pendingReviews(group: GroupRef, limit: number): Promise<ReviewRow[]>
  /** Changes a proposal only while it is pending; returns whether it did. */
  decideReview(
    id: string,
    patch: Partial<Pick<ReviewRow, 'status' | 'decidedAt' | 'decidedBy' | 'note' | 'appliedStatement' | 'memoryId'>>,
  ): Promise<boolean>
  /** Pending proposals created before `before`, oldest first, at most `limit`. */
  overdueReviews(before: Date, limit: number): Promise<ReviewRow[]>
  getSetting(group: GroupRef): Promise<GroupSettingRow | undefined>
  putSetting(row: GroupSettingRow): Promise<void>
}

/**
 * Which messages each evolution run read (table `memory_group_source`), written before the run's plan
 * is applied or queued: what a forget needs to find the group memories drawn from a message.
 */
export interface GroupSources {
  /** Records the messages `runId` reads (oldest first, as the model is given them). */
  record(runId: string, group: GroupRef, messages: Pick<GroupMessage, 'id' | 'createdAt'>[]): Promise<void>
}
