import type * as LanceDB from '@lancedb/lancedb'
import type { Counters, Logger } from '../core/observability'
import { errorLine } from './lance-errors'
import type { SearchIndexes } from './lance-search-indexes'

export interface TableOptimizerOptions {
  logger: Logger
  counters?: Counters
  searchIndexes: SearchIndexes
  /** Optimize a table after this many write operations; 0 disables. */
  everyWrites: number
  /** Optimize tables written since the last optimize this often; 0 disables. */
  everyMs: number
  /** Versions older than this are pruned. */
  cleanupOlderThanMs: number
  /** Optimizes a table in its turn: the index's `optimize(table)`, behind the table's writes and its breaker. */
  queue: (table: string) => Promise<void>
  isClosed: () => boolean
}

/**
 * When the tables are optimized (every `everyWrites` writes, every `everyMs`, and once more to prune the
 * versions a burst of writes left), and the optimize itself.
 */
export class TableOptimizer {
  private readonly writesSince = new Map<string, number>()
  private readonly pending = new Set<string>()
  /** When each table was last optimized. */
  private readonly optimized = new Map<string, Date>()
  /** A later optimize per table, to prune the versions a burst of writes left. */
  private readonly followUps = new Map<string, NodeJS.Timeout>()
  private timer?: NodeJS.Timeout

  constructor(private readonly options: TableOptimizerOptions) {}

  start() {
    if (!this.timer && this.options.everyMs > 0) {
      this.timer = setInterval(() => this.optimizeWritten(), this.options.everyMs)
      this.timer.unref?.()
    }
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
    for (const timer of this.followUps.values()) clearTimeout(timer)
    this.followUps.clear()
    this.timer = undefined
  }

  noteWrite(table: string) {
    const writes = (this.writesSince.get(table) ?? 0) + 1
    this.writesSince.set(table, writes)
    if (this.options.everyWrites > 0 && writes >= this.options.everyWrites) this.optimizeInBackground(table)
  }

  /** The table was created empty: it has no writes to fold in. */
  noteCreated(table: string) {
    this.writesSince.set(table, 0)
  }

  optimizedAt(table: string): Date | undefined {
    return this.optimized.get(table)
  }

  /** Compacts the table, prunes its old versions and updates its indexes; run in the table's write queue. */
  async optimize(table: string, handle: LanceDB.Table) {
    const { logger, counters, cleanupOlderThanMs } = this.options
    const written = (this.writesSince.get(table) ?? 0) > 0
    this.writesSince.set(table, 0)
    const started = Date.now()
    await handle.optimize({ cleanupOlderThan: new Date(Date.now() - cleanupOlderThanMs) })
    // the versions this optimize made (and those of the writes just before it) are too young to prune
    // yet: one more pass once they are old enough, so a burst of writes leaves few versions on disk
    if (written && !this.followUps.has(table) && !this.options.isClosed()) {
      const timer = setTimeout(() => {
        this.followUps.delete(table)
        this.optimizeInBackground(table)
      }, cleanupOlderThanMs + 1000)
      timer.unref?.()
      this.followUps.set(table, timer)
    }
    await this.options.searchIndexes.ensure(handle, table, true)
    this.optimized.set(table, new Date())
    counters?.inc('index.optimize')
    logger.debug('optimized LanceDB table %s in %d ms', table, Date.now() - started)
  }

  private optimizeWritten() {
    for (const [table, writes] of this.writesSince) if (writes > 0) this.optimizeInBackground(table)
  }

  private optimizeInBackground(table: string) {
    if (this.pending.has(table) || this.options.isClosed()) return
    this.pending.add(table)
    this.options
      .queue(table)
      .catch((error) => this.options.logger.debug('background optimize of %s failed: %s', table, errorLine(error)))
      .finally(() => this.pending.delete(table))
  }
}
