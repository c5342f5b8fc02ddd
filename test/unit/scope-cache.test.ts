import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Logger } from '../../src/core/observability'
import type { Scope } from '../../src/scope'
import { ScopeError } from '../../src/scope'
import { LanceIndex } from '../../src/store/lance-index'
import { ngramTerms } from '../../src/store/ngram-terms'
import { ScopeCache } from '../../src/store/scope-cache'
import { ScopeTable } from '../../src/store/scope-table'
import type { IndexRow } from '../../src/store/vector-index'
import { ExactIndex } from '../fakes/exact-index'
import { indexRow, unitVector } from '../fakes/index-rows'
import { cosine } from '../../src/providers/vectors'

const DIMS = 8
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} }

const vec = (seed: number) => unitVector(seed, DIMS)
const row = (id: string, text: string, user: string, seed: number, extra: Partial<IndexRow> = {}) =>
  indexRow(id, text, user, seed, extra, DIMS)

describe('ngramTerms', () => {
  it('counts every character and every pair, spaces included, lowercased', () => {
    expect([...ngramTerms('Ab a')]).toEqual([
      ['a', 2],
      ['ab', 1],
      ['b', 1],
      ['b ', 1],
      [' ', 1],
      [' a', 1],
    ])
    expect([...ngramTerms('小明')]).toEqual([
      ['小', 1],
      ['小明', 1],
      ['明', 1],
    ])
  })

  it('folds as the index does: full-width forms and Latin letters with marks to ASCII, CJK kept', () => {
    expect([...ngramTerms('Ａé，ß。,')]).toEqual([
      ['a', 1],
      ['ae', 1],
      ['e', 1],
      ['e,', 1],
      [',', 2],
      [',ss', 1],
      ['ss', 1],
      ['ss。', 1],
      ['。', 1],
      ['。,', 1],
    ])
  })
})

describe('ScopeTable', () => {
  const rows = Array.from({ length: 60 }, (_, i) => row(`r${i}`, i % 3 ? `note number ${i}` : `小明喜欢火锅 ${i}`, 'u1', i + 1))

  it('finds the exact nearest rows, best first, with their cosine', () => {
    const table = new ScopeTable(DIMS, rows)
    const query = vec(12345)
    const exact = rows
      .map((r) => ({ id: r.id, similarity: cosine(query, r.vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 10)
    const hits = table.nearest(query, 10)
    expect(hits.map((h) => h.id)).toEqual(exact.map((e) => e.id))
    hits.forEach((hit, i) => expect(hit.similarity).toBeCloseTo(exact[i].similarity, 5))
    expect(hits[0]).toMatchObject({ text: rows.find((r) => r.id === hits[0].id)!.text, user_id: 'u1', platform: 'onebot' })
  })

  it('scores sparse vectors exactly through their dimensions, as rows come and go', () => {
    const dims = 64
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    // a few dimensions each, and dimension 0 in every row (read whole, not through its list)
    const sparse = (id: string) => {
      const vector = new Float32Array(dims)
      vector[0] = random()
      for (let k = 0; k < 4; k++) vector[1 + Math.floor(random() * (dims - 1))] = random() - 0.3
      return { ...row(id, `text ${id}`, 'u1', 1), vector }
    }
    const table = new ScopeTable(dims, [])
    const held = new Map<string, IndexRow>()
    // enough replacements to leave more holes than rows: the table compacts several times
    for (let i = 0; i < 2000; i++) {
      const next = sparse(`s${i % 300}`)
      table.upsert(next)
      held.set(next.id, next)
      if (i % 7 === 3) {
        const gone = `s${Math.floor(random() * 300)}`
        table.remove(gone)
        held.delete(gone)
      }
    }
    expect(table.size).toBe(held.size)
    for (let q = 0; q < 20; q++) {
      const query = sparse('query').vector
      const exact = [...held.values()]
        .map((r) => ({ id: r.id, similarity: cosine(query, r.vector) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, 15)
      const hits = table.nearest(query, 15)
      expect(hits.map((h) => h.id)).toEqual(exact.map((e) => e.id))
      hits.forEach((hit, i) => expect(hit.similarity).toBeCloseTo(exact[i].similarity, 5))
      // asked by id, a row has the similarity a search gives it; a row the scope lacks has none
      expect(table.similarity(query, [...hits.map((hit) => hit.id), 'missing'])).toEqual([...hits.map((hit) => hit.similarity), undefined])
    }
  })

  it('ranks the full-text leg by BM25: rare shared terms first, no match no hit', () => {
    const table = new ScopeTable(DIMS, [
      row('a', '小明喜欢火锅', 'u1', 1),
      row('b', '小明住在上海', 'u1', 2),
      row('c', 'Alice likes cats', 'u1', 3),
    ])
    const zero = new Float32Array(DIMS)
    expect(table.search(zero, '火锅', 10).map((h) => h.id)).toEqual(['a'])
    // '小明 火锅' shares 小, 明, 小明 with b, and the space with c
    expect(table.search(zero, '小明 火锅', 10).map((h) => h.id)).toEqual(['a', 'b', 'c'])
    expect(table.search(zero, 'zzz', 10)).toEqual([])
    // nothing to search with
    expect(table.search(zero, '?!', 10)).toEqual([])
  })

  it('fuses both legs like the store: a row first in both comes first', () => {
    const table = new ScopeTable(DIMS, rows)
    const target = rows[7]
    const hits = table.search(target.vector, target.text, 5)
    expect(hits[0].id).toBe('r7')
    expect(hits).toHaveLength(5)
  })

  it('replaces a row by id, removes rows, and compacts without losing the rest', () => {
    const table = new ScopeTable(DIMS, rows)
    table.upsert(row('r1', '全新的内容', 'u1', 999))
    expect(table.size).toBe(60)
    expect(table.search(new Float32Array(DIMS), '全新', 3)[0].id).toBe('r1')
    for (let i = 0; i < 50; i++) table.remove(`r${i}`)
    expect(table.size).toBe(10)
    expect(table.has('r3')).toBe(false)
    const left = table.nearest(vec(5), 100).map((h) => h.id)
    expect(left.sort()).toEqual(
      rows
        .slice(50)
        .map((r) => r.id)
        .sort(),
    )
    // the removed rows' terms are gone from the text leg
    expect(table.search(new Float32Array(DIMS), '全新', 3)).toEqual([])
  })

  it('counts its memory and gives it back', () => {
    const table = new ScopeTable(DIMS, [])
    const empty = table.bytes
    for (const r of rows) table.upsert(r)
    const full = table.bytes
    expect(full).toBeGreaterThan(empty + rows.length * DIMS * 4)
    for (const r of rows) table.remove(r.id)
    expect(table.bytes).toBeLessThan(full)
  })

  it('refuses a vector of another dimension', () => {
    expect(() => new ScopeTable(DIMS, [row('x', 't', 'u', 1, { vector: new Float32Array(3) })])).toThrow(RangeError)
  })
})

/** Makes the store's scope reads wait, after reading, until `release()`. */
function holdReads(store: ExactIndex) {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const read = store.scopeRows.bind(store)
  store.scopeRows = async (table, scope, limit) => {
    const rows = await read(table, scope, limit)
    await held
    return rows
  }
  return release
}

describe('ScopeCache', () => {
  let store: ExactIndex
  let cache: ScopeCache
  const u1 = { platform: 'onebot', userId: 'u1' }

  beforeEach(async () => {
    store = new ExactIndex()
    cache = new ScopeCache(store, { capBytes: 1 << 20, logger: quiet })
    await cache.prepare('facts', 'e', DIMS)
    await cache.upsert('facts', [row('a', '小明喜欢火锅', 'u1', 1), row('b', '小明住在上海', 'u1', 2), row('c', 'Bob likes tea', 'u2', 3)])
  })

  it('answers a scope from memory after its first use, and only with that scope', async () => {
    const first = await cache.search('facts', { vector: vec(1), text: '火锅', scope: u1, limit: 5 })
    expect(first.map((h) => h.id).sort()).toEqual(['a', 'b'])
    await cache.settled()
    store.down = true
    const again = await cache.search('facts', { vector: vec(1), text: '火锅', scope: u1, limit: 5 })
    expect(again[0].id).toBe('a')
    expect(again.every((h) => h.user_id === 'u1')).toBe(true)
    expect(cache.stats()).toMatchObject({ scopes: 1, rows: 2, hits: 1, misses: 1 })
    // another scope still goes to the store
    await expect(cache.nearest('facts', vec(3), { platform: 'onebot', userId: 'u2' }, 5)).rejects.toThrow('index down')
  })

  it('loads a scope warmed before its first search, so that search is answered from memory', async () => {
    cache.warm('facts', u1)
    await cache.settled()
    store.down = true
    const hits = await cache.search('facts', { vector: vec(1), text: '火锅', scope: u1, limit: 5 })
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'b'])
    expect(cache.stats()).toMatchObject({ scopes: 1, hits: 1, misses: 0 })
    // a table not prepared, or a cache turned off, loads nothing
    cache.warm('unknown', u1)
    const off = new ScopeCache(store, { capBytes: 0, logger: quiet })
    await off.prepare('facts', 'e', DIMS)
    off.warm('facts', u1)
    await Promise.all([cache.settled(), off.settled()])
    expect(cache.stats().scopes).toBe(1)
    expect(off.stats().scopes).toBe(0)
  })

  it('loads a scope a search asked for before the warmed scopes that wait, and those that wait together', async () => {
    cache = new ScopeCache(store, { capBytes: 1 << 20, logger: quiet, concurrentLoads: 1 })
    await cache.prepare('facts', 'e', DIMS)
    const reads: string[][] = []
    const read = store.scopesRows.bind(store)
    store.scopesRows = async (table, scopes, limit) => {
      reads.push(scopes.map((scope) => scope.userId ?? ''))
      return read(table, scopes, limit)
    }
    for (const user of ['w1', 'w2', 'w3']) cache.warm('facts', { platform: 'onebot', userId: user })
    await cache.search('facts', { vector: vec(1), text: '火锅', scope: u1, limit: 5 })
    await cache.settled()
    // the first warmed scope had started; the search's scope comes next, with the rest in the order warmed
    expect(reads).toEqual([['w1'], ['u1', 'w2', 'w3']])
    store.down = true
    const hits = await cache.search('facts', { vector: vec(1), text: '火锅', scope: u1, limit: 5 })
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'b'])
    expect(cache.stats()).toMatchObject({ scopes: 4, rows: 2 })
  })

  it('reads scopes that hold more rows together than a scope may hold one by one, and leaves a large one to the store', async () => {
    cache = new ScopeCache(store, { capBytes: 1 << 20, logger: quiet, concurrentLoads: 1, maxScopeRows: () => 2 })
    await cache.prepare('facts', 'e', DIMS)
    await cache.upsert('facts', [row('d', 'Bob 住在上海', 'u2', 4), row('e', 'Bob 养猫', 'u2', 5), row('f', 'Carol', 'u3', 6)])
    const reads: number[] = []
    const read = store.scopesRows.bind(store)
    store.scopesRows = async (table, scopes, limit) => {
      reads.push(scopes.length)
      return read(table, scopes, limit)
    }
    cache.warm('facts', { platform: 'onebot', userId: 'u9' })
    for (const user of ['u1', 'u2', 'u3']) cache.warm('facts', { platform: 'onebot', userId: user })
    await cache.settled()
    // u9 alone; then u1, u2, u3 together hold 6 rows, more than 2: each is read on its own
    expect(reads).toEqual([1, 3, 1, 1, 1])
    // u2 holds 3 rows (c, d, e), too many: it is left to the store
    expect(cache.stats()).toMatchObject({ scopes: 3, rows: 3 })
  })

  it('splits one read of scopes of different kinds into each scope’s rows, a row in every scope it lies in', async () => {
    cache = new ScopeCache(store, { capBytes: 1 << 20, logger: quiet, concurrentLoads: 1 })
    await cache.prepare('facts', 'e', DIMS)
    await cache.upsert('facts', [
      row('g1', '群里说的', 'u1', 7, { guild_id: 'g', channel_id: 'c' }),
      row('g2', '别人说的', 'u2', 8, { guild_id: 'g', channel_id: 'c' }),
    ])
    cache.warm('facts', { platform: 'onebot', userId: 'u9' })
    const scopes = {
      user: { platform: 'onebot', userId: 'u1' },
      userInGroup: { platform: 'onebot', userId: 'u1', guildId: 'g' },
      group: { platform: 'onebot', guildId: 'g' },
      channel: { platform: 'onebot', channelId: 'c' },
      other: { platform: 'discord', userId: 'u1' },
    }
    for (const scope of Object.values(scopes)) cache.warm('facts', scope)
    await cache.settled()
    store.down = true
    const ids = async (scope: Scope) => (await cache.nearest('facts', vec(1), scope, 10)).map((hit) => hit.id).sort()
    expect(await ids(scopes.user)).toEqual(['a', 'b', 'g1'])
    expect(await ids(scopes.userInGroup)).toEqual(['g1'])
    expect(await ids(scopes.group)).toEqual(['g1', 'g2'])
    expect(await ids(scopes.channel)).toEqual(['g1', 'g2'])
    expect(await ids(scopes.other)).toEqual([])
  })

  it('runs a few loads at once, never more, and the scopes that wait meanwhile in one load after', async () => {
    cache = new ScopeCache(store, { capBytes: 1 << 20, logger: quiet, concurrentLoads: 2 })
    await cache.prepare('facts', 'e', DIMS)
    let reading = 0
    let most = 0
    const reads: number[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const read = store.scopesRows.bind(store)
    store.scopesRows = async (table, scopes, limit) => {
      most = Math.max(most, ++reading)
      reads.push(scopes.length)
      try {
        const rows = await read(table, scopes, limit)
        await held
        return rows
      } finally {
        reading--
      }
    }
    for (const user of ['u1', 'u2', 'u3', 'u4', 'u5']) {
      await cache.search('facts', { vector: vec(1), text: '火锅', scope: { platform: 'onebot', userId: user }, limit: 5 })
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(reading).toBe(2)
    release()
    await cache.settled()
    expect(most).toBe(2)
    expect(reads).toEqual([1, 1, 3])
    expect(cache.stats().scopes).toBe(5)
  })

  it('keeps a cached scope in step with writes and deletions', async () => {
    await cache.nearest('facts', vec(1), u1, 5)
    await cache.settled()
    await cache.upsert('facts', [row('d', '小明养了一只猫', 'u1', 4), row('e', 'not his', 'u2', 5)])
    await cache.delete('facts', ['b'])
    store.down = true
    const ids = (await cache.nearest('facts', vec(1), u1, 10)).map((h) => h.id).sort()
    expect(ids).toEqual(['a', 'd'])
    expect(await cache.count('facts', u1)).toBe(2)
  })

  it('moves a row whose scope changed out of the old scope', async () => {
    await cache.nearest('facts', vec(1), u1, 5)
    await cache.settled()
    await cache.upsert('facts', [row('a', '小明喜欢火锅', 'u2', 1)])
    store.down = true
    expect((await cache.nearest('facts', vec(1), u1, 10)).map((h) => h.id)).toEqual(['b'])
  })

  it('drops the table from memory when a write fails, so it never answers what the store lacks', async () => {
    await cache.nearest('facts', vec(1), u1, 5)
    await cache.settled()
    expect(cache.stats().scopes).toBe(1)
    store.down = true
    await expect(cache.delete('facts', ['a'])).rejects.toThrow('index down')
    expect(cache.stats().scopes).toBe(0)
    await expect(cache.nearest('facts', vec(1), u1, 5)).rejects.toThrow('index down')
  })

  it('applies the writes that land while a scope loads, whether the read saw them or not', async () => {
    const release = holdReads(store)
    await cache.nearest('facts', vec(1), u1, 5)
    await cache.upsert('facts', [row('f', '新的', 'u1', 6)])
    await cache.delete('facts', ['a'])
    release()
    await cache.settled()
    expect(cache.stats().scopes).toBe(1)
    store.down = true
    expect((await cache.nearest('facts', vec(6), u1, 5)).map((h) => h.id).sort()).toEqual(['b', 'f'])
  })

  it('does not keep a scope whose load saw the table dropped', async () => {
    const release = holdReads(store)
    await cache.nearest('facts', vec(1), u1, 5)
    cache.invalidate('facts')
    release()
    await cache.settled()
    expect(cache.stats().scopes).toBe(0)
  })

  it('evicts the least recently used scope past the cap, and leaves a scope too large to the store', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(`x${i}`, `row ${i}`, `v${i % 4}`, 100 + i))
    await cache.upsert('facts', rows)
    const one = new ScopeTable(DIMS, rows.slice(0, 10)).bytes
    const small = new ScopeCache(store, { capBytes: Math.floor(one * 2.5), busyWithinMs: 0, logger: quiet })
    await small.prepare('facts', 'e', DIMS)
    for (const user of ['v0', 'v1', 'v2']) {
      await small.nearest('facts', vec(1), { platform: 'onebot', userId: user }, 3)
      await small.settled()
    }
    expect(small.stats().scopes).toBe(2)
    // v0 was used least recently: it left
    await small.nearest('facts', vec(1), { platform: 'onebot', userId: 'v2' }, 3)
    expect(small.stats()).toMatchObject({ hits: 1 })
    expect(small.stats().bytes).toBeLessThanOrEqual(small.stats().capBytes)
    const capped = new ScopeCache(store, { capBytes: 1 << 20, maxScopeRows: () => 5, logger: quiet })
    await capped.prepare('facts', 'e', DIMS)
    expect(await capped.nearest('facts', vec(1), { platform: 'onebot', userId: 'v0' }, 3)).toHaveLength(3)
    await capped.settled()
    expect(capped.stats().scopes).toBe(0)
  })

  it('sizes the largest scope it holds by the dimensions its queries use', async () => {
    const seen: number[] = []
    const sized = new ScopeCache(store, { capBytes: 1 << 20, maxScopeRows: (queryDims) => (seen.push(queryDims), 100), logger: quiet })
    await sized.prepare('facts', 'e', DIMS)
    const sparse = new Float32Array(DIMS)
    sparse[1] = 0.5
    sparse[6] = -0.5
    await sized.nearest('facts', sparse, u1, 3)
    await sized.settled()
    expect(seen.at(-1)).toBe(2)
    expect(sized.stats().scopes).toBe(1)
  })

  it('loads no new scope while a full cache holds scopes in use', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(`x${i}`, `row ${i}`, `v${i % 4}`, 100 + i))
    await cache.upsert('facts', rows)
    const one = new ScopeTable(DIMS, rows.slice(0, 10)).bytes
    const busy = new ScopeCache(store, { capBytes: Math.floor(one * 2.05), logger: quiet })
    await busy.prepare('facts', 'e', DIMS)
    for (const user of ['v0', 'v1', 'v2', 'v3']) {
      await busy.nearest('facts', vec(1), { platform: 'onebot', userId: user }, 3)
      await busy.settled()
    }
    expect(busy.stats()).toMatchObject({ scopes: 2, misses: 4 })
    // the two loaded first stay, and answer
    await busy.nearest('facts', vec(1), { platform: 'onebot', userId: 'v0' }, 3)
    expect(busy.stats().hits).toBe(1)
  })

  it('is off at a cap of 0, and refuses an unbounded scope as the store does', async () => {
    const off = new ScopeCache(store, { capBytes: 0, logger: quiet })
    await off.prepare('facts', 'e', DIMS)
    await off.nearest('facts', vec(1), u1, 3)
    expect(off.stats()).toMatchObject({ scopes: 0, misses: 0 })
    await expect(cache.nearest('facts', vec(1), {}, 3)).rejects.toThrow(ScopeError)
  })
})

describe('ScopeCache over LanceDB', () => {
  let dir: string
  let lance: LanceIndex
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-scope-cache-'))
    lance = new LanceIndex({ dir, logger: quiet, optimizeEveryWrites: 0, optimizeEveryMs: 0, hybrid: 'parallel' })
  })
  afterEach(async () => {
    await lance.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('loads a scope with its vectors and answers as LanceDB does for the vector leg', async () => {
    const cache = new ScopeCache(lance, { capBytes: 1 << 20, logger: quiet })
    await cache.open()
    await cache.prepare('facts', 'e', DIMS)
    const rows = Array.from({ length: 30 }, (_, i) => row(`r${i}`, `第${i}条 note`, i % 2 ? 'u1' : 'u2', i + 1))
    await cache.upsert('facts', rows)
    const loaded = await lance.scopeRows('facts', { platform: 'onebot', userId: 'u1' }, 100)
    expect(loaded).toHaveLength(15)
    // several scopes in one read, within the limit; a quote in an id stays inside its string
    const users = (...ids: string[]) => ids.map((userId) => ({ platform: 'onebot', userId }))
    expect(await lance.scopesRows('facts', users('u1', "u2' OR '1'='1"), 100)).toHaveLength(15)
    expect(await lance.scopesRows('facts', users('u1', 'u2'), 100)).toHaveLength(30)
    expect(await lance.scopesRows('facts', users('u1', 'u2'), 20)).toHaveLength(20)
    const original = rows.find((r) => r.id === loaded[0].id)!
    expect(Array.from(loaded[0].vector)).toEqual(Array.from(original.vector))
    const query = vec(777)
    const fromStore = await cache.nearest('facts', query, { platform: 'onebot', userId: 'u1' }, 5)
    await cache.settled()
    const fromMemory = await cache.nearest('facts', query, { platform: 'onebot', userId: 'u1' }, 5)
    expect(cache.stats()).toMatchObject({ scopes: 1, hits: 1, misses: 1 })
    expect(fromMemory.map((h) => h.id)).toEqual(fromStore.map((h) => h.id))
    fromMemory.forEach((hit, i) => expect(hit.similarity).toBeCloseTo(fromStore[i].similarity, 5))
  })
})
