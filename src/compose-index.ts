import { createHash } from 'node:crypto'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import type { Context } from 'koishi'
import type { Config } from './config'
import { memoryMB } from './config'
import { MemoryBudget } from './core/memory-budget'
import type { Counters, Logger } from './core/observability'
import { DatabaseIndex, defineVectorTables } from './store/database-index'
import { IndexRegistry } from './store/index-sync'
import { LanceIndex } from './store/lance-index'
import { lanceLoadFailure } from './store/lance-library'
import { defineForgetTable } from './store/forget-fence'
import { defineIndexMarkTable, KoishiIndexMarks } from './store/index-marks'
import { defineOutboxTable, KoishiOutbox } from './store/outbox'
import { ScopeCache } from './store/scope-cache'

/** Which vector index is in use, and why not LanceDB when it could not load. */
export interface EngineChoice {
  configured: Config['store']['engine']
  used: 'lancedb' | 'database'
  lanceFailure?: string
}

/**
 * The shared index infrastructure: the engine (LanceDB, or the database where LanceDB cannot load),
 * the scope cache every kind writes to and searches, the outbox and the registry of index tables.
 */
export function composeIndex(ctx: Context, config: Config, counters: Counters, log: Logger) {
  defineOutboxTable(ctx)
  defineForgetTable(ctx)
  defineVectorTables(ctx)
  defineIndexMarkTable(ctx)
  const registry = new IndexRegistry({ logger: log })
  const lanceFailure = config.store.engine === 'auto' ? lanceLoadFailure() : undefined
  const used: EngineChoice['used'] = config.store.engine === 'database' || lanceFailure ? 'database' : 'lancedb'
  const engine: EngineChoice = { configured: config.store.engine, used, lanceFailure }
  if (lanceFailure) log.warn(ctx.i18n.text([], ['memory.log.index-fallback'], [lanceFailure]))
  const budget = new MemoryBudget(memoryMB(config.store) * 2 ** 20)
  const databaseIndex = new DatabaseIndex(ctx, { logger: log, counters })
  const lanceCaches: number = engine.used === 'lancedb' ? budget.claim('lancedb', () => (store as LanceIndex).cached()) : 0
  const store: DatabaseIndex | LanceIndex =
    engine.used === 'database'
      ? databaseIndex
      : new LanceIndex({
          dir: storeDir(ctx, config),
          logger: log,
          counters,
          halfOpenAfterMs: config.store.retryIntervalSeconds * 1000,
          optimizeEveryWrites: config.store.optimizeEveryWrites,
          optimizeEveryMs: config.store.optimizeIntervalMinutes * 60_000,
          // both legs at once, fused in JS with LanceDB's RRF formula (docs/benchmarks.md)
          hybrid: 'parallel',
          // LanceDB's caches evict lazily and run past what they are given (up to 3.4 times in the budget's
          // test on a slow machine, with several scopes read at once), so they are given a fifth of their
          // share; of it, most for index data, which queries read
          cacheBytes: { index: Math.floor(lanceCaches * 0.12), metadata: Math.floor(lanceCaches * 0.08) },
          onReindexNeeded: (table) => {
            index.invalidate(table)
            void registry.tableLost(table)
          },
        })
  const index: ScopeCache = new ScopeCache(store, {
    capBytes: budget.claim('scopes', () => ({ bytes: index.stats().bytes, entries: index.stats().scopes })),
    logger: log,
    counters,
  })
  const instance = instanceName(storeDir(ctx, config))
  const outbox = new KoishiOutbox(ctx, instance)
  return {
    engine,
    registry,
    index,
    outbox,
    marks: new KoishiIndexMarks(ctx, instance),
    budget,
    /** LanceDB serves, and the database index served before: LanceDB's copy is stale. */
    databaseServedBefore: async () => store !== databaseIndex && (await databaseIndex.served()),
    forgetDatabaseCopy: () => databaseIndex.forgetAll(),
  }
}

export function storeDir(ctx: Context, config: Config): string {
  return resolve(ctx.baseDir ?? process.cwd(), config.store.path)
}

/**
 * This instance's name in the shared outbox: its machine and index folder, so each instance does its
 * own index's work, and a restart finds what it left.
 */
function instanceName(dir: string): string {
  return createHash('sha1').update(`${hostname()}:${dir}`).digest('hex').slice(0, 10)
}
