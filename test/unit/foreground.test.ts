import { describe, expect, it } from 'vitest'
import { Foreground } from '../../src/core/foreground'
import { KeyedQueue } from '../../src/core/keyed-queue'
import { Counters } from '../../src/core/observability'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('Foreground', () => {
  it('lets background work through at once when no read is in flight', async () => {
    const foreground = new Foreground(1000)
    const began = Date.now()
    await foreground.clear()
    expect(Date.now() - began).toBeLessThan(50)
  })

  it('holds background work until the reads in flight end', async () => {
    const foreground = new Foreground(10_000)
    const order: string[] = []
    const read = foreground.during(async () => {
      await sleep(30)
      order.push('read')
    })
    expect(foreground.reads).toBe(1)
    await foreground.clear().then(() => order.push('background'))
    await read
    expect(order).toEqual(['read', 'background'])
    expect(foreground.reads).toBe(0)
  })

  it('never holds background work longer than its bound, however many reads overlap', async () => {
    const foreground = new Foreground(40)
    let reading = true
    // two readers whose reads overlap: some read is always in flight
    const reader = async (offset: number) => {
      await sleep(offset)
      while (reading) await foreground.during(() => sleep(10))
    }
    const reads = Promise.all([reader(0), reader(5)])
    await sleep(7)
    const began = Date.now()
    await foreground.clear()
    const waited = Date.now() - began
    reading = false
    await reads
    expect(waited).toBeGreaterThanOrEqual(35)
    expect(waited).toBeLessThan(400)
  })

  it('counts a read that fails as ended', async () => {
    const foreground = new Foreground(10_000)
    await expect(foreground.during(() => Promise.reject(new Error('down')))).rejects.toThrow('down')
    expect(foreground.reads).toBe(0)
  })

  it('makes a queue start its next job only once the reads in flight are done', async () => {
    const foreground = new Foreground(10_000)
    const queue = new KeyedQueue({
      limit: 10,
      concurrency: 2,
      counters: new Counters(),
      onError: () => undefined,
      gate: () => foreground.clear(),
    })
    const order: string[] = []
    const read = foreground.during(async () => {
      await sleep(30)
      order.push('read')
    })
    queue.push('memorize', async () => void order.push('job'))
    await Promise.all([read, queue.idle()])
    expect(order).toEqual(['read', 'job'])
  })
})
