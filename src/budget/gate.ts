import { AsyncLocalStorage } from 'node:async_hooks'
import type { Logger } from '../core/observability'
import { budgetDay } from './day'
import type { BudgetLimits, Spend } from './limits'
import { callAllowed, effectiveLimits, replyTokens } from './limits'
import type { BudgetOwner } from './owner'
import { ownerKey } from './owner'
import type { BudgetStore, DaySpend } from './store'

/** An owner's budget today: its limits, what it spent, and whether the model is still used. */
export interface BudgetStatus {
  owner: BudgetOwner
  day: string
  limits: BudgetLimits
  /** Whether the owner has limits of its own (else the global default applies). */
  own: boolean
  spent: Spend
  /** Calls refused today: the offline rules did that work. */
  offline: number
  /** The day's calls are spent: the memory uses the offline rules until the day ends. */
  exhausted: boolean
}

export interface BudgetGateDeps {
  store: BudgetStore
  defaults: BudgetLimits
  now: () => Date
  logger: Logger
}

/**
 * The model-call budgets: each group's (and each private chat's user's) calls and prompt tokens of
 * the day, checked before a call and charged after it is let through. Work that may call the model
 * runs under `run(owner, …)`; the model's wrapper (`BudgetedLLM`) reads the owner from there, so a
 * call is charged to the group whose message caused it wherever in the memory it is made.
 */
export class BudgetGate {
  private readonly scope = new AsyncLocalStorage<BudgetOwner>()
  private readonly overrides = new Map<string, BudgetLimits>()
  private today = ''
  private readonly spend = new Map<string, DaySpend>()
  private writes: Promise<void> = Promise.resolve()
  private loaded?: Promise<void>

  private now: () => Date

  constructor(private readonly deps: BudgetGateDeps) {
    this.now = deps.now
  }

  /** Counts days on another clock: a replay of old conversations (`bench/ltm.ts`) charges each day of theirs. */
  countDaysBy(now: () => Date): void {
    this.now = now
  }

  /** Reads the owners' own budgets and today's spend once; every decision waits for it. */
  ready(): Promise<void> {
    return (this.loaded ??= this.load().catch((error) => {
      this.loaded = undefined
      throw error
    }))
  }

  private async load() {
    for (const { owner, ...limits } of await this.deps.store.budgets()) this.overrides.set(ownerKey(owner), limits)
    await this.rollDay()
  }

  /** Starts a new day's figures when the day changed (the stored ones of that day, left by an earlier run). */
  private async rollDay() {
    const day = budgetDay(this.now())
    if (day === this.today) return
    this.today = day
    this.spend.clear()
    for (const row of await this.deps.store.spendOn(day)) this.spend.set(ownerKey(row.owner), row)
  }

  /** Runs `work` with its model calls charged to `owner`. */
  run<T>(owner: BudgetOwner, work: () => Promise<T>): Promise<T> {
    return this.scope.run(owner, work)
  }

  /** Whose work is running here, if any. */
  current(): BudgetOwner | undefined {
    return this.scope.getStore()
  }

  limitsOf(owner: BudgetOwner): BudgetLimits {
    return effectiveLimits(this.overrides.get(ownerKey(owner)), this.deps.defaults)
  }

  private spentOf(owner: BudgetOwner): DaySpend {
    const key = ownerKey(owner)
    let row = this.spend.get(key)
    if (!row) this.spend.set(key, (row = { owner, day: this.today, calls: 0, tokens: 0, offline: 0 }))
    return row
  }

  /** Whether `owner` may still call the model today. */
  async allows(owner: BudgetOwner): Promise<boolean> {
    await this.ready()
    await this.rollDay()
    return callAllowed(this.limitsOf(owner), this.spentOf(owner))
  }

  /**
   * Takes one call of `owner`'s budget with the prompt tokens it sends; false when the day's calls are
   * spent (counted as work done offline instead).
   */
  async take(owner: BudgetOwner, tokens: number): Promise<boolean> {
    const allowed = await this.allows(owner)
    const row = this.spentOf(owner)
    const added = allowed ? { calls: 1, tokens, offline: 0 } : { calls: 0, tokens: 0, offline: 1 }
    row.calls += added.calls
    row.tokens += added.tokens
    row.offline += added.offline
    this.save(row, added)
    return allowed
  }

  /** Notes work the offline rules did because the budget was spent (no call was tried). */
  async noteOffline(owner: BudgetOwner): Promise<void> {
    await this.ready()
    await this.rollDay()
    const row = this.spentOf(owner)
    row.offline++
    this.save(row, { calls: 0, tokens: 0, offline: 1 })
  }

  private save(row: DaySpend, added: Spend & { offline: number }) {
    this.writes = this.writes
      .then(() => this.deps.store.addSpend(row.owner, row.day, added))
      .catch((error) => this.deps.logger.warn('could not store the budget spend: %s', (error as Error).message))
  }

  /** The prompt tokens a reply's context may take for `owner`. */
  async replyTokens(owner: BudgetOwner, contextTokens: number): Promise<number> {
    await this.ready()
    return replyTokens(this.limitsOf(owner), contextTokens)
  }

  async status(owner: BudgetOwner): Promise<BudgetStatus> {
    await this.ready()
    await this.rollDay()
    return this.statusOf(this.spentOf(owner))
  }

  private statusOf({ owner, calls, tokens, offline }: DaySpend): BudgetStatus {
    const limits = this.limitsOf(owner)
    const own = this.overrides.has(ownerKey(owner))
    return { owner, day: this.today, limits, own, spent: { calls, tokens }, offline, exhausted: !callAllowed(limits, { calls, tokens }) }
  }

  /**
   * Every owner that spent or was refused anything today, most calls first: as stored, so with what
   * other instances on the database added (a decision counts what was stored when the day began and
   * this instance's own calls since).
   */
  async spendToday(): Promise<BudgetStatus[]> {
    await this.ready()
    await this.rollDay()
    await this.writes
    const rows = await this.deps.store.spendOn(this.today)
    return rows
      .filter((row) => row.calls || row.offline)
      .map((row) => this.statusOf(row))
      .sort((a, b) => b.spent.calls - a.spent.calls)
  }

  /** Sets an owner's own limits (a field left undefined is left as it was); `null` clears a field. */
  async set(owner: BudgetOwner, patch: { calls?: number | null; tokens?: number | null }): Promise<BudgetStatus> {
    await this.ready()
    const before = this.overrides.get(ownerKey(owner)) ?? {}
    const next: BudgetLimits = {
      calls: patch.calls === undefined ? before.calls : (patch.calls ?? undefined),
      tokens: patch.tokens === undefined ? before.tokens : (patch.tokens ?? undefined),
    }
    if (next.calls === undefined && next.tokens === undefined) return this.reset(owner)
    await this.deps.store.setBudget(owner, next, this.now())
    this.overrides.set(ownerKey(owner), next)
    return this.status(owner)
  }

  /** Back to the global default. */
  async reset(owner: BudgetOwner): Promise<BudgetStatus> {
    await this.ready()
    await this.deps.store.clearBudget(owner)
    this.overrides.delete(ownerKey(owner))
    return this.status(owner)
  }

  /** Resolves once every spend written so far is stored. */
  flush(): Promise<void> {
    return this.writes
  }
}
