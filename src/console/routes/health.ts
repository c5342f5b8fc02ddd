import type { Context } from 'koishi'
import type { MetricsSeries } from '../series'
import type { Authorities, HealthView } from '../types'
import type { Routes } from './route'
import { route } from './route'
import { budgetView } from './budget'

export interface HealthDeps {
  series: MetricsSeries
  /** When the series started (the plugin's start), epoch ms. */
  since: number
  sampleSeconds: number
}

/** Health: providers, breakers, queues, the memory budget, the index tables and the charts' series. */
export function healthRoutes(ctx: Context, authority: Authorities, deps: HealthDeps): Routes {
  const memory = () => ctx.memory
  return {
    'memory/health': route(authority.health, async (): Promise<HealthView> => {
      const status = await memory().status()
      const tables = (await memory().indexHealth()).map(({ table, name, rows, optimizedAt }) => ({
        table,
        name,
        rows,
        optimizedAt: optimizedAt ? optimizedAt.getTime() : null,
      }))
      return {
        embedder: { ...status.choices.embedder, id: status.embedder },
        llm: { ...status.choices.llm, id: status.llm },
        index: { used: status.index.used, ...(status.index.lanceFailure && { lanceFailure: status.index.lanceFailure }) },
        breakers: Object.entries(status.breakers).map(([part, state]) => ({ part, state })),
        queue: status.queue,
        captureBuffer: status.captureBuffer,
        outbox: status.outbox,
        dialogues: status.dialogues,
        facts: status.facts,
        memory: status.memory,
        tables,
        series: await deps.series.read(),
        budgets: (await memory().budgets.spendToday()).map(budgetView),
        sampleSeconds: deps.sampleSeconds,
        since: deps.since,
      }
    }),
  }
}
