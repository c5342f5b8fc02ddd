import type { Context } from 'koishi'
import type { Config } from '../config'
import type { ProviderChoice } from '../providers/factory'
import type { FactRow } from '../facts'
import { validSince } from '../facts'
import { sessionScope } from '../scope'
import { clip } from '../text/clip'
import { registerGroupCommands } from './group'
import { registerKnowledgeCommands } from './knowledge'
import { registerReindexCommand } from './reindex'
import { registerReviewCommands } from './review'
import { parseUser } from './users'
import { registerTopicCommands } from './topics'
import { registerTraceCommand } from './trace'
import { registerTransferCommands } from './transfer'

/** `2026-11-26`, in the server's local time. */
const day = (time: Date) =>
  `${time.getFullYear()}-${String(time.getMonth() + 1).padStart(2, '0')}-${String(time.getDate()).padStart(2, '0')}`

export function registerCommands(ctx: Context, config: Config) {
  const root = ctx.command('memory')
  registerGroupCommands(ctx, config)
  registerReviewCommands(ctx, config)
  registerTopicCommands(ctx)
  registerReindexCommand(ctx)
  registerKnowledgeCommands(ctx, config)
  registerTransferCommands(ctx, config)
  registerTraceCommand(ctx, config)

  root.subcommand('.recall <query:text>').action(async ({ session }, query) => {
    if (!session?.userId) return
    if (!query?.trim()) return session.text('.missing-query')
    const memories = await ctx.memory.retrieve(session, query)
    if (!memories.length) return session.text('.empty')
    return [
      session.text('.header', [memories.length]),
      ...memories.map((memory, i) => session.text('.item', [i + 1, memory.content, memory.score.toFixed(2), memory.id])),
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
      if (!rows.length) return session.text(total ? '.no-page' : '.empty', [page])
      const item = (row: FactRow) => {
        const text = [row.id, clip(row.content, 80), row.version]
        if (!history.history) return session.text('.item', text)
        const since = day(validSince(row))
        return row.validTo
          ? session.text('.item-closed', [...text, since, day(row.validTo)])
          : session.text('.item-current', [...text, since])
      }
      return [session.text('.header', [total, page, Math.ceil(total / pageSize)]), ...rows.map(item)].join('\n')
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
        const erased = await ctx.memory.forgetAll(owner)
        return session.text('.erased-all', [erased])
      }
      if (!id) return session.text('.missing-id')
      const erased = await ctx.memory.forget(owner, [id])
      return erased.length ? session.text('.erased', [id]) : session.text('.not-found', [id])
    })

  root.subcommand('.stats [hours:posint]', { authority: config.authority.stats }).action(async ({ session }, hours = 24) => {
    if (!session) return
    const m = await ctx.memory.metrics.contexts(hours)
    const body = session.text('.body', {
      hours,
      contexts: m.contexts,
      buildMs: m.averageBuildMs.toFixed(1),
      relevance: m.averageRelevance.toFixed(2),
      messages: m.averageMessages.toFixed(1),
      tokens: Math.round(m.averageTokens),
      savings: (m.tokenSavings * 100).toFixed(0),
      perHour: m.contextsPerHour.toFixed(1),
      groups: m.groupsServed,
      fallback: (m.fallbackRate * 100).toFixed(1),
    })
    const r = await ctx.memory.metrics.replies(hours)
    if (!r.replies) return body
    return `${body}\n${session.text('.replies', {
      replies: r.replies,
      ms: Math.round(r.averageMs),
      prompt: Math.round(r.averagePromptTokens),
      tools: r.toolCalls,
      skipped: (r.recallSkippedRate * 100).toFixed(0),
      failures: r.failures,
    })}`
  })

  root
    .subcommand('.status')
    .userFields(['authority'])
    .action(async ({ session }) => {
      if (!session) return
      const status = await ctx.memory.status()
      const provider = (choice: ProviderChoice, offline: string) =>
        (choice.used === 'offline' || choice.used === 'rules' ? session.text(`.used-${offline}`) : choice.used) +
        (choice.fallback ? session.text(`.fallback-${choice.fallback}`, [choice.configured]) : '')
      const health = Object.entries(status.breakers)
        .map(([part, state]) => `${session.text(`.part-${part}`)} ${session.text(`.state-${state}`)}`)
        .join(session.text('general.comma'))
      const lines = [
        session.text('.embedder', [provider(status.choices.embedder, 'offline')]),
        session.text('.llm', [provider(status.choices.llm, 'rules')]),
        session.text('.index', [
          session.text(`.engine-${status.index.used}`) +
            (status.index.lanceFailure ? session.text('.engine-database-fallback', [status.index.lanceFailure]) : ''),
        ]),
        session.text('.cache', {
          used: Math.round((status.cache.bytes / 2 ** 20) * 10) / 10,
          cap: Math.round(status.cache.capBytes / 2 ** 20),
          scopes: status.cache.scopes,
          hits:
            status.cache.hits + status.cache.misses ? Math.round((100 * status.cache.hits) / (status.cache.hits + status.cache.misses)) : 0,
        }),
        session.text('.held', {
          used: Math.round((status.held.bytes / 2 ** 20) * 10) / 10,
          cap: Math.round(status.held.capBytes / 2 ** 20),
          channels: status.held.channels,
          messages: status.held.rows,
        }),
        session.text('.health', [health]),
      ]
      if (session.userId) lines.push(session.text('.mine', [await ctx.memory.facts.count(sessionScope(session))]))
      if ((session.user?.authority ?? 0) >= config.authority.stats) {
        const counters = status.counters
        lines.push(
          session.text('.totals', {
            facts: status.facts,
            queue: status.queue,
            buffer: status.captureBuffer,
            outbox: status.outbox,
            dialogues: status.dialogues,
            stored: counters['memorize.stored'] ?? 0,
            updated: counters['memorize.updated'] ?? 0,
            skipped: Object.entries(counters)
              .filter(([key]) => key.startsWith('memorize.skipped.'))
              .reduce((sum, [, n]) => sum + n, 0),
            rejected: counters['memorize.rejected'] ?? 0,
            failed: counters['memorize.failed.extract'] ?? 0,
          }),
        )
      }
      return lines.join('\n')
    })
}
