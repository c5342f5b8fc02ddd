import type { Command, Context, Session } from 'koishi'
import type { Config } from '../config'
import type { GroupRef } from '../group'
import { GroupMemoryError } from '../group'

type Resolved = { group: GroupRef } | { error: string }

/**
 * The group a command acts on: the caller's own group, or the one named by `-g` / the argument,
 * which needs the configured authority unless it is the caller's own.
 */
async function resolveGroup(ctx: Context, session: Session, named: string | undefined, authority: number): Promise<Resolved> {
  const own = session.guildId ? { platform: session.platform, guildId: session.guildId } : undefined
  if (!named) return own ? { group: own } : { error: session.text('commands.memory.messages.not-group') }
  // `platform:guildId` names a group that exists (a platform may hold colons); a bare id is on the caller's platform
  const group = named.includes(':')
    ? await ctx.memory.groups.resolve(named, session.platform)
    : { platform: session.platform, guildId: named }
  const isOwn = own && own.platform === group.platform && own.guildId === group.guildId
  if (!isOwn && ((session.user as { authority?: number } | undefined)?.authority ?? 0) < authority) {
    return { error: session.text('commands.memory.messages.group-forbidden') }
  }
  return { group }
}

/**
 * Runs a group memory call on the group the command acts on (see `resolveGroup`), turning a caller's
 * mistake into its locale text.
 */
export async function inGroup(
  ctx: Context,
  session: Session,
  named: string | undefined,
  authority: number,
  run: (group: GroupRef) => Promise<string>,
) {
  try {
    const target = await resolveGroup(ctx, session, named, authority)
    if ('error' in target) return target.error
    return await run(target.group)
  } catch (error) {
    if (!(error instanceof GroupMemoryError)) throw error
    return session.text(`commands.memory.messages.group-${error.code}`, [error.message])
  }
}

export function registerGroupCommands(ctx: Context, config: Config) {
  const authority = config.group.authority

  ctx
    .command('memory.evolve [group:string]', { authority })
    .userFields(['authority'])
    .option('days', '-d <days:posint>')
    .action(async ({ session, options }, named) => {
      if (!session) return
      return inGroup(ctx, session, named, authority, async (target) => {
        const result = await ctx.memory.evolve(target, { days: options!.days })
        const issues = result.issues.invalid_lines + result.issues.rejected_ops
        const suffix = issues ? session.text('.issues', { invalid: result.issues.invalid_lines, rejected: result.issues.rejected_ops }) : ''
        // a moderated group: the plan waits in its review queue
        if (result.status === 'queued') {
          const queued = result.review?.queued ?? 0
          return session.text(queued ? '.queued' : '.queued-none', { queued, kept: result.stats.kept }) + suffix
        }
        if (result.status !== 'evolved') return session.text(`.${result.status}`, [result.message ?? ''])
        return session.text('.evolved', result.stats) + suffix
      })
    })

  const group = ctx.command('memory.group')
  const groupSubcommand = <D extends string>(def: D, commandConfig?: Command.Config) =>
    group.subcommand(def, commandConfig).userFields(['authority']).option('group', '-g <group:string>')

  groupSubcommand('.list')
    .option('status', '-s <status:string>', { fallback: 'active' })
    .option('page', '-p <page:posint>', { fallback: 1 })
    .action(async ({ session, options }) => {
      if (!session) return
      return inGroup(ctx, session, options!.group, authority, async (target) => {
        const status = options!.status as 'active' | 'deprecated' | 'all'
        if (!['active', 'deprecated', 'all'].includes(status)) return session.text('.bad-status')
        const pageSize = 10
        const page = await ctx.memory.groups.list(target, { status, limit: pageSize, offset: (options!.page! - 1) * pageSize })
        if (!page.memories.length) return session.text('.empty')
        return [
          session.text('.header', [page.total]),
          ...page.memories.map((m) => session.text('.item', [m.memory_id, m.statement, m.version, m.strength.toFixed(2), m.status])),
        ].join('\n')
      })
    })

  groupSubcommand('.search <query:text>').action(async ({ session, options }, query) => {
    if (!session) return
    if (!query?.trim()) return session.text('commands.memory.recall.messages.missing-query')
    return inGroup(ctx, session, options!.group, authority, async (target) => {
      const found = await ctx.memory.groups.search(target, query)
      if (!found.results.length) return session.text('.empty')
      return found.results.map((r, i) => session.text('.item', [i + 1, r.statement, r.score.toFixed(2), r.memory_id])).join('\n')
    })
  })

  groupSubcommand('.history <id:string>').action(async ({ session, options }, id) => {
    if (!session || !id) return
    return inGroup(ctx, session, options!.group, authority, async (target) => {
      const history = await ctx.memory.groups.history(target, id)
      return history.history.map((h) => session.text('.item', [h.version, h.statement, h.status, h.change_summary || '-'])).join('\n')
    })
  })

  groupSubcommand('.changes')
    .option('days', '-d <days:posint>', { fallback: 7 })
    .action(async ({ session, options }) => {
      if (!session) return
      return inGroup(ctx, session, options!.group, authority, async (target) => {
        const changes = await ctx.memory.groups.changes(target, { days: options!.days })
        if (!changes.changes.length) return session.text('.empty', [options!.days])
        return changes.changes
          .map((c) => session.text('.item', [c.action, c.memory_id, c.new_statement || c.old_statement, c.change_reason || '-']))
          .join('\n')
      })
    })

  groupSubcommand('.delete <id:string> [reason:text]', { authority }).action(async ({ session, options }, id, reason) => {
    if (!session || !id) return
    return inGroup(ctx, session, options!.group, authority, async (target) => {
      await ctx.memory.groups.remove(target, id, reason)
      return session.text('.done', [id])
    })
  })

  groupSubcommand('.restore <id:string>', { authority }).action(async ({ session, options }, id) => {
    if (!session || !id) return
    return inGroup(ctx, session, options!.group, authority, async (target) => {
      await ctx.memory.groups.restore(target, id)
      return session.text('.done', [id])
    })
  })

  groupSubcommand('.strength <id:string> <value:number>', { authority }).action(async ({ session, options }, id, value) => {
    if (!session || !id) return
    return inGroup(ctx, session, options!.group, authority, async (target) => {
      const result = await ctx.memory.groups.setStrength(target, id, value)
      return session.text('.done', [id, result.memory.strength.toFixed(2)])
    })
  })
}
