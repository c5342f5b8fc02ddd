import type { Context } from 'koishi'
import type { Config } from '../config'
import type { FactRow } from '../facts'
import { validSince } from '../facts'
import type { ErasedCounts } from '../module'
import { ERASED_KINDS } from '../erase'
import { clip } from '../text/clip'
import { parseUser } from './users'
import { waitingText } from './waiting-text'

/** `2026-11-26`, in the server's local time. */
const day = (time: Date) =>
  `${time.getFullYear()}-${String(time.getMonth() + 1).padStart(2, '0')}-${String(time.getDate()).padStart(2, '0')}`

/** `memory.recall`, `memory.list` and `memory.forget`: the caller's facts (`list -u` another's, with `authority.listOthers`). */
export function registerFactCommands(ctx: Context, config: Config) {
  const root = ctx.command('memory')

  root.subcommand('.recall <query:text>').action(async ({ session }, query) => {
    if (!session?.userId) return
    if (!query?.trim()) return session.text('.missing-query')
    const memories = await ctx.memory.retrieve(session, query)
    if (!memories.length) return session.text('.empty')
    return [
      session.text('.header', [memories.length]),
      ...memories.map((memory, i) =>
        memory.kind === 'message'
          ? session.text('.item-line', [i + 1, clip(memory.content, 120), day(memory.createdAt), memory.relevance.toFixed(2)])
          : session.text('.item', [i + 1, memory.content, memory.relevance.toFixed(2), memory.id]),
      ),
    ].join('\n')
  })

  root
    .subcommand('.list')
    .userFields(['authority'])
    .option('user', '-u <user:string>')
    .option('page', '-p <page:posint>', { fallback: 1 })
    .option('history', '-a')
    .action(async ({ session, options }) => {
      if (!session?.userId) return
      let owner = { platform: session.platform, userId: session.userId }
      if (options!.user) {
        owner = parseUser(session, options!.user)
        const self = owner.platform === session.platform && owner.userId === session.userId
        if (!self && (session.user?.authority ?? 0) < config.authority.listOthers) {
          return session.text('.forbidden')
        }
      }
      // in a group only what was learnt in that group is shown
      const scope = session.guildId ? { ...owner, guildId: session.guildId } : owner
      const pageSize = 10
      const page = options!.page ?? 1
      const history = { history: Boolean(options!.history) }
      const [rows, total] = await Promise.all([
        ctx.memory.list(scope, pageSize, (page - 1) * pageSize, history),
        ctx.memory.facts.count(scope, history),
      ])
      const waiting = waitingText(
        session,
        ctx.memory.waiting(owner, session.guildId ? { guildId: session.guildId } : 'everywhere'),
        (session.user?.authority ?? 0) >= config.authority.flush,
      )
      const withWaiting = (text: string) => (waiting ? `${text}\n${waiting}` : text)
      if (!rows.length) return withWaiting(session.text(total ? '.no-page' : waiting ? '.empty-waiting' : '.empty', [page]))
      const item = (row: FactRow) => {
        const text = [row.id, clip(row.content, 80), row.version]
        if (!history.history) return session.text('.item', text)
        const since = day(validSince(row))
        return row.validTo
          ? session.text('.item-closed', [...text, since, day(row.validTo)])
          : session.text('.item-current', [...text, since])
      }
      return withWaiting([session.text('.header', [total, page, Math.ceil(total / pageSize)]), ...rows.map(item)].join('\n'))
    })

  root
    .subcommand('.forget [id:string]')
    .option('all', '-a')
    .option('yes', '-y')
    .action(async ({ session, options }, id) => {
      if (!session?.userId) return
      const owner = { platform: session.platform, userId: session.userId }
      if (options!.all) {
        const total = await ctx.memory.facts.count(owner, { history: true })
        if (!options!.yes) return session.text('.confirm-all', [total])
        const report = await ctx.memory.erase(owner, 'all')
        return [session.text('.erased-all'), removedText(report.removed)].join('\n')
      }
      if (!id) return session.text('.missing-id')
      const report = await ctx.memory.erase(owner, [id])
      return report.facts.length
        ? [session.text('.erased', [id]), removedText(report.removed)].join('\n')
        : session.text('.not-found', [id])

      function removedText(removed: ErasedCounts): string {
        const parts = ERASED_KINDS.filter((kind) => removed[kind]).map((kind) => session!.text(`.kinds.${kind}`, [removed[kind]]))
        return parts.length ? session!.text('.removed', [parts.join(session!.text('.separator'))]) : session!.text('.nothing-else')
      }
    })
}
