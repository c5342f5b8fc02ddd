import type { Context, Session } from 'koishi'
import { budgetOwnerOf } from '../budget'
import type { Config } from '../config'
import type { ProviderChoice } from '../providers/factory'
import { sessionScope } from '../scope'

/** Bytes as MB with one decimal. */
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

/** Where this chat stands against its model budget today. */
async function budgetLine(ctx: Context, session: Session): Promise<string> {
  const budget = await ctx.memory.budgets.status(budgetOwnerOf(session))
  const [calls, limit] = [budget.spent.calls, budget.limits.calls]
  const state =
    limit === undefined
      ? session.text('.budget-unlimited', { calls })
      : session.text(budget.exhausted ? '.budget-offline' : '.budget-model', { calls, limit })
  return session.text('.budget', [state])
}

/** `memory.stats` and `memory.status`: what the replies saw, and how the memory runs. */
export function registerStatusCommands(ctx: Context, config: Config) {
  const root = ctx.command('memory')

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
        await budgetLine(ctx, session),
        session.text('.index', [
          session.text(`.engine-${status.index.used}`) +
            (status.index.lanceFailure ? session.text('.engine-database-fallback', [status.index.lanceFailure]) : ''),
        ]),
        session.text('.memory', { used: mb(status.memory.usedBytes), budget: mb(status.memory.budgetBytes) }),
        session.text('.cache', {
          used: mb(status.cache.bytes),
          cap: mb(status.cache.capBytes),
          scopes: status.cache.scopes,
          hits:
            status.cache.hits + status.cache.misses ? Math.round((100 * status.cache.hits) / (status.cache.hits + status.cache.misses)) : 0,
        }),
        session.text('.held', {
          used: mb(status.held.bytes),
          cap: mb(status.held.capBytes),
          channels: status.held.channels,
          messages: status.held.rows,
        }),
        // the scopes and the channels have their lines above, with what only they tell
        ...status.memory.consumers
          .filter((use) => use.name !== 'scopes' && use.name !== 'channels')
          .map((use) => session.text(`.consumer-${use.name}`, { used: mb(use.bytes), cap: mb(use.capBytes), n: use.entries })),
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
