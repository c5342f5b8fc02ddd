import type { BudgetLimits, Spend } from '../../src/budget/limits'
import type { BudgetOwner } from '../../src/budget/owner'
import { ownerKey } from '../../src/budget/owner'
import type { BudgetStore, DaySpend, OwnerBudget } from '../../src/budget/store'

/** Budgets and spend kept in maps, as the database keeps them. */
export class MemoryBudgetStore implements BudgetStore {
  readonly limits = new Map<string, OwnerBudget>()
  readonly spend = new Map<string, DaySpend>()

  async budgets() {
    return [...this.limits.values()].map((row) => ({ ...row }))
  }

  async setBudget(owner: BudgetOwner, limits: BudgetLimits) {
    this.limits.set(ownerKey(owner), { owner, ...limits })
  }

  async clearBudget(owner: BudgetOwner) {
    this.limits.delete(ownerKey(owner))
  }

  async spendOn(day: string, owner?: BudgetOwner) {
    // copies, as a database hands out
    return [...this.spend.values()]
      .filter((row) => row.day === day && (!owner || ownerKey(row.owner) === ownerKey(owner)))
      .map((row) => ({ ...row }))
  }

  async addSpend(owner: BudgetOwner, day: string, added: Spend & { offline: number }) {
    const key = `${ownerKey(owner)}|${day}`
    const row = this.spend.get(key) ?? { owner, day, calls: 0, tokens: 0, offline: 0 }
    this.spend.set(key, { ...row, calls: row.calls + added.calls, tokens: row.tokens + added.tokens, offline: row.offline + added.offline })
  }
}
