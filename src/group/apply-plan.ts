import type { ResolvedOp } from './ops'
import type { EvolutionChange, EvolutionIssues, EvolutionStats, GroupChangeRow, GroupMemoryRow, GroupRef } from './types'
import type { GroupMemoryStore } from './store'

/**
 * Applying an evolution. The operations are first written down as a plan (in the group's lease row)
 * with every id they will create, then applied one by one; each step is idempotent and an operation
 * is finished when its change-log row `<runId>.<index>` exists. A run interrupted anywhere (error or
 * crash) is completed by replaying the same plan: it finds the rows it already wrote under the same
 * ids, so no version is ever written twice.
 */

export interface PlannedOp {
  index: number
  action: 'update' | 'create' | 'delete'
  /** The row updated or deleted; `''` for create. */
  oldId: string
  /** The row an update or create writes; `''` for delete. */
  newId: string
  /** The new statement; `''` for delete. */
  statement: string
  reason: string
  tags?: string[]
  strength?: number
  /** The statement and version of the row updated or deleted, when the plan was made (what a reviewer compares). */
  oldStatement?: string
  oldVersion?: number
  /** In a plan for review: the id of the proposal this operation becomes. */
  reviewId?: string
}

export interface EvolutionPlan {
  runId: string
  platform: string
  guildId: string
  /** ISO time of the run. */
  createdAt: string
  /** ISO `createdAt` of the newest message given to the model: the group's watermark once applied. */
  watermark: string
  /** Shown memories no operation touches. */
  kept: number
  input: { memories: number; messages: number }
  issues: EvolutionIssues
  ops: PlannedOp[]
  /** The operations are queued for review instead of applied (the group's mode when the plan was made). */
  review?: boolean
  /** Who the change-log rows name as having made the changes (an approver); left out: the model. */
  actor?: string
}

export interface ApplyOutcome {
  stats: EvolutionStats
  changes: EvolutionChange[]
  /** Operations skipped because someone else changed their memory first. */
  stale: number
  /** Rows to add to the vector index (new versions and created memories). */
  upserts: GroupMemoryRow[]
  /** Rows to remove from the vector index (replaced or deleted). */
  deletes: string[]
}

/** Strength of a new memory, and how much an update reinforces one, when the model gives none. */
export const DEFAULT_STRENGTH = 0.5
export const REINFORCE = 0.1

export function makePlan(args: {
  runId: string
  group: GroupRef
  now: Date
  watermark: Date
  kept: number
  input: EvolutionPlan['input']
  issues: EvolutionIssues
  ops: ResolvedOp[]
  newId: () => string
  /** Plan for the review queue: every operation also gets the id of its proposal. */
  review?: boolean
}): EvolutionPlan {
  const forReview = (op: PlannedOp): PlannedOp => (args.review ? { ...op, reviewId: args.newId() } : op)
  return {
    runId: args.runId,
    platform: args.group.platform,
    guildId: args.group.guildId,
    createdAt: args.now.toISOString(),
    watermark: args.watermark.toISOString(),
    kept: args.kept,
    input: args.input,
    issues: args.issues,
    ...(args.review ? { review: true } : {}),
    ops: args.ops.map((op, index): PlannedOp => {
      const old = op.action === 'create' || !args.review ? {} : { oldStatement: op.old.statement, oldVersion: op.old.version }
      if (op.action === 'delete')
        return forReview({ index, action: 'delete', oldId: op.old.id, newId: '', statement: '', reason: op.reason, ...old })
      return forReview({
        index,
        action: op.action,
        oldId: op.action === 'update' ? op.old.id : '',
        newId: args.newId(),
        statement: op.statement,
        reason: op.reason,
        tags: op.tags,
        strength: op.strength,
        ...old,
      })
    }),
  }
}

export function changeId(runId: string, index: number) {
  return `${runId}.${index}`
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))
const round = (value: number) => Math.round(value * 1000) / 1000

function toChange(log: GroupChangeRow, op: PlannedOp): EvolutionChange {
  if (op.action === 'update') {
    return {
      action: 'update',
      old_id: op.oldId,
      new_id: op.newId,
      old_statement: log.oldStatement,
      new_statement: log.newStatement,
      change_reason: log.reason,
      version: log.version,
    }
  }
  if (op.action === 'create')
    return { action: 'create', new_id: op.newId, statement: log.newStatement, change_reason: log.reason, version: log.version }
  return { action: 'delete', old_id: op.oldId, old_statement: log.oldStatement, change_reason: log.reason, version: log.version }
}

/** What the steps of one `applyPlan` share: the plan, the rows read or written so far, and the outcome. */
interface PlanRun {
  store: GroupMemoryStore
  plan: EvolutionPlan
  now: Date
  group: GroupRef
  rows: Map<string, GroupMemoryRow>
  outcome: ApplyOutcome
}

/**
 * Applies (or finishes applying) a plan. Order within an update: the new version is written, then
 * the old one is marked replaced, then the log row is written; a crash between steps leaves a state
 * the replay recognises (the old row already points at the planned new id, or is still the head).
 */
export async function applyPlan(store: GroupMemoryStore, plan: EvolutionPlan, now: Date): Promise<ApplyOutcome> {
  const { runId } = plan
  const group = { platform: plan.platform, guildId: plan.guildId }
  const outcome: ApplyOutcome = {
    stats: { kept: plan.kept, updated: 0, created: 0, deleted: 0 },
    changes: [],
    stale: 0,
    upserts: [],
    deletes: [],
  }
  if (!plan.ops.length) return outcome

  const logs = new Map((await store.getChanges(plan.ops.map((op) => changeId(runId, op.index)))).map((row) => [row.id, row]))
  const ids = plan.ops.flatMap((op) => [op.oldId, op.newId]).filter(Boolean)
  const rows = new Map((await store.getMemories(ids)).map((row) => [row.id, row]))
  const run: PlanRun = { store, plan, now, group, rows, outcome }

  for (const op of plan.ops) {
    const done = logs.get(changeId(runId, op.index))
    if (done) record(run, op, done)
    else if (op.action === 'create') await applyCreate(run, op)
    else if (op.action === 'update') await applyUpdate(run, op)
    else await applyDelete(run, op)
  }
  return outcome
}

async function applyCreate(run: PlanRun, op: PlannedOp) {
  const row = await newVersion(run, op)
  await logChange(run, op, changeRow(run, op, row.id, '', row.statement, row.version))
}

async function applyUpdate(run: PlanRun, op: PlannedOp) {
  const { store, plan, now, rows } = run
  const old = oldRow(run, op)
  const mine = old && old.supersededBy === op.newId
  const head = old && old.status === 'active' && !old.supersededBy
  if (!old || (!mine && !head)) {
    run.outcome.stale++
    return
  }
  const row = await newVersion(run, op, old)
  if (!mine || old.status !== 'deprecated') {
    const patch = { status: 'deprecated' as const, supersededBy: op.newId, statusBy: plan.runId, updatedAt: now }
    await store.patchMemory(old.id, patch)
    rows.set(old.id, { ...old, ...patch })
  }
  await logChange(run, op, changeRow(run, op, row.id, old.statement, row.statement, row.version))
}

async function applyDelete(run: PlanRun, op: PlannedOp) {
  const { store, plan, now, rows } = run
  const old = oldRow(run, op)
  const head = old && old.status === 'active' && !old.supersededBy
  const mine = old && old.status === 'deprecated' && !old.supersededBy && old.statusBy === plan.runId
  if (!old || (!head && !mine)) {
    run.outcome.stale++
    return
  }
  if (head) {
    const patch = { status: 'deprecated' as const, deprecatedReason: op.reason, statusBy: plan.runId, updatedAt: now }
    await store.patchMemory(old.id, patch)
    rows.set(old.id, { ...old, ...patch })
  }
  await logChange(run, op, changeRow(run, op, old.id, old.statement, '', old.version))
}

/** The row an update or delete targets, when it belongs to the plan's group. */
function oldRow({ rows, group }: PlanRun, op: PlannedOp): GroupMemoryRow | undefined {
  const row = rows.get(op.oldId)
  return row && row.platform === group.platform && row.guildId === group.guildId ? row : undefined
}

/** The change-log row of an operation. */
function changeRow(
  { plan, group, now }: PlanRun,
  op: PlannedOp,
  memoryId: string,
  oldStatement: string,
  newStatement: string,
  version: number,
): GroupChangeRow {
  return {
    id: changeId(plan.runId, op.index),
    memoryId,
    previousId: op.action === 'update' ? op.oldId : '',
    platform: group.platform,
    guildId: group.guildId,
    action: op.action,
    oldStatement,
    newStatement,
    reason: op.reason,
    version,
    runId: plan.runId,
    ...(plan.actor ? { actor: plan.actor } : {}),
    createdAt: now,
  }
}

/** Writes an operation's change-log row, which marks it done, and records it in the outcome. */
async function logChange(run: PlanRun, op: PlannedOp, entry: GroupChangeRow) {
  await run.store.putChange(entry)
  record(run, op, entry)
}

/** The version a create or update writes (`parent`: the one it replaces), or the row an earlier attempt wrote. */
async function newVersion({ store, plan, now, group, rows }: PlanRun, op: PlannedOp, parent?: GroupMemoryRow): Promise<GroupMemoryRow> {
  const written = rows.get(op.newId)
  if (written) return written
  const row: GroupMemoryRow = {
    id: op.newId,
    platform: group.platform,
    guildId: group.guildId,
    statement: op.statement,
    version: parent ? parent.version + 1 : 1,
    parentId: parent?.id ?? '',
    supersededBy: '',
    changeSummary: op.reason,
    status: 'active',
    deprecatedReason: '',
    statusBy: plan.runId,
    tags: op.tags ?? parent?.tags ?? [],
    strength: round(clamp01(op.strength ?? (parent ? parent.strength + REINFORCE : DEFAULT_STRENGTH))),
    runId: plan.runId,
    createdAt: now,
    updatedAt: now,
  }
  await store.putMemory(row)
  rows.set(row.id, row)
  return row
}

function record({ outcome, rows }: PlanRun, op: PlannedOp, entry: GroupChangeRow) {
  outcome.changes.push(toChange(entry, op))
  if (op.action === 'delete') {
    outcome.stats.deleted++
    outcome.deletes.push(op.oldId)
    return
  }
  if (op.action === 'update') {
    outcome.stats.updated++
    outcome.deletes.push(op.oldId)
  } else outcome.stats.created++
  const row = rows.get(op.newId)
  if (row) outcome.upserts.push(row)
}
