import type { Context } from 'koishi'
import { $ } from 'koishi'
import type { BudgetLimits, Spend } from './limits'
import type { BudgetOwner } from './owner'
import { ownerKey } from './owner'
import type { BudgetStore, DaySpend, OwnerBudget } from './store'

const ownerOfRow = (row: { platform: string; guildId: string; userId: string }): BudgetOwner => ({
  platform: row.platform,
  guildId: row.guildId,
  userId: row.userId,
})

export class KoishiBudgetStore implements BudgetStore {
  constructor(private readonly ctx: Context) {}

  async budgets(): Promise<OwnerBudget[]> {
    const rows = await this.ctx.database.get('memory_budget', {})
    return rows.map((row) => ({ owner: ownerOfRow(row), calls: row.calls ?? undefined, tokens: row.tokens ?? undefined }))
  }

  async setBudget(owner: BudgetOwner, limits: BudgetLimits, at: Date): Promise<void> {
    await this.ctx.database.upsert('memory_budget', [
      { id: ownerKey(owner), ...owner, calls: limits.calls ?? null, tokens: limits.tokens ?? null, updatedAt: at },
    ])
  }

  async clearBudget(owner: BudgetOwner): Promise<void> {
    await this.ctx.database.remove('memory_budget', { id: ownerKey(owner) })
  }

  async spendOn(day: string, owner?: BudgetOwner): Promise<DaySpend[]> {
    const rows = await this.ctx.database.get('memory_budget_spend', owner ? { day, owner: ownerKey(owner) } : { day })
    return rows.map((row) => ({ owner: ownerOfRow(row), day: row.day, calls: row.calls, tokens: row.tokens, offline: row.offline }))
  }

  async addSpend(owner: BudgetOwner, day: string, added: Spend & { offline: number }): Promise<void> {
    await this.ctx.database.upsert('memory_budget_spend', (row) => [
      {
        owner: ownerKey(owner),
        day,
        ...owner,
        calls: $.add(row.calls, added.calls),
        tokens: $.add(row.tokens, added.tokens),
        offline: $.add(row.offline, added.offline),
      },
    ])
  }
}
