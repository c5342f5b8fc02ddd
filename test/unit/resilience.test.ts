import { describe, expect, it } from 'vitest'
import { CircuitOpenError, ProviderTimeoutError, resilientEmbedder, resilientLLM } from '../../src/providers/resilience'
import type { Embedder } from '../../src/providers/types'
import { ProviderError } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder, unit } from '../fakes/embedder'
import { FakeLLM } from '../fakes/llm'

const fast = { initialDelayMs: 1, maxDelayMs: 2 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('resilientLLM', () => {
  it('passes answers and the inner id through', async () => {
    const llm = resilientLLM(new FakeLLM(['hello'], { id: 'scripted-llm' }), fast)
    expect(llm.id).toBe('scripted-llm')
    await expect(llm.generate('hi')).resolves.toBe('hello')
    expect(llm.breakerState()).toBe('ready')
  })

  it('retries 429 and 5xx with backoff and counts the retries', async () => {
    const inner = new FakeLLM([new ProviderError('busy', 'x', 429), new ProviderError('oops', 'x', 503), 'ok'])
    const counters = new Counters()
    const llm = resilientLLM(inner, { ...fast, maxRetries: 2 }, counters)
    await expect(llm.generate('p')).resolves.toBe('ok')
    expect(inner.calls.length).toBe(3)
    expect(counters.get('provider.llm.retry')).toBe(2)
    expect(counters.get('provider.llm.failure')).toBe(0)
  })

  it('gives up after maxRetries and counts one failure', async () => {
    const inner = new FakeLLM([new ProviderError('a', 'x', 500), new ProviderError('b', 'x', 500), 'never'])
    const counters = new Counters()
    const llm = resilientLLM(inner, { ...fast, maxRetries: 1 }, counters)
    await expect(llm.generate('p')).rejects.toThrow('b')
    expect(inner.calls.length).toBe(2)
    expect(counters.get('provider.llm.failure')).toBe(1)
  })

  it('does not retry non-retryable errors (400, 401, plain errors)', async () => {
    for (const error of [new ProviderError('bad request', 'x', 400), new ProviderError('bad key', 'x', 401), new Error('boom')]) {
      const inner = new FakeLLM([error, 'ok'])
      const llm = resilientLLM(inner, fast)
      await expect(llm.generate('p')).rejects.toBe(error)
      expect(inner.calls.length).toBe(1)
    }
  })

  it('times out a slow call without retrying it by default', async () => {
    const inner = new FakeLLM([{ delayMs: 200, value: 'late' }, 'fast'])
    const counters = new Counters()
    const llm = resilientLLM(inner, { ...fast, timeoutMs: 20 }, counters)
    const started = Date.now()
    const error = await llm.generate('p').catch((e) => e)
    expect(error).toBeInstanceOf(ProviderTimeoutError)
    expect(error).toBeInstanceOf(ProviderError)
    expect(Date.now() - started).toBeLessThan(150)
    expect(inner.calls.length).toBe(1)
    expect(counters.get('provider.llm.timeout')).toBe(1)
    expect(counters.get('provider.llm.failure')).toBe(1)
  })

  it('aborts the request of a call it stopped waiting for', async () => {
    let seen: AbortSignal | undefined
    const inner = new FakeLLM(
      ({ options }) =>
        new Promise((_, reject) => {
          seen = options?.signal
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted')))
        }),
      { id: 'hanging' },
    )
    const error = await resilientLLM(inner, { ...fast, timeoutMs: 20 })
      .generate('p')
      .catch((e) => e)
    expect(error).toBeInstanceOf(ProviderTimeoutError)
    expect(seen?.aborted).toBe(true)
  })

  it('aborts an embedding request on timeout, and when the caller aborts', async () => {
    const signals: AbortSignal[] = []
    const inner: Embedder = {
      id: 'hanging',
      dims: 2,
      embed: (_texts, options) =>
        new Promise((_, reject) => {
          signals.push(options!.signal!)
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    }
    const embedder = resilientEmbedder(inner, { ...fast, timeoutMs: 20 })
    await expect(embedder.embed(['a'])).rejects.toBeInstanceOf(ProviderTimeoutError)
    expect(signals[0].aborted).toBe(true)
    const caller = new AbortController()
    const pending = embedder.embed(['b'], { signal: caller.signal }).catch((e) => e)
    caller.abort()
    await pending
    expect(signals[1].aborted).toBe(true)
  })

  it('retries timeouts when asked to', async () => {
    const inner = new FakeLLM([{ delayMs: 200, value: 'late' }, 'fast'])
    const llm = resilientLLM(inner, { ...fast, timeoutMs: 20, retryTimeouts: true })
    await expect(llm.generate('p')).resolves.toBe('fast')
    expect(inner.calls.length).toBe(2)
  })

  it('opens the breaker after consecutive failures, short-circuits, then half-opens and closes', async () => {
    const inner = new FakeLLM([
      new ProviderError('down', 'x', 503),
      new ProviderError('down', 'x', 503),
      { delayMs: 30, value: 'back' },
      'again',
    ])
    const counters = new Counters()
    const llm = resilientLLM(inner, { ...fast, maxRetries: 0, breakerThreshold: 2, halfOpenAfterMs: 40, label: 'gemini' }, counters)
    await expect(llm.generate('p')).rejects.toThrow('down')
    expect(llm.breakerState()).toBe('ready')
    await expect(llm.generate('p')).rejects.toThrow('down')
    expect(llm.breakerState()).toBe('open')
    expect(counters.get('gemini.breaker-open')).toBe(1)

    await expect(llm.generate('p')).rejects.toBeInstanceOf(CircuitOpenError)
    expect(inner.calls.length).toBe(2)
    expect(counters.get('gemini.rejected')).toBe(1)

    await sleep(50)
    const probe = llm.generate('p')
    await sleep(5)
    expect(llm.breakerState()).toBe('half-open')
    await expect(probe).resolves.toBe('back')
    expect(llm.breakerState()).toBe('ready')
    await expect(llm.generate('p')).resolves.toBe('again')
  })

  it('does not let one bad request (400) open the breaker', async () => {
    const inner = new FakeLLM([
      new ProviderError('too long', 'x', 400),
      new ProviderError('too long', 'x', 400),
      new ProviderError('too long', 'x', 400),
    ])
    const llm = resilientLLM(inner, { ...fast, breakerThreshold: 2 })
    for (let i = 0; i < 3; i++) await llm.generate('p').catch(() => {})
    expect(llm.breakerState()).toBe('ready')
    expect(inner.calls.length).toBe(3)
  })

  it('stops retrying as soon as the breaker opens', async () => {
    const inner = new FakeLLM(Array.from({ length: 10 }, () => new ProviderError('down', 'x', 502)))
    const llm = resilientLLM(inner, { ...fast, maxRetries: 5, breakerThreshold: 2 })
    await expect(llm.generate('p')).rejects.toBeInstanceOf(CircuitOpenError)
    expect(inner.calls.length).toBe(2)
  })
})

describe('resilientEmbedder', () => {
  /** Fails its first `failures` calls as an overloaded provider would. */
  const flaky = (failures: number) =>
    new FakeEmbedder({
      id: 'flaky',
      dims: 3,
      vector: () => unit([1, 0, 0]),
      failures,
      error: () => new ProviderError('overloaded', 'flaky', 503),
    })

  it('keeps id and dims, retries, and counts under its own prefix', async () => {
    const inner = flaky(1)
    const counters = new Counters()
    const embedder = resilientEmbedder(inner, fast, counters)
    expect(embedder.id).toBe('flaky')
    expect(embedder.dims).toBe(3)
    const vectors = await embedder.embed(['a', 'b'])
    expect(vectors).toHaveLength(2)
    expect(counters.get('provider.embedder.retry')).toBe(1)
    expect(embedder.breakerState()).toBe('ready')
  })

  it('does not call the provider for an empty batch', async () => {
    const inner = flaky(0)
    await expect(resilientEmbedder(inner, fast).embed([])).resolves.toEqual([])
    expect(inner.calls).toBe(0)
  })
})
