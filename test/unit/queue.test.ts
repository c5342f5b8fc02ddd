import { describe, expect, it } from 'vitest'
import { KeyedQueue } from '../../src/core/keyed-queue'
import { Counters } from '../../src/core/observability'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

function queue(limit = 10, concurrency = 2) {
  const counters = new Counters()
  const errors: unknown[] = []
  return { q: new KeyedQueue({ limit, concurrency, counters, onError: (e) => errors.push(e) }), counters, errors }
}

describe('KeyedQueue', () => {
  it('runs jobs of one key in order, one at a time', async () => {
    const { q } = queue()
    const log: string[] = []
    for (const n of [1, 2, 3]) {
      q.push('a', async () => {
        log.push(`start ${n}`)
        await tick()
        log.push(`end ${n}`)
      })
    }
    await q.idle()
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('runs different keys side by side up to the concurrency', async () => {
    const { q } = queue(10, 2)
    let running = 0
    let peak = 0
    for (const key of ['a', 'b', 'c', 'd']) {
      q.push(key, async () => {
        peak = Math.max(peak, ++running)
        await tick()
        running--
      })
    }
    await q.idle()
    expect(peak).toBe(2)
  })

  it('drops and counts jobs past the limit instead of blocking', async () => {
    const { q, counters } = queue(2, 1)
    const ran: number[] = []
    const accepted = [1, 2, 3, 4].map((n) =>
      q.push('k', async () => {
        ran.push(n)
        await tick()
      }),
    )
    expect(accepted).toEqual([true, true, true, false])
    await q.idle()
    expect(ran).toEqual([1, 2, 3])
    expect(counters.get('queue.dropped')).toBe(1)
  })

  it('counts a failing job and goes on', async () => {
    const { q, counters, errors } = queue()
    q.push('k', async () => {
      throw new Error('boom')
    })
    let after = false
    q.push('k', async () => {
      after = true
    })
    await q.idle()
    expect(after).toBe(true)
    expect(counters.get('queue.failed')).toBe(1)
    expect((errors[0] as Error).message).toBe('boom')
  })

  it('idle resolves at once when empty and clear forgets waiting jobs', async () => {
    const { q } = queue(10, 1)
    await q.idle()
    let second = false
    q.push('k', tick)
    q.push('k', async () => {
      second = true
    })
    q.clear()
    await q.idle()
    expect(second).toBe(false)
  })
})
