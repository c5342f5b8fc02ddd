import type { BudgetOwner } from './owner'
import type { BudgetLimits, Spend } from './limits'

/** An owner's own budget as stored. */
export interface OwnerBudget extends BudgetLimits {
  owner: BudgetOwner
}

/** An owner's spend on one day. */
export interface DaySpend extends Spend {
  owner: BudgetOwner
  day: string
  /** Calls refused for the budget: the offline rules did the work. */
  offline: number
}

/** Where budgets and spend are kept: the database, so a restart keeps the day's spend. */
export interface BudgetStore {
  budgets(): Promise<OwnerBudget[]>
  setBudget(owner: BudgetOwner, limits: BudgetLimits, at: Date): Promise<void>
  clearBudget(owner: BudgetOwner): Promise<void>
  spendOn(day: string, owner?: BudgetOwner): Promise<DaySpend[]>
  /** Adds to an owner's spend of the day (every instance adds to the same row). */
  addSpend(owner: BudgetOwner, day: string, added: Spend & { offline: number }): Promise<void>
}
