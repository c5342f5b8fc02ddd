import type { Context } from 'koishi'
import type { CapturePipeline } from './capture'
import type { Config } from './config'
import type { Logger } from './core/observability'
import type { KnowledgePart } from './knowledge'
import type { Maintenance } from './jobs'
import type { KeyedQueue } from './core/keyed-queue'
import { startTimers } from './jobs'
import type { MessagesPart } from './messages'
import type { DrainResult, IndexRegistry } from './store/index-sync'
import type { ScopeCache } from './store/scope-cache'
import type { SQLiteConnection } from './store/sqlite-pragmas'
import { releaseSqlite, tuneSqlite } from './store/sqlite-pragmas'

export interface LifecycleDeps {
  ctx: Context
  config: Config
  index: ScopeCache
  registry: IndexRegistry
  /** LanceDB serves, and the database index served before: LanceDB's copy is stale. */
  databaseServedBefore(): Promise<boolean>
  forgetDatabaseCopy(): Promise<void>
  capture: CapturePipeline
  queue: KeyedQueue
  messages: MessagesPart
  knowledge: KnowledgePart
  maintenance: Maintenance
  logger: Logger
}

/** At start, dialogues interrupted this recently are read back from the message table. */
const RESTORE_DAYS = 3
/**
 * The start-up work waits this long after the start (or until someone waits for it): the messages that
 * reach a bot as it comes back are answered first, not queued behind reads of every table.
 */
const WARM_UP_AFTER_MS = 5000

/**
 * The start order, the timers, the outbox's drain and the stop order. A start does only what an
 * answer needs (the index open, its tables prepared, a stale copy emptied); the rest of the start-up
 * work runs after it, in the background, while the plugin already answers (a few seconds later, or as
 * soon as someone waits for it: `ready`, `flush`): the last run's journal
 * stored, its unfinished dialogues read back, each table's read check and the index compared with
 * what changed in the database since the last full comparison (`ready` resolves once it is done).
 */
export class Lifecycle {
  private warming?: Promise<void>
  /** Starts the start-up work now. */
  private warmUpNow?: () => void
  private readonly stopping = new AbortController()
  /** The embedded SQLite's connections this start tuned, whose file lock the stop gives back. */
  private sqlite: SQLiteConnection[] = []

  constructor(private readonly deps: LifecycleDeps) {}

  async start(): Promise<void> {
    const { index, registry } = this.deps
    this.sqlite = tuneSqlite(this.deps.ctx, this.deps.logger)
    await index.open()
    await registry.prepare()
    // the database index served while LanceDB could not: LanceDB's copy lacks what was said and keeps what was erased since
    if ((await this.deps.databaseServedBefore()) && (await registry.resetAll())) await this.deps.forgetDatabaseCopy()
    this.startTimers()
    const due = new Promise<void>((resolve) => {
      this.warmUpNow = resolve
      this.deps.ctx.setTimeout(resolve, WARM_UP_AFTER_MS)
    })
    this.warming = due.then(() => this.warmUp(this.stopping.signal))
  }

  /** Resolves once the start-up work after the start is done (or given up at a stop), starting it now if it waits. Never rejects. */
  ready(): Promise<void> {
    this.warmUpNow?.()
    return this.warming ?? Promise.resolve()
  }

  private async warmUp(signal: AbortSignal): Promise<void> {
    const { capture, registry, logger: log } = this.deps
    if (signal.aborted) return
    // the journal first: the dialogues read back next may end in what it held
    await capture.replayJournal().catch((error) => {
      log.warn('could not store the messages the last run left in its journal, will try at the next start: %s', (error as Error).message)
    })
    if (signal.aborted) return
    await capture.restore(new Date(Date.now() - RESTORE_DAYS * 86_400_000)).catch((error) => {
      log.warn('could not read back the dialogues that wait to be memorised: %s', (error as Error).message)
    })
    if (signal.aborted) return
    await registry.verify(signal)
    await registry.reconcileChanged(signal)
    if (!signal.aborted) await this.drainOutbox()
  }

  async stop(): Promise<void> {
    const { capture, queue, messages, index } = this.deps
    // what waits to be memorised is dropped first: the watermarks bring it back at the next start, and
    // no job meets a database already gone
    capture.stop()
    queue.clear()
    // the start-up work still under way ends after its current step; what it left is done at the next start
    this.stopping.abort()
    this.warmUpNow?.()
    // at once: Koishi's stop resolves before what follows has run, and a restart may open the file then
    releaseSqlite(this.sqlite, this.deps.logger)
    await this.warming
    await capture.flush()
    await messages.index.flush()
    await queue.idle()
    await messages.store.settled()
    await index.close()
  }

  /** Carries out the index work waiting in the outbox (one drain at a time). Never throws. */
  async drainOutbox(): Promise<DrainResult> {
    const { ctx, registry, logger: log } = this.deps
    try {
      const result = await registry.drain()
      if (result.indexed) log.info('indexed %d waiting memories', result.indexed)
      return result
    } catch (error) {
      // the database itself failed: try again on the next round (at shutdown, say nothing)
      if (ctx.scope.isActive) log.warn('could not read the outbox: %s', (error as Error).message)
      return { indexed: 0, pending: true }
    }
  }

  private startTimers(): void {
    const { ctx, config, registry, capture, maintenance, knowledge, logger: log } = this.deps
    startTimers(
      ctx,
      {
        retryIntervalSeconds: config.store.retryIntervalSeconds,
        closeIntervalMinutes: config.topics.closeIntervalMinutes,
        summaryIntervalMinutes: config.summaries.enabled ? config.summaries.scheduleIntervalMinutes : 0,
        evolutionHour: config.group.timer ? config.group.hour : undefined,
        quietSeconds: config.memorize.enabled ? shortestQuiet(config.memorize.quietSeconds, config.memorize.privateQuietSeconds) : 0,
      },
      {
        drainOutbox: () => void this.drainOutbox(),
        closeIdleTopics: () => void maintenance.closeIdleTopics(),
        summarizeTopics: () => maintenance.summarizeTopics(),
        evolveGroups: () => void maintenance.evolveDueGroups(),
        endQuietDialogues: () => capture.sweep(),
        reconcileIndexes: () => void registry.reconcile(this.stopping.signal).then(() => this.drainOutbox()),
        expireReviews: () => void maintenance.expireReviews(),
        // the same hourly timer promotes hot mid-term topics into long-term knowledge
        consolidateProfiles: () =>
          void knowledge.profiles
            .consolidateDue()
            .catch((error: Error) => log.warn('consolidating profiles failed: %s', error.message))
            .then(() => maintenance.promoteHotTopics()),
      },
    )
  }
}

/** The shorter of the two quiet times that are on (0 when neither is). */
function shortestQuiet(...seconds: number[]): number {
  const on = seconds.filter((value) => value > 0)
  return on.length ? Math.min(...on) : 0
}
