/**
 * The reads a reply waits for, so background work can step aside: everything shares one event loop,
 * and a read's every step waits behind whatever is queued on it. Background work asks `clear()` before
 * each job it starts; it waits while reads are in flight, for `maxWaitMs` at most, so a steady stream
 * of reads slows the background but never stops it.
 */
export class Foreground {
  private active = 0
  private waiters: (() => void)[] = []

  constructor(private readonly maxWaitMs = 50) {}

  get reads(): number {
    return this.active
  }

  /** Runs `read` as a foreground read. */
  async during<T>(read: () => Promise<T>): Promise<T> {
    this.active++
    try {
      return await read()
    } finally {
      if (--this.active === 0) for (const resolve of this.waiters.splice(0)) resolve()
    }
  }

  /** Resolves at once when no read is in flight, else when the last one ends or `maxWaitMs` has passed. */
  clear(): Promise<void> {
    if (!this.active) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== done)
        resolve()
      }, this.maxWaitMs)
      const done = () => {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(done)
    })
  }
}
