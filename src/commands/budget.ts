import type { Context, Session } from 'koishi'
import type { BudgetField, BudgetOwner, BudgetStatus } from '../budget'
import { BUDGET_MAX, budgetOwnerOf, minimumOf, validLimit } from '../budget'
import type { Config } from '../config'
import { idError } from '../scope'

const FIELDS: BudgetField[] = ['calls', 'tokens']

/** What `memory.budget calls|tokens <value>` sets: a whole number in the field's range, or `default` (null: the global default). */
function parseValue(field: BudgetField, raw: string | undefined): number | null | undefined {
  const text = raw?.trim().toLowerCase() ?? ''
  if (text === 'default') return null
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN
  return validLimit(field, value) ? value : undefined
}

/** The owner the command acts on: `-g`'s group, else the caller's group, else the caller in their private chat. */
function ownerOf(session: Session, named: string | undefined): BudgetOwner | string {
  if (named === undefined) return budgetOwnerOf({ platform: session.platform, guildId: session.guildId, userId: session.userId })
  const [platform, guildId] = named.includes(':')
    ? [named.slice(0, named.indexOf(':')), named.slice(named.indexOf(':') + 1)]
    : [session.platform, named]
  if (idError(platform, 'platform') || idError(guildId, 'group') || !guildId) return session.text('.bad-group', [named])
  return { platform, guildId, userId: '' }
}

function describe(session: Session, status: BudgetStatus): string {
  const limit = (value: number | undefined) => (value === undefined ? session.text('.unlimited') : String(value))
  const who = status.owner.guildId ? session.text('.group', [`${status.owner.platform}:${status.owner.guildId}`]) : session.text('.private')
  const lines = [
    session.text('.show', {
      who,
      calls: limit(status.limits.calls),
      tokens: limit(status.limits.tokens),
      source: session.text(status.own ? '.own' : '.default'),
    }),
    session.text('.spent', { day: status.day, calls: status.spent.calls, tokens: status.spent.tokens, offline: status.offline }),
  ]
  if (status.exhausted) lines.push(session.text('.exhausted'))
  return lines.join('\n')
}

/** `memory.budget`: a group's (or private chat's) model budget and today's spend; admins set or reset it. */
export function registerBudgetCommand(ctx: Context, config: Config) {
  ctx
    .command('memory.budget [field:string] [value:string]', { authority: config.group.authority })
    .option('group', '-g <group:string>')
    .action(async ({ session, options }, field, value) => {
      if (!session) return
      const owner = ownerOf(session, options?.group)
      if (typeof owner === 'string') return owner
      if (!owner.guildId && !owner.userId) return session.text('.no-owner')
      if (field === undefined) return describe(session, await ctx.memory.budgets.status(owner))
      if (field === 'reset') {
        if (value !== undefined) return session.text('.usage')
        return `${session.text('.reset')}\n${describe(session, await ctx.memory.budgets.reset(owner))}`
      }
      if (!FIELDS.includes(field as BudgetField)) return session.text('.usage')
      const parsed = parseValue(field as BudgetField, value)
      if (parsed === undefined)
        return session.text(`.bad-${field}`, { value: value ?? '', min: minimumOf(field as BudgetField), max: BUDGET_MAX })
      const status = await ctx.memory.budgets.set(owner, { [field]: parsed })
      return `${session.text('.set')}\n${describe(session, status)}`
    })
}
