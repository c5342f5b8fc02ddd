import type { Context } from 'koishi'

/** An owner's own budget (a group's, or a user's for their private chat); a null field keeps the global default. */
export interface BudgetRow {
  /** `ownerKey`. */
  id: string
  platform: string
  guildId: string
  userId: string
  calls: number | null
  tokens: number | null
  updatedAt: Date
}

/** What an owner spent on one day: model calls and the prompt tokens sent with them. */
export interface SpendRow {
  /** `ownerKey`. */
  owner: string
  /** `YYYY-MM-DD`, `budgetDay`. */
  day: string
  platform: string
  guildId: string
  userId: string
  calls: number
  tokens: number
  /** Calls refused: the memory used the offline rules instead. */
  offline: number
}

declare module 'koishi' {
  interface Tables {
    memory_budget: BudgetRow
    memory_budget_spend: SpendRow
  }
}

export function defineBudgetTables(ctx: Context) {
  ctx.model.extend(
    'memory_budget',
    {
      id: 'string(400)',
      platform: 'string(63)',
      guildId: 'string(255)',
      userId: 'string(255)',
      calls: { type: 'unsigned', nullable: true },
      tokens: { type: 'unsigned', nullable: true },
      updatedAt: 'timestamp',
    },
    { primary: 'id' },
  )
  ctx.model.extend(
    'memory_budget_spend',
    {
      owner: 'string(400)',
      day: 'string(10)',
      platform: 'string(63)',
      guildId: 'string(255)',
      userId: 'string(255)',
      calls: 'unsigned',
      tokens: 'unsigned',
      offline: 'unsigned',
    },
    { primary: ['owner', 'day'] },
  )
}
