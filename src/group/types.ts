/**
 * Group memory (seed 002): per-group statements that an LLM keeps, updates, deletes or creates from
 * the group's new messages. Types shared by the Koishi-free core (`src/group/*`) and the Koishi
 * store (`src/store/koishi-group-store.ts`).
 */

/** A group: one guild on one platform (`memory_message.platform` + `memory_message.guildId`). */
export interface GroupRef {
  platform: string
  guildId: string
}

export type MemoryStatus = 'active' | 'deprecated'

/**
 * One version of a group memory. An update never overwrites a row: it writes a new row (version + 1,
 * `parentId` = the old row) and marks the old row deprecated with `supersededBy` = the new row. A
 * memory is therefore a chain of rows; its head is the row with `supersededBy === ''`.
 */
export interface GroupMemoryRow {
  id: string
  platform: string
  guildId: string
  statement: string
  version: number
  /** The previous version; `''` for version 1. */
  parentId: string
  /** The next version; `''` for the head of the chain. */
  supersededBy: string
  /** Why this version exists (the model's `change_reason`, or a manual note). */
  changeSummary: string
  status: MemoryStatus
  /** Why the memory was deleted (set when it is deprecated without a successor). */
  deprecatedReason: string
  /** The evolution run or manual operation that last changed `status`; lets a re-run tell its own writes apart. */
  statusBy: string
  tags: string[]
  /** 0–1. */
  strength: number
  /** The evolution run that wrote this row; `''` for rows written by hand. */
  runId: string
  createdAt: Date
  updatedAt: Date
}

export type ChangeAction = 'create' | 'update' | 'delete' | 'restore' | 'strength'

/** One change to a group's memories (the seed's `memory_change_log`). */
export interface GroupChangeRow {
  /** `<runId>.<op index>` for evolution runs (so a re-run cannot log twice), random for manual changes. */
  id: string
  /** The row the change produced (update, create) or touched (delete, restore, strength). */
  memoryId: string
  /** For an update, the version it replaced; otherwise `''`. */
  previousId: string
  platform: string
  guildId: string
  action: ChangeAction
  oldStatement: string
  newStatement: string
  reason: string
  version: number
  runId: string
  createdAt: Date
}

/**
 * Per-group evolution state and the lease that keeps two Koishi instances sharing one database from
 * evolving the same group at once.
 */
export interface GroupLeaseRow {
  /** `platform:guildId`. */
  id: string
  platform: string
  guildId: string
  /** The holder of the lease; `''` when free. */
  owner: string
  expiresAt: Date
  /** `createdAt` of the newest message already folded into the memories (epoch when none). */
  watermark: Date
  lastEvolvedAt: Date
  /** JSON of the `EvolutionPlan` being applied; `''` when none. A non-empty value after a crash is replayed. */
  pending: string
}

/** A captured message as the evolution reads it. */
export interface GroupMessage {
  id: string
  userId: string
  userName: string
  content: string
  role: 'user' | 'assistant'
  createdAt: Date
}

export type ListStatus = 'active' | 'deprecated' | 'all'

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

// ── the seed's response shapes (snake_case, JSON-ready) ─────────────────────

export interface EvolutionStats {
  kept: number
  updated: number
  created: number
  deleted: number
}

export type EvolutionChange =
  | {
      action: 'update'
      old_id: string
      new_id: string
      old_statement: string
      new_statement: string
      change_reason: string
      version: number
    }
  | { action: 'create'; new_id: string; statement: string; change_reason: string; version: number }
  | { action: 'delete'; old_id: string; old_statement: string; change_reason: string; version: number }

/** What went wrong with the model's answer, beyond the seed's shape. */
export interface EvolutionIssues {
  /** Lines that looked like JSON but could not be read or failed validation. */
  invalid_lines: number
  /** Non-JSON lines (prose) that were skipped. */
  ignored_lines: number
  /** Lines read only after `jsonrepair` fixed them. */
  repaired_lines: number
  /** Operations naming an id that was not shown to the model, or a memory already touched by an earlier line. */
  rejected_ops: number
  /** Operations on a memory changed by someone else before they could be applied. */
  stale_ops: number
}

export type EvolutionStatus = 'evolved' | 'no-new-messages' | 'busy' | 'no-llm' | 'failed'

export interface EvolutionResult {
  success: boolean
  group_id: string
  evolution_time: string
  status: EvolutionStatus
  /** For every status but `evolved`: what happened, in English (commands localise by `status`). */
  message?: string
  stats: EvolutionStats
  changes: EvolutionChange[]
  issues: EvolutionIssues
  /** Memories shown to the model and messages given to it. */
  input: { memories: number; messages: number }
  /** Set when an interrupted earlier run was completed first. */
  repaired?: { run_id: string; stats: EvolutionStats; changes: EvolutionChange[] }
}

export interface MemoryView {
  memory_id: string
  group_id: string
  statement: string
  version: number
  created_at: string
  updated_at: string
  parent_id: string | null
  status: MemoryStatus
  /** The next version when this one was replaced by an update, else null. */
  superseded_by: string | null
  change_summary: string
  deprecated_reason: string
  tags: string[]
  strength: number
}

export interface ListResponse {
  success: true
  group_id: string
  total: number
  memories: MemoryView[]
}

export interface SearchResponse {
  success: true
  group_id: string
  query: string
  /** `vector` from the LanceDB index, `scan` when the index was unavailable and active memories were compared directly. */
  source: 'index' | 'scan'
  results: { memory_id: string; statement: string; score: number; version: number; updated_at: string; strength: number }[]
}

export interface HistoryEntry {
  version: number
  memory_id: string
  statement: string
  created_at: string
  updated_at: string
  parent_id: string | null
  change_summary: string
  status: MemoryStatus
}

export interface HistoryResponse {
  success: true
  group_id: string
  memory_id: string
  current_version: number
  /** Oldest first. */
  history: HistoryEntry[]
}

export interface ChangeView {
  timestamp: string
  action: ChangeAction
  memory_id: string
  previous_id: string | null
  old_statement: string
  new_statement: string
  change_reason: string
  version: number
}

export interface ChangesResponse {
  success: true
  group_id: string
  period: string
  changes: ChangeView[]
}

/** Result of delete, restore and set strength. */
export interface ManualResponse {
  success: true
  group_id: string
  memory: MemoryView
}

/** A request the caller got wrong (unknown memory, bad parameter, wrong state); HTTP 400/404/409. */
export class GroupMemoryError extends Error {
  constructor(
    message: string,
    readonly code: 'bad-request' | 'not-found' | 'unknown-group' | 'conflict',
  ) {
    super(message)
    this.name = 'GroupMemoryError'
  }
}
