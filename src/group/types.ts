/**
 * Group memory (design §6): per-group statements that an LLM keeps, updates, deletes or creates from
 * the group's new messages. Types shared by the Koishi-free core (`src/group/*`), the store ports
 * (`store.ts`) and the Koishi stores (`koishi-store.ts`).
 */

import type { GroupRef } from '../scope'

export type { GroupRef }

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

/** One change to a group's memories (design §6.2). */
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
  /** Who made the change when it was not the model on its own: the approver of a reviewed proposal (`platform:userId`). */
  actor?: string
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

/**
 * One message an evolution run read (table `memory_group_source`): what the run wrote (versions,
 * change-log rows, review proposals and the approvals of those) is drawn from its messages.
 */
export interface GroupSourceRow {
  /** `<runId>.<n>`, `n` counting the run's messages oldest first: `<runId>.0` exists for every run that recorded its sources. */
  id: string
  runId: string
  platform: string
  guildId: string
  /** The message's row id (`memory_message.id`). */
  messageId: string
  /** When the message was said. */
  createdAt: Date
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

// ── the response shapes of design §6.6 (snake_case, JSON-ready) ─────────────────────

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

/** What went wrong with the model's answer, beyond design §6.6's shape. */
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

/** `queued`: the group is moderated (`review` mode) and the plan's operations wait in its review queue. */
export type EvolutionStatus = 'evolved' | 'queued' | 'no-new-messages' | 'busy' | 'no-llm' | 'budget-spent' | 'failed'

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
  /** In `review` mode: the proposals queued (their ids), and those left out as repeats of proposals already waiting. */
  review?: { queued: number; duplicates: number; ids: string[] }
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
  /** Who approved the change (a reviewed proposal), else null. */
  actor: string | null
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

// ── moderated evolution (review mode) ───────────────────────────────────────

/** `auto`: an evolution applies its plan; `review`: its operations wait for an admin in the review queue. */
export type EvolutionMode = 'auto' | 'review'

/**
 * `pending` waits for a decision; `approved` was applied; `rejected` was turned down; `expired` waited
 * longer than the expiry; `stale` can no longer apply (its memory was deleted since, or its statement
 * exists already).
 */
export type ReviewStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'stale'

/** One proposed operation of a moderated evolution (table `memory_group_review`). */
export interface ReviewRow {
  /** Short random id, as long as a memory id (what the commands take). */
  id: string
  platform: string
  guildId: string
  /** The evolution run that proposed it, and its place in that run's plan. */
  runId: string
  opIndex: number
  action: 'update' | 'create' | 'delete'
  /** The memory version an update or delete was proposed for; `''` for a create. */
  targetId: string
  /** That version's number and statement when the plan was made (0 and `''` for a create). */
  targetVersion: number
  oldStatement: string
  /** The proposed statement; `''` for a delete. */
  statement: string
  reason: string
  /** The model's tags and strength, when it gave them. */
  extras: { tags?: string[]; strength?: number }
  /** The id the approved version gets (fixed in advance, so an interrupted approval finishes without a second version). */
  newId: string
  status: ReviewStatus
  createdAt: Date
  /** When and by whom it was decided (`platform:userId`, or `expiry`); epoch and `''` while pending. */
  decidedAt: Date
  decidedBy: string
  /** A rejection's reason, or why the proposal is stale or expired. */
  note: string
  /** The statement applied (the admin's own text when they edited it); `''` unless approved. */
  appliedStatement: string
  /** The memory version the approval wrote (or deleted). */
  memoryId: string
}

/** Per-group settings (table `memory_group_setting`). */
export interface GroupSettingRow {
  /** `platform:guildId`. */
  id: string
  platform: string
  guildId: string
  /** `''`: the console's `group.mode`. */
  mode: EvolutionMode | ''
  updatedAt: Date
  updatedBy: string
}

/** A proposal as the API shows it. */
export interface ReviewView {
  review_id: string
  group_id: string
  run_id: string
  action: ReviewRow['action']
  /** The memory an update or delete targets; null for a create. */
  memory_id: string | null
  /** Its version and statement when the plan was made. */
  old_version: number | null
  old_statement: string
  statement: string
  reason: string
  status: ReviewStatus
  created_at: string
  /** When a pending proposal expires. */
  expires_at: string
  decided_at: string | null
  decided_by: string | null
  note: string
  applied_statement: string
  /** The version the approval wrote (or deleted). */
  applied_memory_id: string | null
}

export interface ReviewQueueResponse {
  success: true
  group_id: string
  mode: EvolutionMode
  /** Pending proposals, oldest first. */
  reviews: ReviewView[]
}

export interface ReviewDecision {
  success: true
  group_id: string
  review: ReviewView
  /** What an approval changed. */
  change?: EvolutionChange
}

/** Why a decision on a proposal cannot be made; `kind` names the locale text, `params` fill it. */
export type ReviewProblem =
  /** No proposal has this id. */
  | 'unknown'
  /** It belongs to another group than the one named. */
  | 'other-group'
  /** It was decided already (`params[1]`: its status). */
  | 'decided'
  /** It waited longer than the expiry. */
  | 'expired'
  /** Its memory was deleted since, or its statement exists already: it was closed as stale. */
  | 'stale'
  /** Its memory changed since the plan (`params[1]`, `params[2]`: the current version's id and statement). */
  | 'changed'
  /** A delete was given a text, or the text is empty or too long. */
  | 'bad-text'
  /** Another instance holds the group's lease (it is evolving it). */
  | 'busy'

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

/** A decision the queue refused; its `code` maps to HTTP as any `GroupMemoryError`'s does. */
export class ReviewError extends GroupMemoryError {
  constructor(
    readonly problem: ReviewProblem,
    readonly params: string[],
    message: string,
  ) {
    super(message, problem === 'unknown' || problem === 'other-group' ? 'not-found' : problem === 'bad-text' ? 'bad-request' : 'conflict')
  }
}
