import type { CircuitBreakerPolicy, IBreaker } from 'cockatiel'
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel'
import type { Counters, Logger } from '../core/observability'
import type { IndexState } from './vector-index'
import { errorLine, IndexUnavailableError } from './lance-errors'

/** A ConsecutiveBreaker that can be told to open on the next failure (a failed connect is not transient). */
class IndexBreaker implements IBreaker {
  private readonly inner: ConsecutiveBreaker
  tripNext = false
  constructor(threshold: number) {
    this.inner = new ConsecutiveBreaker(threshold)
  }
  get state() {
    return this.inner.state
  }
  set state(value: number) {
    this.inner.state = value
  }
  success() {
    this.tripNext = false
    this.inner.success()
  }
  failure() {
    const opened = this.inner.failure()
    if (this.tripNext) {
      this.tripNext = false
      return true
    }
    return opened
  }
}

interface TableBreaker {
  impl: IndexBreaker
  policy: CircuitBreakerPolicy
  openedAt: number
  /** The outage was logged (once per outage). */
  outage: boolean
}

export interface TableBreakersOptions {
  /** The LanceDB directory, named in logs and errors. */
  dir: string
  logger: Logger
  counters?: Counters
  /** Consecutive failures that open a breaker. */
  threshold: number
  halfOpenAfterMs: number
  /** Whether the connection to the store is open. */
  connected: () => boolean
  /** Opens the connection to the store. */
  connect: () => Promise<unknown>
  /** Called as the breaker of `table` opens, with the error that opened it (none when it was isolated). */
  onBreak: (table: string, cause: unknown) => void
}

/** One breaker per table (a damaged table never takes the others down); `''` is the store itself. */
export class TableBreakers {
  private readonly breakers = new Map<string, TableBreaker>()

  constructor(private readonly options: TableBreakersOptions) {}

  /** The worst state of any table's breaker. */
  get state(): Exclude<IndexState, 'uninitialised'> {
    const states = [...this.breakers.values()].map((breaker) => breaker.policy.state)
    if (states.some((state) => state === CircuitState.Open || state === CircuitState.Isolated)) return 'open'
    if (states.includes(CircuitState.HalfOpen)) return 'half-open'
    return 'ready'
  }

  /**
   * Runs one LanceDB operation: connecting goes through the store's breaker (a folder that cannot be
   * opened is one outage, logged once), the operation through its table's.
   */
  async execute<T>(table: string, fn: () => Promise<T>): Promise<T> {
    const store = this.of('')
    const breaker = this.of(table)
    try {
      if (!this.options.connected() || store.policy.state !== CircuitState.Closed) await store.policy.execute(() => this.options.connect())
      if (!table) return await fn()
      return await breaker.policy.execute(fn)
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw this.unavailable(store.policy.state === CircuitState.Closed ? table : '')
      throw error
    }
  }

  /** Rejects at once while the table's breaker is open, instead of waiting in a write queue to find out. */
  rejectIfOpen(table: string) {
    for (const name of table ? ['', table] : ['']) {
      const breaker = this.breakers.get(name)
      if (!breaker) continue
      const state = breaker.policy.state
      if (state === CircuitState.Isolated) throw this.unavailable(name)
      if (state === CircuitState.Open && Date.now() - breaker.openedAt < this.options.halfOpenAfterMs) throw this.unavailable(name)
    }
  }

  /** Opens the store's breaker on its next failure rather than after `threshold` of them. */
  tripStoreNext() {
    this.of('').impl.tripNext = true
  }

  private of(table: string): TableBreaker {
    let breaker = this.breakers.get(table)
    if (breaker) return breaker
    const { dir, logger, counters, halfOpenAfterMs } = this.options
    const impl = new IndexBreaker(this.options.threshold)
    const policy = circuitBreaker(handleAll, { halfOpenAfter: halfOpenAfterMs, breaker: impl })
    breaker = { impl, policy, openedAt: 0, outage: false }
    this.breakers.set(table, breaker)
    const name = table || dir
    policy.onFailure(({ reason }) => {
      counters?.inc('index.failure')
      if (!breaker!.outage && 'error' in reason) logger.debug('LanceDB call on %s failed: %s', name, errorLine(reason.error))
    })
    policy.onBreak((reason) => {
      breaker!.openedAt = Date.now()
      const why = 'error' in reason ? reason.error : undefined
      this.options.onBreak(table, why)
      if (breaker!.outage) {
        logger.debug('LanceDB %s still unavailable; next probe in %d ms', name, halfOpenAfterMs)
        return
      }
      breaker!.outage = true
      counters?.inc('index.breaker-open')
      logger.warn(
        'LanceDB %s unavailable (%s); memory search degrades, writes wait in the outbox; retrying every %d s',
        table ? `table ${table}` : `index at ${dir}`,
        why ? errorLine(why) : 'isolated',
        Math.round(halfOpenAfterMs / 1000),
      )
    })
    policy.onReset(() => {
      if (breaker!.outage) logger.info('LanceDB %s is available again', table ? `table ${table}` : `index at ${dir}`)
      breaker!.outage = false
    })
    return breaker
  }

  private unavailable(table: string) {
    const breaker = this.of(table)
    const last = breaker.policy.lastFailure
    const cause = last && 'error' in last ? last.error : undefined
    const retry = Math.max(0, this.options.halfOpenAfterMs - (Date.now() - breaker.openedAt))
    return new IndexUnavailableError(
      `LanceDB ${table ? `table ${table}` : 'index'} at ${this.options.dir} is unavailable (circuit open${cause ? `: ${errorLine(cause)}` : ''}); next probe in ${retry} ms`,
      { cause },
    )
  }
}
