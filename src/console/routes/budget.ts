import type { Context } from 'koishi'
import type { BudgetField, BudgetStatus } from '../../budget'
import { BUDGET_MAX, minimumOf, validLimit } from '../../budget'
import type { Authorities, BudgetView } from '../types'
import type { Routes } from './route'
import { ConsoleError, groupArg, route } from './route'

export function budgetView(status: BudgetStatus): BudgetView {
  return {
    ...status.owner,
    day: status.day,
    calls: status.limits.calls ?? null,
    tokens: status.limits.tokens ?? null,
    own: status.own,
    spentCalls: status.spent.calls,
    spentTokens: status.spent.tokens,
    offline: status.offline,
    exhausted: status.exhausted,
  }
}

/** A field of the page's budget: a limit in range, null (back to the global default) or absent (left as it is). */
function limitArg(field: BudgetField, value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value
  if (!validLimit(field, value)) throw new ConsoleError('bad-budget', `${field}: a whole number from ${minimumOf(field)} to ${BUDGET_MAX}`)
  return value
}

/** A group's model budget on the Groups page: read it, set it, put it back to the global default. */
export function budgetRoutes(ctx: Context, authority: Authorities): Routes {
  const budgets = () => ctx.memory.budgets
  return {
    'memory/group/budget': route(authority.groups, async (_caller, [group]) => budgetView(await budgets().status(ownerOf(group)))),

    'memory/group/budget/set': route(authority.groups, async (_caller, [group, limits]) => {
      const owner = ownerOf(group)
      if (typeof limits !== 'object' || !limits) throw new ConsoleError('bad-budget', 'limits are { calls, tokens }')
      const { calls, tokens } = limits as Record<string, unknown>
      return budgetView(await budgets().set(owner, { calls: limitArg('calls', calls), tokens: limitArg('tokens', tokens) }))
    }),

    'memory/group/budget/reset': route(authority.groups, async (_caller, [group]) => budgetView(await budgets().reset(ownerOf(group)))),
  }
}

const ownerOf = (group: unknown) => ({ ...groupArg(group), userId: '' })
