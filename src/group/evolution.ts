import { randomBytes } from 'node:crypto'
import type { LLM } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import { BudgetSpentError, ProviderError } from '../providers/types'
import { detectLanguage } from '../text/language'
import type { ApplyOutcome, EvolutionPlan } from './apply-plan'
import { applyPlan, makePlan } from './apply-plan'
import { checkGroup, groupId } from './group-id'
import type { GroupIndex } from './group-index'
import type { GroupReview } from './review'
import { KeyedLock } from '../core/keyed-lock'
import type { ParsedAnswer, Resolution } from './ops'
import { parseEvolutionAnswer, resolveOps } from './ops'
import type { EvolutionPrompts } from './prompts'
import { DEFAULT_EVOLUTION_PROMPTS } from './prompts'
import type { EvolutionIssues, EvolutionResult, EvolutionStats, EvolutionStatus, GroupMemoryRow, GroupMessage, GroupRef } from './types'
import type { GroupMemoryStore, GroupSources } from './store'
import { GroupMemoryError } from './types'

export interface EvolutionOptions {
  /** Active memories shown to the model (strongest first). Default 50. */
  maxMemories: number
  /** Newest messages given to the model. Default 200. */
  maxMessages: number
  /** Days of messages when the caller names none. Default 1. */
  defaultDays: number
  /** How long a lease holds before another instance may take the group over. Default 10 min. */
  leaseMs: number
  /** Longest message text given to the model; longer ones are cut. Default 500. */
  maxMessageChars: number
  /** Include the bot's own replies in the discussion. Default false: the group's memory is about its members. */
  includeBotMessages: boolean
  temperature: number
}

export const DEFAULT_EVOLUTION_OPTIONS: EvolutionOptions = {
  maxMemories: 50,
  maxMessages: 200,
  defaultDays: 1,
  leaseMs: 10 * 60_000,
  maxMessageChars: 500,
  includeBotMessages: false,
  temperature: 0.2,
}

export interface EvolverDeps {
  store: GroupMemoryStore
  /** The LanceDB side; left out, nothing is indexed. */
  index?: GroupIndex
  /** Where a run records the messages it read before its plan changes anything; left out, nothing is recorded. */
  sources?: GroupSources
  /** The review queue: a group in `review` mode queues its plan there. Left out, every group is `auto`. */
  review?: Pick<GroupReview, 'modeOf' | 'queue'>
  /** The chat model, looked up on every run (it may be configured later); undefined: evolution is unavailable. */
  llm: () => LLM | undefined
  /** Charges a run's model call to the group's budget of the day (past it, the call is refused and the run fails). */
  charge?<T>(where: { platform: string; guildId: string; userId: string }, work: () => Promise<T>): Promise<T>
  prompts?: () => EvolutionPrompts
  counters: Counters
  logger: Logger
  now?: () => Date
  /** Ids of new rows and of runs. Default: 10 random hex characters. */
  newId?: () => string
  /** Names this process in lease rows. Default: random. */
  instanceId?: string
  options?: Partial<EvolutionOptions>
}

const EPOCH = new Date(0)
const DAY = 86_400_000
/** Longest `days` accepted. */
export const MAX_DAYS = 3650

export const newGroupId = () => randomBytes(5).toString('hex')

/** A stored plan, or undefined when it cannot be read as one. */
function readPlan(text: string): EvolutionPlan | undefined {
  try {
    const plan = JSON.parse(text) as EvolutionPlan
    return plan && typeof plan.runId === 'string' && Array.isArray(plan.ops) && typeof plan.watermark === 'string' ? plan : undefined
  } catch {
    return undefined
  }
}

const emptyStats = (): EvolutionStats => ({ kept: 0, updated: 0, created: 0, deleted: 0 })
const emptyIssues = (): EvolutionIssues => ({ invalid_lines: 0, ignored_lines: 0, repaired_lines: 0, rejected_ops: 0, stale_ops: 0 })
const day = (date: Date) => date.toISOString().slice(0, 10)

/** The user message: design §6.3's JSON of existing memories (integer ids) and the new discussion. */
export function evolutionInput(memories: GroupMemoryRow[], messages: GroupMessage[], maxChars: number): string {
  const cut = (text: string) => {
    const flat = text.replace(/\s*\n\s*/g, ' ').trim()
    return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat
  }
  return JSON.stringify(
    {
      existing_memories: memories.map((row, i) => ({
        id: i + 1,
        statement: row.statement,
        version: row.version,
        created_at: day(row.createdAt),
        updated_at: day(row.updatedAt),
      })),
      new_discussions: messages.map((message) => `${cut(message.userName || message.userId)}: ${cut(message.content)}`),
    },
    null,
    1,
  )
}

/** Checks the `days` of a request. */
export function checkDays(days: unknown, fallback: number): number {
  if (days === undefined || days === null) return fallback
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0 || days > MAX_DAYS) {
    throw new GroupMemoryError(`days must be a number above 0 and at most ${MAX_DAYS}`, 'bad-request')
  }
  return days
}

/**
 * Group memory evolution (design §6): old memories + new discussion → one LLM call → keep / update /
 * delete / create. One run per group at a time, in this process (a keyed lock: a second call waits
 * and then usually finds no new messages) and across processes sharing the database (a lease row
 * with an expiry; a process that finds the lease held answers `busy`). A run first finishes any
 * interrupted earlier run of the group (see `apply.ts`).
 */
export class GroupEvolver {
  readonly options: EvolutionOptions
  private readonly lock = new KeyedLock()
  private readonly now: () => Date
  private readonly newId: () => string
  private readonly instanceId: string

  constructor(private deps: EvolverDeps) {
    this.options = { ...DEFAULT_EVOLUTION_OPTIONS, ...deps.options }
    this.now = deps.now ?? (() => new Date())
    this.newId = deps.newId ?? newGroupId
    this.instanceId = deps.instanceId ?? randomBytes(4).toString('hex')
  }

  async evolve(group: GroupRef, options: { days?: number } = {}): Promise<EvolutionResult> {
    const checked = checkGroup(group)
    const days = checkDays(options.days, this.options.defaultDays)
    return this.lock.run(groupId(checked), () => this.run(checked, days))
  }

  /** Whether this process is evolving (or about to evolve) the group. */
  running(group: GroupRef): boolean {
    return this.lock.held(groupId(group))
  }

  /**
   * Runs `task` holding the group as an evolution does: after this process's evolution of it, under
   * the group's lease (another instance evolving it: `{ held: false }`); `task` is given the lease's
   * owner, to change the lease row with. Review decisions and forgets use it.
   */
  exclusive<T>(group: GroupRef, task: (owner: string) => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
    const checked = checkGroup(group)
    return this.lock.run(groupId(checked), async () => {
      const { store, logger } = this.deps
      const now = this.now()
      const owner = `${this.instanceId}:${this.newId()}`
      if (!(await store.acquireLease(checked, owner, now, new Date(now.getTime() + this.options.leaseMs)))) return { held: false }
      try {
        return { held: true, value: await task(owner) }
      } finally {
        await store.patchLease(checked, owner, { owner: '', expiresAt: EPOCH }).catch((error: Error) => {
          logger.warn('could not release the lease of %s (it expires by itself): %s', groupId(checked), error.message)
        })
      }
    })
  }

  private result(group: GroupRef, now: Date, status: EvolutionStatus, message?: string): EvolutionResult {
    return {
      success: status === 'evolved' || status === 'queued' || status === 'no-new-messages',
      group_id: groupId(group),
      evolution_time: now.toISOString(),
      status,
      ...(message ? { message } : {}),
      stats: emptyStats(),
      changes: [],
      issues: emptyIssues(),
      input: { memories: 0, messages: 0 },
    }
  }

  private async run(group: GroupRef, days: number): Promise<EvolutionResult> {
    const { store, counters, logger } = this.deps
    const now = this.now()
    const id = groupId(group)
    const owner = `${this.instanceId}:${this.newId()}`
    if (!(await store.acquireLease(group, owner, now, new Date(now.getTime() + this.options.leaseMs)))) {
      counters.inc('group.busy')
      logger.debug('group %s is being evolved by another instance', id)
      return this.result(group, now, 'busy', 'another instance is evolving this group')
    }
    let result: EvolutionResult
    try {
      result = await this.evolveHeld(group, days, now, owner)
    } catch (error) {
      // the group's model calls of the day are spent: it evolves on a day with calls left, nothing failed
      if (error instanceof BudgetSpentError) result = this.result(group, now, 'budget-spent', error.message)
      else result = this.failed(group, now, error as Error)
    }
    try {
      await store.patchLease(group, owner, { owner: '', expiresAt: EPOCH })
    } catch (error) {
      logger.warn('could not release the evolution lease of %s (it expires by itself): %s', id, (error as Error).message)
    }
    return result
  }

  private failed(group: GroupRef, now: Date, error: Error): EvolutionResult {
    const { counters, logger } = this.deps
    counters.inc('group.evolve-failed')
    const status = error instanceof ProviderError && error.status !== undefined ? ` (HTTP ${error.status})` : ''
    logger.warn('group memory evolution of %s failed%s: %s', groupId(group), status, error.message)
    return this.result(group, now, 'failed', error.message)
  }

  private async evolveHeld(group: GroupRef, days: number, now: Date, owner: string): Promise<EvolutionResult> {
    const { store, counters, logger } = this.deps
    const id = groupId(group)
    const resumed = await this.finishInterrupted(group, now, owner)
    if (resumed === 'lost') return this.lost(group, now)
    const { watermark, repaired } = resumed

    const messages = await this.newMessages(group, days, now, watermark)
    if (!messages.length) {
      counters.inc('group.evolve-noop')
      return { ...this.result(group, now, 'no-new-messages', 'no new messages'), ...(repaired ? { repaired } : {}) }
    }
    const llm = this.deps.llm()
    if (!llm) return { ...this.result(group, now, 'no-llm', 'no LLM is configured'), ...(repaired ? { repaired } : {}) }

    const memories = await store.activeMemories(group, this.options.maxMemories)
    const ask = () => this.ask(llm, memories, messages)
    const charge = this.deps.charge
    const parsed = parseEvolutionAnswer(await (charge ? charge({ ...group, userId: '' }, ask) : ask()))
    const resolution = resolveOps(parsed.ops, memories)
    const issues = this.issuesOf(id, parsed, resolution)
    if (!parsed.ops.length && parsed.invalid.length) {
      // nothing usable: leave the watermark where it is so the next run sees these messages again
      counters.inc('group.evolve-failed')
      logger.warn("group %s: the model's answer could not be read (%d lines)", id, parsed.invalid.length)
      return {
        ...this.result(group, now, 'failed', "the model's answer could not be read"),
        issues,
        input: { memories: memories.length, messages: messages.length },
      }
    }

    const review = this.deps.review && (await this.deps.review.modeOf(group)) === 'review'
    const plan = makePlan({
      review,
      runId: this.newId(),
      group,
      now,
      watermark: messages[messages.length - 1].createdAt,
      kept: resolution.kept,
      input: { memories: memories.length, messages: messages.length },
      issues,
      ops: resolution.ops,
      newId: this.newId,
    })
    // what the plan is drawn from, recorded before it can change anything, so a forget finds it
    if (plan.ops.length) await this.deps.sources?.record(plan.runId, group, messages)
    // Written down before anything changes; refused when another instance took the lease meanwhile.
    const until = new Date(this.now().getTime() + this.options.leaseMs)
    if (!(await store.patchLease(group, owner, { pending: JSON.stringify(plan), expiresAt: until }))) return this.lost(group, now)
    const outcome = plan.review ? await this.queue(plan) : await this.apply(plan, now)
    issues.stale_ops = outcome.stale
    if (!(await store.patchLease(group, owner, { pending: '', watermark: new Date(plan.watermark), lastEvolvedAt: now }))) {
      // Another instance took the group over and replays the same plan (same ids): nothing is doubled.
      logger.info('group %s: the lease passed to another instance while applying; it completes the run', id)
    }
    return this.report(group, now, plan, outcome, issues, repaired)
  }

  /**
   * Finishes the run a crash cut off (its plan waits in the lease row) and gives the watermark to
   * evolve from; `lost` when the lease passed to another instance meanwhile.
   */
  private async finishInterrupted(
    group: GroupRef,
    now: Date,
    owner: string,
  ): Promise<{ watermark: Date; repaired?: EvolutionResult['repaired'] } | 'lost'> {
    const { store, counters, logger } = this.deps
    const id = groupId(group)
    const lease = await store.getLease(group)
    let watermark = lease?.watermark ?? EPOCH
    let repaired: EvolutionResult['repaired']

    const interrupted = lease?.pending ? readPlan(lease.pending) : undefined
    if (lease?.pending && !interrupted) {
      // unreadable (cut off by a column limit, edited by hand): dropping it beats failing forever
      counters.inc('group.plan-dropped')
      logger.warn('group %s: dropped an unreadable interrupted evolution plan', id)
      if (!(await store.patchLease(group, owner, { pending: '' }))) return 'lost'
    }
    if (interrupted) {
      // a plan made for review is queued, whatever the group's mode is now
      const outcome = interrupted.review ? await this.queue(interrupted) : await this.apply(interrupted, now)
      watermark = new Date(interrupted.watermark)
      if (!(await store.patchLease(group, owner, { pending: '', watermark, lastEvolvedAt: now }))) return 'lost'
      counters.inc('group.repaired')
      logger.info('finished the interrupted evolution %s of group %s', interrupted.runId, id)
      repaired = { run_id: interrupted.runId, stats: outcome.stats, changes: outcome.changes }
    }
    return { watermark, repaired }
  }

  /** The group's messages of the last `days` after the watermark, the newest `maxMessages`, empty ones left out. */
  private async newMessages(group: GroupRef, days: number, now: Date, watermark: Date): Promise<GroupMessage[]> {
    const roles: GroupMessage['role'][] = this.options.includeBotMessages ? ['user', 'assistant'] : ['user']
    const messages = await this.deps.store.recentMessages(group, {
      since: new Date(now.getTime() - days * DAY),
      after: watermark,
      limit: this.options.maxMessages,
      roles,
    })
    return messages.filter((message) => message.content.trim())
  }

  /** The one model call of a run, in the language of the discussion (else of the memories). */
  private async ask(llm: LLM, memories: GroupMemoryRow[], messages: GroupMessage[]): Promise<string> {
    const input = evolutionInput(memories, messages, this.options.maxMessageChars)
    const language = detectLanguage(messages.map((m) => m.content).join('\n'), detectLanguage(memories.map((m) => m.statement).join('\n')))
    const prompts = this.deps.prompts?.() ?? DEFAULT_EVOLUTION_PROMPTS
    this.deps.counters.inc('group.llm-call')
    return llm.generate(input, {
      system: prompts[language] || DEFAULT_EVOLUTION_PROMPTS[language],
      temperature: this.options.temperature,
    })
  }

  /** What was wrong with the model's answer: counted, logged, and returned for the result. */
  private issuesOf(id: string, parsed: ParsedAnswer, resolution: Resolution): EvolutionIssues {
    const { counters, logger } = this.deps
    const issues: EvolutionIssues = {
      invalid_lines: parsed.invalid.length,
      ignored_lines: parsed.ignored.length,
      repaired_lines: parsed.repaired,
      rejected_ops: resolution.rejected.length,
      stale_ops: 0,
    }
    if (parsed.invalid.length) counters.inc('group.lines-invalid', parsed.invalid.length)
    if (parsed.ignored.length) counters.inc('group.lines-ignored', parsed.ignored.length)
    if (parsed.repaired) counters.inc('group.lines-repaired', parsed.repaired)
    if (resolution.rejected.length) counters.inc('group.ops-rejected', resolution.rejected.length)
    for (const bad of parsed.invalid) logger.debug('group %s: skipped an unreadable line (%s): %s', id, bad.reason, bad.line.slice(0, 200))
    for (const line of parsed.ignored) logger.debug('group %s: skipped a line that is not JSON: %s', id, line.slice(0, 200))
    for (const bad of resolution.rejected) logger.debug('group %s: rejected %s: %s', id, bad.op.action, bad.reason)
    if (parsed.invalid.length || resolution.rejected.length) {
      logger.info('group %s: %d lines unreadable, %d operations rejected', id, parsed.invalid.length, resolution.rejected.length)
    }
    return issues
  }

  /** The result of a run whose plan was applied or queued for review, counted and logged. */
  private report(
    group: GroupRef,
    now: Date,
    plan: EvolutionPlan,
    outcome: Pick<ApplyOutcome, 'stats' | 'changes'> & Pick<EvolutionResult, 'review'>,
    issues: EvolutionIssues,
    repaired: EvolutionResult['repaired'],
  ): EvolutionResult {
    const { counters, logger } = this.deps
    const id = groupId(group)
    const { stats, changes } = outcome
    if (outcome.review) {
      counters.inc('group.evolve-queued')
      logger.info(
        'group %s evolved for review: %d proposals queued (%d repeats left out), %d kept',
        id,
        outcome.review.queued,
        outcome.review.duplicates,
        stats.kept,
      )
      return {
        success: true,
        group_id: id,
        evolution_time: now.toISOString(),
        status: 'queued',
        stats,
        changes,
        issues,
        input: plan.input,
        ...(repaired ? { repaired } : {}),
        review: outcome.review,
      }
    }
    counters.inc('group.evolved')
    logger.info(
      'group %s evolved: %d kept, %d updated, %d created, %d deleted',
      id,
      stats.kept,
      stats.updated,
      stats.created,
      stats.deleted,
    )
    return {
      success: true,
      group_id: id,
      evolution_time: now.toISOString(),
      status: 'evolved',
      stats,
      changes,
      issues,
      input: plan.input,
      ...(repaired ? { repaired } : {}),
    }
  }

  private async apply(plan: EvolutionPlan, now: Date): Promise<ApplyOutcome & { review?: undefined }> {
    const outcome = await applyPlan(this.deps.store, plan, now)
    if (outcome.stale) this.deps.counters.inc('group.ops-stale', outcome.stale)
    await this.deps.index?.sync(outcome.upserts, outcome.deletes)
    return outcome
  }

  /** Queues a review plan's operations (nothing changes in the memories; the shown ones all count as kept). */
  private async queue(plan: EvolutionPlan) {
    if (!this.deps.review) throw new Error('a plan for review, but no review queue')
    const review = await this.deps.review.queue(plan)
    const stats: EvolutionStats = { kept: plan.kept, updated: 0, created: 0, deleted: 0 }
    return { stats, changes: [] as EvolutionResult['changes'], stale: 0, review }
  }

  private lost(group: GroupRef, now: Date): EvolutionResult {
    this.deps.counters.inc('group.lease-lost')
    this.deps.logger.warn('group %s: the evolution lease expired and another instance took it; this run stops', groupId(group))
    return this.result(group, now, 'busy', 'the lease passed to another instance')
  }
}
