import type { Counters } from '../core/observability'

type Job = () => Promise<unknown>

/**
 * A bounded background queue. Jobs with the same key run one after another; different keys run
 * side by side up to `concurrency`. When `limit` jobs wait, a new one is dropped and counted: the
 * message path never waits for memory work.
 */
export class KeyedQueue {
  private waiting: { key: string; job: Job }[] = []
  private running = new Set<string>()
  private idleWaiters: (() => void)[] = []

  constructor(
    private options: {
      limit: number
      concurrency: number
      counters: Counters
      onError(error: unknown): void
      /** Awaited before each job starts (e.g. `Foreground.clear`: replies' reads go first). */
      gate?: () => Promise<void>
    },
  ) {}

  get size() {
    return this.waiting.length + this.running.size
  }

  push(key: string, job: Job): boolean {
    if (this.waiting.length >= this.options.limit) {
      this.options.counters.inc('queue.dropped')
      return false
    }
    this.waiting.push({ key, job })
    this.pump()
    return true
  }

  /** Resolves once nothing waits or runs. */
  idle(): Promise<void> {
    if (!this.size) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** Forgets jobs that have not started. */
  clear() {
    this.waiting = []
    this.settle()
  }

  private pump() {
    while (this.running.size < this.options.concurrency) {
      const index = this.waiting.findIndex((entry) => !this.running.has(entry.key))
      if (index < 0) break
      const [{ key, job }] = this.waiting.splice(index, 1)
      this.running.add(key)
      const { gate } = this.options
      ;(gate ? gate().then(job) : job())
        .catch((error) => {
          this.options.counters.inc('queue.failed')
          this.options.onError(error)
        })
        .finally(() => {
          this.running.delete(key)
          this.pump()
          this.settle()
        })
    }
  }

  private settle() {
    if (this.size) return
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }
}
