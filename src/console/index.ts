import { resolve } from 'node:path'
import type { Context } from 'koishi'
import type { Client } from '@koishijs/console'
import type { Config } from '../config'
import { MetricsSeries } from './series'
import type { Caller } from './routes'
import { consoleAuthorities, consoleRoutes, Evolutions, runRoute } from './routes'
import type { EntryData, Outcome } from './types'

declare module '@koishijs/console' {
  interface Events {
    [name: `memory/${string}`]: (...args: unknown[]) => Promise<Outcome<unknown>>
  }
}

/** How often the charts' series takes a point, and how long it keeps them. */
export const SAMPLE_SECONDS = 60
const SERIES_HOURS = 24
/** In the first minutes after a start a point is taken more often, so the charts show something soon. */
export const EARLY_SAMPLE_SECONDS = 10
const EARLY_MINUTES = 10

/** The console user of a call, as `@koishijs/plugin-auth` sets it on the client (nothing without it). */
function callerOf(client: Client | undefined): Caller {
  const auth = (client as { auth?: { id?: number; name?: string } } | undefined)?.auth
  return auth ? { id: auth.id, name: auth.name } : {}
}

/**
 * The console's Memory page (`client/`, built to `dist/`): People, Groups, Moderation, Health and
 * Import/export. Runs only when the console and the memory are there; without the console nothing
 * of it loads. Every operation is a console listener that needs its part's authority
 * (`consoleAuthorities`), which `@koishijs/plugin-auth` enforces for logged-in console users.
 */
export function applyConsole(ctx: Context, config: Config) {
  ctx.inject(['console', 'memory'], (ctx) => {
    const log = ctx.logger('memory')
    const since = Date.now()
    const series = new MetricsSeries({
      capacity: (SERIES_HOURS * 3600) / SAMPLE_SECONDS + (EARLY_MINUTES * 60) / EARLY_SAMPLE_SECONDS,
      read: async (from, now) => {
        const hours = Math.max((now.getTime() - from.getTime()) / 3_600_000, 1 / 3600)
        const [contexts, replies] = await Promise.all([ctx.memory.metrics.contexts(hours), ctx.memory.metrics.replies(hours)])
        return { counters: ctx.memory.metrics.counters(), contexts, replies, modelled: ctx.memory.metrics.modelled() }
      },
    })
    const sample = () => series.sample().catch((error: Error) => log.debug('console series: %s', error.message))
    let active = true
    const next = () => {
      if (!active) return
      const early = Date.now() - since < EARLY_MINUTES * 60_000
      ctx.setTimeout(() => void sample().then(next), (early ? EARLY_SAMPLE_SECONDS : SAMPLE_SECONDS) * 1000)
    }
    void sample().then(next)

    const authority = consoleAuthorities(config)
    const routes = consoleRoutes(ctx, config, { series, evolutions: new Evolutions(), since, sampleSeconds: SAMPLE_SECONDS })
    const console = ctx.console
    // the page's bundle (built by `npm run build`); `dev` is its source, for a console in dev mode
    console.addEntry({ dev: resolve(__dirname, '../../client/index.ts'), prod: resolve(__dirname, '../../dist') }, (): EntryData => ({
      authority,
    }))
    const added = new Map<string, unknown>()
    for (const [name, route] of Object.entries(routes)) {
      const callback = async function (this: Client, ...args: unknown[]) {
        return runRoute(route, callerOf(this), args, (error) => log.warn('console %s failed: %s', name, error.message))
      }
      console.addListener(name as `memory/${string}`, callback, { authority: route.authority })
      added.set(name, callback)
    }
    // the console keeps listeners until they are replaced: these go with the plugin
    ctx.on('dispose', () => {
      active = false
      for (const [name, callback] of added) if (console.listeners[name]?.callback === callback) delete console.listeners[name]
    })
  })
}
export type {
  BudgetView,
  EntryData,
  EvolutionState,
  FactView,
  GroupHit,
  HealthView,
  ImportView,
  Outcome,
  UserDetails,
  UserHit,
} from './types'
