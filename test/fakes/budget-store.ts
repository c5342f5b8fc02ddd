import type { BudgetLimits } from '../../src/budget/limits'
import type { BudgetOwner } from '../../src/budget/owner'
import { ownerKey } from '../../src/budget/owner'
import type { BudgetStore, DaySpend, OwnerBudget } from '../../src/budget/store'

/** Budgets and spend kept in maps, as the database keeps them. */
export class MemoryBudgetStore implements BudgetStore {
  readonly limits = new Map<string, OwnerBudget>()
  readonly spend = new Map<string, DaySpend>()

  async budgets() {
    return [...this.limits.values()]
  }

  async setBudget(owner: BudgetOwner, limits: BudgetLimits) {
    this.limits.set(ownerKey(owner), { owner, ...limits })
  }

  async clearBudget(owner: BudgetOwner) {
    this.limits.delete(ownerKey(owner))
  }

  async spendOn(day: string, owner?: BudgetOwner) {
    return [...this.spend.values()].filter((row) => row.day === day && (!owner || ownerKey(row.owner) === ownerKey(owner)))
  }

  async writeSpend(spend: DaySpend) {
    this.spend.set(`${ownerKey(spend.owner)}|${spend.day}`, { ...spend })
  }
}
