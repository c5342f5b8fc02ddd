import { describe, expect, it } from 'vitest'
import { DEFAULT_MEMORY_MB, memoryMB } from '../../src/config'
import { ByteLru } from '../../src/core/lru'
import { BUDGET_SHARES, MemoryBudget, stringBytes } from '../../src/core/memory-budget'
import { RowCache } from '../../src/messages/row-cache'
import { rowBytes } from '../../src/messages/channel-rows'
import { message } from '../fakes/message-rows'

describe('MemoryBudget', () => {
  it('hands each consumer its share, never more than the whole', () => {
    const budget = new MemoryBudget(100 * 2 ** 20)
    const shares = Object.values(BUDGET_SHARES).reduce((sum, share) => sum + share, 0)
    expect(shares).toBeLessThanOrEqual(1 + 1e-9)
    expect(budget.capOf('scopes')).toBe(40 * 2 ** 20)
    expect(budget.claim('channels', () => ({ bytes: 3, entries: 1 }))).toBe(20 * 2 ** 20)
    const total = (Object.keys(BUDGET_SHARES) as (keyof typeof BUDGET_SHARES)[]).reduce((sum, name) => sum + budget.capOf(name), 0)
    expect(total).toBeLessThanOrEqual(budget.bytes)
  })

  it('reports what each consumer holds, and the sum', () => {
    const budget = new MemoryBudget(2 ** 20)
    budget.claim('scopes', () => ({ bytes: 1000, entries: 2 }))
    budget.claim('terms', () => ({ bytes: 24, entries: 1 }))
    const report = budget.report()
    expect(report.budgetBytes).toBe(2 ** 20)
    expect(report.usedBytes).toBe(1024)
    expect(report.consumers.find((use) => use.name === 'scopes')).toEqual({
      name: 'scopes',
      capBytes: Math.floor(0.4 * 2 ** 20),
      bytes: 1000,
      entries: 2,
    })
    // a consumer not claimed holds nothing
    expect(report.consumers.find((use) => use.name === 'rerank')).toMatchObject({ bytes: 0, entries: 0 })
    expect(report.consumers.map((use) => use.name)).toEqual(Object.keys(BUDGET_SHARES))
  })

  it('refuses a share claimed twice and a budget that is no number of bytes', () => {
    const budget = new MemoryBudget(1000)
    budget.claim('rows', () => ({ bytes: 0, entries: 0 }))
    expect(() => budget.claim('rows', () => ({ bytes: 0, entries: 0 }))).toThrow(/claimed already/)
    expect(() => new MemoryBudget(-1)).toThrow(RangeError)
    expect(() => new MemoryBudget(Number.NaN)).toThrow(RangeError)
  })

  it('gives every consumer 0 with a budget of 0', () => {
    const budget = new MemoryBudget(0)
    for (const name of Object.keys(BUDGET_SHARES) as (keyof typeof BUDGET_SHARES)[]) expect(budget.capOf(name)).toBe(0)
  })
})

describe('store.memoryMB', () => {
  it('is the setting when given, else an old cacheMB with its quarter more, else the default', () => {
    expect(memoryMB({ memoryMB: 64 })).toBe(64)
    expect(memoryMB({ memoryMB: 0, cacheMB: 4000 })).toBe(0)
    expect(memoryMB({ cacheMB: 400 })).toBe(500)
    expect(memoryMB({ cacheMB: 0 })).toBe(0)
    expect(memoryMB({})).toBe(DEFAULT_MEMORY_MB)
  })
})

describe('ByteLru', () => {
  const sized = (cap: number) => new ByteLru<string>(cap, (value) => stringBytes(value))
  const entry = (key: string, value: string) => 64 + stringBytes(key) + stringBytes(value)

  it('drops the least recently used entries past its bytes, a read counting as a use', () => {
    const cap = 3 * entry('a', 'x'.repeat(100)) + 10
    const lru = sized(cap)
    for (const key of ['a', 'b', 'c']) lru.set(key, 'x'.repeat(100))
    expect(lru.held().entries).toBe(3)
    expect(lru.get('a')).toBeDefined()
    lru.set('d', 'x'.repeat(100))
    expect(['a', 'b', 'c', 'd'].filter((key) => lru.get(key) !== undefined)).toEqual(['a', 'c', 'd'])
    expect(lru.held().bytes).toBeLessThanOrEqual(cap)
  })

  it('makes room for a big entry by dropping as many as it takes, and keeps none larger than its cap', () => {
    const lru = sized(1000)
    for (const key of ['a', 'b', 'c', 'd']) lru.set(key, 'x'.repeat(100))
    lru.set('big', 'y'.repeat(700))
    expect(lru.get('big')).toBeDefined()
    // four entries of 208 bytes and one of 808 do not fit in 1000: all four go
    expect(['a', 'b', 'c', 'd'].filter((key) => lru.get(key) !== undefined)).toEqual([])
    expect(lru.held().bytes).toBeLessThanOrEqual(1000)
    lru.set('huge', 'z'.repeat(2000))
    expect(lru.get('huge')).toBeUndefined()
    // a value set anew replaces the old one's bytes
    lru.set('big', 'small')
    expect(lru.held()).toEqual({ bytes: entry('big', 'small'), entries: 1 })
  })

  it('keeps nothing with a cap of 0', () => {
    const lru = sized(0)
    lru.set('a', 'x')
    expect(lru.get('a')).toBeUndefined()
    expect(lru.held()).toEqual({ bytes: 0, entries: 0 })
  })
})

describe('RowCache', () => {
  const row = (id: string, content = 'hello there') => message({ messageId: id, userId: 'ann', content, at: 0 })

  it('keeps rows within its bytes, the least recently used leaving first', () => {
    const one = rowBytes(row('m1'))
    const cache = new RowCache(Math.floor(2.5 * one))
    cache.keep([row('m1'), row('m2')])
    cache.get(row('m1').id)
    cache.keep([row('m3')])
    expect([row('m1'), row('m2'), row('m3')].map((r) => Boolean(cache.get(r.id)))).toEqual([true, false, true])
    expect(cache.held()).toEqual({ bytes: 2 * one, entries: 2 })
    cache.drop([row('m1').id])
    expect(cache.held()).toEqual({ bytes: one, entries: 1 })
  })

  it('keeps no row with a cap of 0', () => {
    const cache = new RowCache(0)
    cache.keep([row('m1')])
    expect(cache.get(row('m1').id)).toBeUndefined()
    expect(cache.held().bytes).toBe(0)
  })
})
