import type { Counters, Logger } from '../core/observability'
import { cleanText } from '../text/clean'
import type { EvolutionPlan, PlannedOp } from './apply-plan'
import { applyPlan, changeId } from './apply-plan'
import { checkGroup, groupId, sameGroup } from './group-id'
import type { GroupIndex } from './group-index'
import { sameText } from './ops'
import type {
  EvolutionMode,
  GroupMemoryRow,
  GroupRef,
  ReviewDecision,
  ReviewQueueResponse,
  ReviewRow,
  ReviewStatus,
  ReviewView,
} from './types'
import type { GroupMemoryStore, ReviewStore } from './store'
import { GroupMemoryError, ReviewError } from './types'

/**
 * Moderated group memory (`review` mode): an evolution of a moderated group queues the operations of
 * its plan (update, create, delete; a keep changes nothing and is never queued) instead of applying
 * them, and an admin approves (as proposed, or with their own text), rejects, or lets them expire.
 *
 * - Queuing moves the group's watermark past the messages the plan was made from, as applying does:
 *   the next evolution reads only newer messages, and what the older ones taught waits in the queue.
 *   A plan is written down (the lease's `pending`) before its proposals are stored, with every
 *   proposal's id fixed in it, so a run interrupted half-way queues the same proposals, once.
 * - An approval applies its one operation through `applyPlan`, as an automatic evolution does
 *   (a new version, the change log naming the approver as `actor`), holding the group as an evolution
 *   does, so the two never interleave. An update or delete whose memory has changed since the plan
 *   (a newer evolution or another approval wrote a new version) is refused as `changed`, because it
 *   was written against the older text; approving it with one's own text applies that text onto the
 *   current version. An operation that can no longer apply at all (its memory was deleted since, or
 *   the statement exists already) is closed as `stale`.
 * - A rejection records who rejected it and why on the proposal; nothing else changes.
 * - Proposals older than the expiry are closed as `expired` by the hourly timer (logged, with counts
 *   per group), and refused as expired when someone tries to decide one the timer has not reached yet.
 */

export interface ReviewOptions {
  /** The mode of groups with no setting of their own (`group.mode`). */
  mode: EvolutionMode
  /** How long a proposal waits for a decision (`group.reviewExpiryHours`). */
  expiryMs: number
}

export const DEFAULT_REVIEW_OPTIONS: ReviewOptions = { mode: 'auto', expiryMs: 72 * 3_600_000 }

export interface ReviewDeps {
  store: GroupMemoryStore
  reviews: ReviewStore
  index?: GroupIndex
  counters: Counters
  logger: Logger
  now: () => Date
  /**
   * Runs `task` holding the group as an evolution does (this process's lock, the lease between
   * instances); `{ held: false }` when another instance holds the lease.
   */
  exclusive<T>(group: GroupRef, task: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }>
  options?: Partial<ReviewOptions>
}

export const MODES: EvolutionMode[] = ['auto', 'review']
/** Most pending proposals of one group listed (and compared against when queuing). */
export const QUEUE_MAX = 200
/** Longest statement an admin may write when approving. */
const MAX_STATEMENT = 1000
const MAX_NOTE = 1000
/** Most proposals expired per batch. */
const EXPIRE_BATCH = 500
/** Longest chain followed to a memory's current version. */
const CHAIN_MAX = 1000
const EPOCH = new Date(0)

const hours = (ms: number) => String(Math.round((ms / 3_600_000) * 10) / 10)

export class GroupReview {
  readonly options: ReviewOptions

  constructor(private deps: ReviewDeps) {
    this.options = { ...DEFAULT_REVIEW_OPTIONS, ...deps.options }
  }

  /** The group's own mode, else the configured one. */
  async modeOf(group: GroupRef): Promise<EvolutionMode> {
    const setting = await this.deps.reviews.getSetting(checkGroup(group))
    return setting?.mode || this.options.mode
  }

  /** Sets the group's mode (it then no longer follows `group.mode`). Proposals already queued stay. */
  async setMode(group: GroupRef, mode: EvolutionMode, by = ''): Promise<EvolutionMode> {
    group = checkGroup(group)
    if (!MODES.includes(mode)) throw new GroupMemoryError(`the mode is ${MODES.join(' or ')}`, 'bad-request')
    await this.deps.reviews.putSetting({
      id: groupId(group),
      platform: group.platform,
      guildId: group.guildId,
      mode,
      updatedAt: this.deps.now(),
      updatedBy: typeof by === 'string' ? by.slice(0, 255) : '',
    })
    this.deps.logger.info('group %s: evolution mode set to %s%s', groupId(group), mode, by ? ` by ${by}` : '')
    return mode
  }

  /**
   * Stores the operations of a review plan as pending proposals (those already stored are left as
   * they are: a replay never reopens a decided one). An operation that repeats a proposal still
   * waiting from an earlier run (same action, memory and statement) is left out and counted.
   */
  async queue(plan: EvolutionPlan): Promise<{ queued: number; duplicates: number; ids: string[] }> {
    const { reviews } = this.deps
    const group = { platform: plan.platform, guildId: plan.guildId }
    const ops = plan.ops.filter((op): op is PlannedOp & { reviewId: string } => Boolean(op.reviewId))
    if (!ops.length) return { queued: 0, duplicates: 0, ids: [] }
    const stored = new Set((await reviews.getReviews(ops.map((op) => op.reviewId))).map((row) => row.id))
    const waiting = (await reviews.pendingReviews(group, QUEUE_MAX)).filter((row) => row.runId !== plan.runId)
    const rows: ReviewRow[] = []
    const ids: string[] = []
    let duplicates = 0
    for (const op of ops) {
      if (stored.has(op.reviewId)) {
        ids.push(op.reviewId)
        continue
      }
      const repeat = waiting.some((row) => row.action === op.action && row.targetId === op.oldId && sameText(row.statement, op.statement))
      if (repeat) {
        duplicates++
        continue
      }
      ids.push(op.reviewId)
      rows.push({
        id: op.reviewId,
        platform: plan.platform,
        guildId: plan.guildId,
        runId: plan.runId,
        opIndex: op.index,
        action: op.action,
        targetId: op.oldId,
        targetVersion: op.oldVersion ?? 0,
        oldStatement: op.oldStatement ?? '',
        statement: op.statement,
        reason: op.reason,
        extras: {
          ...(op.tags ? { tags: op.tags } : {}),
          ...(op.strength !== undefined ? { strength: op.strength } : {}),
        },
        newId: op.newId,
        status: 'pending',
        createdAt: new Date(plan.createdAt),
        decidedAt: EPOCH,
        decidedBy: '',
        note: '',
        appliedStatement: '',
        memoryId: '',
      })
    }
    await reviews.addReviews(rows)
    if (rows.length) this.deps.counters.inc('group.review-queued', rows.length)
    if (duplicates) this.deps.counters.inc('group.review-duplicates', duplicates)
    return { queued: ids.length, duplicates, ids }
  }

  /** The group's mode and its pending proposals, oldest first (those past the expiry are left out). */
  async pending(group: GroupRef): Promise<ReviewQueueResponse> {
    group = checkGroup(group)
    const now = this.deps.now()
    const [mode, rows] = await Promise.all([this.modeOf(group), this.deps.reviews.pendingReviews(group, QUEUE_MAX)])
    return {
      success: true,
      group_id: groupId(group),
      mode,
      reviews: rows.filter((row) => !this.overdue(row, now)).map((row) => this.view(row)),
    }
  }

  /**
   * Applies a pending proposal, as proposed or (`statement`) with the admin's own text, through the
   * same path as an automatic evolution; `by` is recorded on the proposal and in the change log.
   * With `group`, a proposal of another group is refused. See the file's comment for a memory that
   * changed since the plan.
   */
  async approve(id: string, options: { by: string; statement?: string; group?: GroupRef }): Promise<ReviewDecision> {
    const by = actorOf(options.by)
    const text = options.statement === undefined || options.statement === null ? undefined : checkStatement(id, options.statement)
    const found = await this.find(id, options.group)
    const group = { platform: found.platform, guildId: found.guildId }
    if (text !== undefined && found.action === 'delete')
      throw new ReviewError('bad-text', [found.id], `proposal ${found.id} deletes a memory; it takes no text`)
    return this.holding(group, found.id, async () => {
      const { store, index, counters, logger } = this.deps
      const now = this.deps.now()
      const row = await this.open(found.id, now)

      // an approval interrupted after it changed the memory: finish recording it
      const [done] = await store.getChanges([changeId(row.id, 0)])
      if (done) {
        const applied = { appliedStatement: done.newStatement, memoryId: done.memoryId }
        return this.decided(row, { status: 'approved', decidedAt: now, decidedBy: by, note: '', ...applied })
      }

      const statement = text ?? row.statement
      let onto: GroupMemoryRow | undefined
      if (row.action === 'create') {
        const same = (await store.activeMemories(group, QUEUE_MAX * 5)).find((memory) => sameText(memory.statement, statement))
        if (same) await this.closeStale(row, now, `memory ${same.id} says this already`, same.id)
      } else {
        const [target] = await store.getMemories([row.targetId])
        if (!target || !sameGroup(target, group)) await this.closeStale(row, now, `memory ${row.targetId} no longer exists`, row.targetId)
        const head = await this.head(target!, group)
        if (head.status !== 'active') await this.closeStale(row, now, `memory ${head.id} was deleted since`, head.id)
        if (head.id !== target!.id && !(row.action === 'update' && text !== undefined)) {
          throw new ReviewError(
            'changed',
            [row.id, head.id, head.statement],
            `memory ${target!.id} changed since this proposal; its current version ${head.id} says "${head.statement}"`,
          )
        }
        if (row.action === 'update' && sameText(head.statement, statement))
          await this.closeStale(row, now, `memory ${head.id} says this already`, head.id)
        onto = head
      }

      const plan: EvolutionPlan = {
        runId: row.id,
        platform: group.platform,
        guildId: group.guildId,
        createdAt: now.toISOString(),
        watermark: now.toISOString(),
        kept: 0,
        input: { memories: 0, messages: 0 },
        issues: { invalid_lines: 0, ignored_lines: 0, repaired_lines: 0, rejected_ops: 0, stale_ops: 0 },
        actor: by,
        ops: [
          {
            index: 0,
            action: row.action,
            oldId: onto?.id ?? '',
            newId: row.action === 'delete' ? '' : row.newId,
            statement: row.action === 'delete' ? '' : statement,
            reason: row.reason,
            tags: row.extras?.tags,
            strength: row.extras?.strength,
          },
        ],
      }
      const outcome = await applyPlan(store, plan, now)
      if (outcome.stale || !outcome.changes.length) {
        // changed between the check and the write (another instance without the lease: a manual edit)
        throw new ReviewError('changed', [row.id, onto?.id ?? '', onto?.statement ?? ''], `memory ${onto?.id} changed while approving`)
      }
      await index?.sync(outcome.upserts, outcome.deletes)
      counters.inc('group.review-approved')
      logger.info(
        'group %s: proposal %s (%s) approved by %s%s',
        groupId(group),
        row.id,
        row.action,
        by,
        text !== undefined ? ', edited' : '',
      )
      const decision = await this.decided(row, {
        status: 'approved',
        decidedAt: now,
        decidedBy: by,
        note: '',
        appliedStatement: row.action === 'delete' ? '' : statement,
        memoryId: row.action === 'delete' ? onto!.id : row.newId,
      })
      return { ...decision, change: outcome.changes[0] }
    })
  }

  /** Turns a pending proposal down; `by` and `reason` are kept on it. Nothing else changes. */
  async reject(id: string, options: { by: string; reason?: string; group?: GroupRef }): Promise<ReviewDecision> {
    const by = actorOf(options.by)
    const note = typeof options.reason === 'string' ? cleanText(options.reason.trim()).slice(0, MAX_NOTE) : ''
    const found = await this.find(id, options.group)
    const group = { platform: found.platform, guildId: found.guildId }
    return this.holding(group, found.id, async () => {
      const now = this.deps.now()
      const row = await this.open(found.id, now)
      this.deps.counters.inc('group.review-rejected')
      this.deps.logger.info('group %s: proposal %s (%s) rejected by %s', groupId(group), row.id, row.action, by)
      return this.decided(row, { status: 'rejected', decidedAt: now, decidedBy: by, note, appliedStatement: '', memoryId: '' })
    })
  }

  /**
   * Closes every pending proposal older than the expiry as `expired`, logging how many per group.
   * Returns how many it closed.
   */
  async expire(): Promise<number> {
    const { reviews, counters, logger } = this.deps
    const now = this.deps.now()
    const before = new Date(now.getTime() - this.options.expiryMs)
    const perGroup = new Map<string, number>()
    let total = 0
    for (;;) {
      const rows = await reviews.overdueReviews(before, EXPIRE_BATCH)
      let closed = 0
      for (const row of rows) {
        if (await reviews.decideReview(row.id, this.expiredPatch(now))) {
          closed++
          perGroup.set(groupId(row), (perGroup.get(groupId(row)) ?? 0) + 1)
        }
      }
      total += closed
      if (rows.length < EXPIRE_BATCH || !closed) break
    }
    for (const [group, count] of perGroup) {
      logger.info('group %s: %d proposals expired unreviewed after %s hours', group, count, hours(this.options.expiryMs))
    }
    if (total) counters.inc('group.review-expired', total)
    return total
  }

  view(row: ReviewRow): ReviewView {
    const decided = row.status !== 'pending'
    return {
      review_id: row.id,
      group_id: groupId(row),
      run_id: row.runId,
      action: row.action,
      memory_id: row.targetId || null,
      old_version: row.targetId ? row.targetVersion : null,
      old_statement: row.oldStatement,
      statement: row.statement,
      reason: row.reason,
      status: row.status,
      created_at: row.createdAt.toISOString(),
      expires_at: new Date(row.createdAt.getTime() + this.options.expiryMs).toISOString(),
      decided_at: decided ? row.decidedAt.toISOString() : null,
      decided_by: decided ? row.decidedBy : null,
      note: row.note,
      applied_statement: row.appliedStatement,
      applied_memory_id: row.memoryId || null,
    }
  }

  private overdue(row: ReviewRow, now: Date) {
    return row.createdAt.getTime() + this.options.expiryMs <= now.getTime()
  }

  private expiredPatch(now: Date) {
    return {
      status: 'expired' as const,
      decidedAt: now,
      decidedBy: 'expiry',
      note: `not reviewed within ${hours(this.options.expiryMs)} hours`,
    }
  }

  /** The proposal `id`, of `group` when one is named. */
  private async find(id: string, group?: GroupRef): Promise<ReviewRow> {
    const key = typeof id === 'string' ? id.trim() : ''
    const [row] = key && key.length <= 31 ? await this.deps.reviews.getReviews([key]) : []
    if (!row) throw new ReviewError('unknown', [key.slice(0, 40)], `no proposal ${key.slice(0, 40)}`)
    if (group && !sameGroup(row, checkGroup(group)))
      throw new ReviewError('other-group', [row.id], `proposal ${row.id} belongs to another group than ${groupId(group)}`)
    return row
  }

  /** The proposal read again under the group's lock, refused unless it can still be decided. */
  private async open(id: string, now: Date): Promise<ReviewRow> {
    const [row] = await this.deps.reviews.getReviews([id])
    if (!row) throw new ReviewError('unknown', [id], `no proposal ${id}`)
    if (row.status !== 'pending') throw new ReviewError('decided', [row.id, row.status], `proposal ${row.id} is ${row.status} already`)
    if (this.overdue(row, now)) {
      if (await this.deps.reviews.decideReview(row.id, this.expiredPatch(now))) this.deps.counters.inc('group.review-expired')
      throw new ReviewError('expired', [row.id, hours(this.options.expiryMs)], `proposal ${row.id} expired`)
    }
    return row
  }

  /** Closes a proposal that can no longer apply, and refuses the decision with the reason. */
  private async closeStale(row: ReviewRow, now: Date, reason: string, memoryId: string): Promise<never> {
    await this.deps.reviews.decideReview(row.id, { status: 'stale', decidedAt: now, decidedBy: '', note: reason, memoryId })
    this.deps.counters.inc('group.review-stale')
    throw new ReviewError('stale', [row.id, reason], `proposal ${row.id} can no longer apply: ${reason}`)
  }

  private async decided(row: ReviewRow, patch: Pick<ReviewRow, ReviewPatchKey>): Promise<ReviewDecision> {
    if (!(await this.deps.reviews.decideReview(row.id, patch))) {
      const [now] = await this.deps.reviews.getReviews([row.id])
      const status: ReviewStatus = now?.status ?? 'pending'
      throw new ReviewError('decided', [row.id, status], `proposal ${row.id} is ${status} already`)
    }
    return { success: true, group_id: groupId(row), review: this.view({ ...row, ...patch }) }
  }

  /** The current version of the memory `row` is a version of. */
  private async head(row: GroupMemoryRow, group: GroupRef): Promise<GroupMemoryRow> {
    let head = row
    for (let steps = 0; head.supersededBy && steps < CHAIN_MAX; steps++) {
      const [next] = await this.deps.store.getMemories([head.supersededBy])
      if (!next || !sameGroup(next, group)) break
      head = next
    }
    return head
  }

  private async holding<T>(group: GroupRef, id: string, task: () => Promise<T>): Promise<T> {
    const result = await this.deps.exclusive(group, task)
    if (!result.held) throw new ReviewError('busy', [id], `group ${groupId(group)} is being evolved by another instance; try again shortly`)
    return result.value
  }
}

type ReviewPatchKey = 'status' | 'decidedAt' | 'decidedBy' | 'note' | 'appliedStatement' | 'memoryId'

function actorOf(by: unknown): string {
  const text = typeof by === 'string' ? cleanText(by.trim()).slice(0, 255) : ''
  if (!text) throw new GroupMemoryError('who decides (by) is needed', 'bad-request')
  return text
}

function checkStatement(id: string, statement: unknown): string {
  const text = typeof statement === 'string' ? cleanText(statement.trim()) : ''
  if (!text || text.length > MAX_STATEMENT)
    throw new ReviewError('bad-text', [String(id).slice(0, 40)], `the statement must be 1 to ${MAX_STATEMENT} characters`)
  return text
}
