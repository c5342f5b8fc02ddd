import type { CircuitBreakerPolicy, RetryPolicy, TimeoutPolicy } from 'cockatiel'
import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  handleWhen,
  isBrokenCircuitError,
  retry,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
} from 'cockatiel'
import type { ChatOptions, ChatReply, ChatTurn, Embedder, EmbedOptions, GenerateOptions, LLM } from './types'
import { ProviderError } from './types'
import type { Logger } from '../core/observability'
import { Counters } from '../core/observability'

/** The call took longer than the configured timeout (its request was aborted). */
export class ProviderTimeoutError extends ProviderError {
  constructor(
    provider: string,
    readonly timeoutMs: number,
  ) {
    super(`${provider}: no answer within ${timeoutMs} ms`, provider, undefined, false)
    this.name = 'ProviderTimeoutError'
  }
}

/** The circuit breaker is open: the provider failed repeatedly and is not called until it half-opens. */
export class CircuitOpenError extends ProviderError {
  constructor(provider: string) {
    super(`${provider}: circuit open after repeated failures, call skipped`, provider, undefined, false)
    this.name = 'CircuitOpenError'
  }
}

export type BreakerState = 'ready' | 'open' | 'half-open'

export interface ResilienceOptions {
  /** Counter prefix: counters are `<label>.timeout`, `.retry`, `.failure`, `.breaker-open`, `.rejected`. */
  label?: string
  /** Per-attempt timeout (aggressive: the caller stops waiting). Default 30 000 ms. */
  timeoutMs?: number
  /** Retries after the first attempt, for retryable `ProviderError`s (429, 5xx). Default 2. */
  maxRetries?: number
  /** First backoff delay; later ones grow exponentially with jitter. Default 500 ms. */
  initialDelayMs?: number
  /** Longest backoff delay. Default 10 000 ms. */
  maxDelayMs?: number
  /**
   * Also retry timed-out attempts. Off by default: a slow provider would otherwise multiply the
   * latency of every call by the number of attempts.
   */
  retryTimeouts?: boolean
  /** Consecutive failed attempts that open the breaker. Default 5. */
  breakerThreshold?: number
  /** How long the breaker stays open before one probe call is let through. Default 30 000 ms. */
  halfOpenAfterMs?: number
  logger?: Logger
}

/**
 * cockatiel 3.2.1's own `isTaskCancelledError` tests for the bulkhead flag by mistake and never
 * matches a timeout, so check the flag the error really carries.
 */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && 'isTaskCancelledError' in error
}

/**
 * Failures that say the provider (not this particular request) is in trouble, and so count towards
 * opening the breaker: timeouts, network errors, 5xx, 429, and authentication failures (401/403,
 * which fail every call until the configuration changes). Other 4xx answers (a request too long, a
 * bad parameter) concern one request and leave the breaker alone.
 */
function isProviderTrouble(error: Error): boolean {
  if (isTimeout(error)) return true
  if (error instanceof ProviderError && error.status !== undefined && error.status >= 400 && error.status < 500) {
    return error.status === 401 || error.status === 403 || error.status === 408 || error.status === 429
  }
  return true
}

/** Timeout, retry with backoff and a circuit breaker around calls to one provider (cockatiel 3). */
export class Resilience {
  readonly label: string
  private readonly timeoutMs: number
  private readonly retryPolicy: RetryPolicy
  private readonly breaker: CircuitBreakerPolicy
  private readonly timeoutPolicy: TimeoutPolicy

  constructor(
    readonly provider: string,
    options: ResilienceOptions = {},
    private readonly counters = new Counters(),
  ) {
    this.label = options.label ?? 'provider'
    this.timeoutMs = options.timeoutMs ?? 30_000
    const retryTimeouts = options.retryTimeouts ?? false
    const logger = options.logger
    const halfOpenAfter = options.halfOpenAfterMs ?? 30_000
    const threshold = options.breakerThreshold ?? 5

    this.timeoutPolicy = timeout(this.timeoutMs, TimeoutStrategy.Aggressive)
    this.breaker = circuitBreaker(handleWhen(isProviderTrouble), {
      halfOpenAfter,
      breaker: new ConsecutiveBreaker(threshold),
    })
    this.retryPolicy = retry(
      handleWhen((error) => (error instanceof ProviderTimeoutError ? retryTimeouts : error instanceof ProviderError && error.retryable)),
      {
        maxAttempts: options.maxRetries ?? 2,
        backoff: new ExponentialBackoff({ initialDelay: options.initialDelayMs ?? 500, maxDelay: options.maxDelayMs ?? 10_000 }),
      },
    )

    this.timeoutPolicy.onTimeout(() => this.counters.inc(`${this.label}.timeout`))
    this.retryPolicy.onRetry(({ delay, attempt }) => {
      this.counters.inc(`${this.label}.retry`)
      logger?.debug('%s: %s failed, retry %d in %d ms', this.label, this.provider, attempt, Math.round(delay))
    })
    this.breaker.onBreak(() => {
      this.counters.inc(`${this.label}.breaker-open`)
      logger?.warn('%s: %s failed %d times in a row, pausing calls for %d ms', this.label, this.provider, threshold, halfOpenAfter)
    })
    this.breaker.onReset(() => logger?.info('%s: %s answers again, breaker closed', this.label, this.provider))
  }

  breakerState(): BreakerState {
    switch (this.breaker.state) {
      case CircuitState.Closed:
        return 'ready'
      case CircuitState.HalfOpen:
        return 'half-open'
      default:
        return 'open' // Open, Isolated
    }
  }

  /** Runs one provider call under retry → breaker → timeout. Errors come out as `ProviderError`s where they are ours. */
  async execute<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await this.retryPolicy.execute(async () => {
        try {
          return await this.breaker.execute(() =>
            this.timeoutPolicy.execute(async (_context, signal) => {
              try {
                return await fn(signal)
              } catch (error) {
                // the request failed because the timeout aborted it: that is the timeout, not its own error
                throw signal.aborted ? new TaskCancelledError() : error
              }
            }),
          )
        } catch (error) {
          if (isTimeout(error)) throw new ProviderTimeoutError(this.provider, this.timeoutMs)
          if (isBrokenCircuitError(error) || error instanceof BrokenCircuitError) throw new CircuitOpenError(this.provider)
          throw error
        }
      })
    } catch (error) {
      if (error instanceof CircuitOpenError) this.counters.inc(`${this.label}.rejected`)
      else this.counters.inc(`${this.label}.failure`)
      throw error
    }
  }
}

/** An `LLM` behind timeout, retry and a circuit breaker. Same `id` as the model it wraps. */
export class ResilientLLM implements LLM {
  readonly id: string
  readonly resilience: Resilience
  /** The wrapped model's `chat` behind the same policies; absent when the model has none. */
  declare readonly chat?: (turns: ChatTurn[], options?: ChatOptions) => Promise<ChatReply>

  constructor(
    readonly inner: LLM,
    options: ResilienceOptions = {},
    counters?: Counters,
  ) {
    this.id = inner.id
    this.resilience = new Resilience(inner.id, { label: 'provider.llm', ...options }, counters)
    const chat = inner.chat?.bind(inner)
    if (chat)
      this.chat = (turns, chatOptions) =>
        this.resilience.execute((signal) => chat(turns, { ...chatOptions, signal: anySignal(chatOptions?.signal, signal) }))
  }

  generate(prompt: string, options?: GenerateOptions): Promise<string> {
    return this.resilience.execute((signal) => this.inner.generate(prompt, { ...options, signal: anySignal(options?.signal, signal) }))
  }

  breakerState(): BreakerState {
    return this.resilience.breakerState()
  }
}

/** An `Embedder` behind timeout, retry and a circuit breaker. Same `id` and `dims` as the one it wraps. */
export class ResilientEmbedder implements Embedder {
  readonly id: string
  readonly dims: number
  readonly lexical?: boolean
  readonly resilience: Resilience

  constructor(
    readonly inner: Embedder,
    options: ResilienceOptions = {},
    counters?: Counters,
  ) {
    this.id = inner.id
    this.dims = inner.dims
    this.lexical = inner.lexical
    this.resilience = new Resilience(inner.id, { label: 'provider.embedder', ...options }, counters)
  }

  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([])
    return this.resilience.execute((signal) => this.inner.embed(texts, { signal: anySignal(options?.signal, signal) }))
  }

  breakerState(): BreakerState {
    return this.resilience.breakerState()
  }
}

/** Wraps an LLM with timeout, retry (429/5xx) and a circuit breaker. Counters default to the `provider.llm.` prefix. */
export function resilientLLM(llm: LLM, options?: ResilienceOptions, counters?: Counters): ResilientLLM {
  return new ResilientLLM(llm, options, counters)
}

/** Wraps an embedder with timeout, retry (429/5xx) and a circuit breaker. Counters default to the `provider.embedder.` prefix. */
export function resilientEmbedder(embedder: Embedder, options?: ResilienceOptions, counters?: Counters): ResilientEmbedder {
  return new ResilientEmbedder(embedder, options, counters)
}

/** The timeout's signal, or one that aborts when either the caller's or the timeout's does. */
function anySignal(caller: AbortSignal | undefined, timeout: AbortSignal): AbortSignal {
  return caller ? AbortSignal.any([caller, timeout]) : timeout
}
