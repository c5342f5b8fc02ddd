import type { App } from 'koishi'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import { App as KoishiApp } from 'koishi'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import type { Scope } from '../../src/scope'
import { ScopeError } from '../../src/scope'
import { DatabaseIndex, defineVectorTables } from '../../src/store/database-index'
import { queryTerms, rankByTerms } from '../../src/store/term-match'
import type { IndexRow } from '../../src/store/vector-index'
import { quiet } from '../fakes/logger'
import { indexRow, unitVector } from '../fakes/index-rows'

const DIMS = 16
const EMBEDDER = 'test-embedder-v1'

const vec = (seed: number, dims = DIMS) => unitVector(seed, dims)
const row = (id: string, text: string, user: string, seed: number, extra: Partial<IndexRow> = {}) =>
  indexRow(id, text, user, seed, extra, DIMS)

let app: App
let index: DatabaseIndex

async function start(): Promise<App> {
  const started = new KoishiApp()
  started.plugin(SQLiteDriver, { path: ':memory:' })
  await started.start()
  await new Promise<void>((resolve) => started.inject(['database'], () => resolve()))
  defineVectorTables(started)
  return started
}

async function makeIndex() {
  const made = new DatabaseIndex(app, { logger: quiet, counters: new Counters() })
  await made.open()
  return made
}

const scopeA = { platform: 'onebot', userId: 'alice' }

describe('DatabaseIndex', () => {
  beforeEach(async () => {
    app = await start()
    index = await makeIndex()
  })

  afterEach(async () => {
    await index.close()
    await app.stop()
  })

  it('round-trips rows: prepare, upsert, search, nearest, count, texts, and a second instance on the same database', async () => {
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('ok')
    await index.upsert('facts', [
      row('f1', 'Alice likes green tea', 'alice', 1),
      row('f2', 'Alice lives in Leeds', 'alice', 2),
      row('f3', 'Alice has a corgi', 'alice', 3),
    ])
    expect(await index.count('facts')).toBe(3)
    expect(await index.count('facts', scopeA)).toBe(3)

    const hits = await index.search('facts', { vector: vec(2), text: 'where does Alice live', scope: scopeA, limit: 5 })
    expect(hits[0].id).toBe('f2')
    expect(hits[0].similarity).toBeCloseTo(1, 5)
    expect(hits[0]).toMatchObject({
      text: 'Alice lives in Leeds',
      platform: 'onebot',
      user_id: 'alice',
      guild_id: '',
      channel_id: 'private:alice',
      created_at: 1_700_000_000_002,
    })
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].relevance).toBeGreaterThanOrEqual(hits[i].relevance)

    const near = await index.nearest('facts', vec(3), scopeA, 2)
    expect(near.map((h) => h.id)).toHaveLength(2)
    expect(near[0].id).toBe('f3')
    expect(near[0].similarity).toBeCloseTo(1, 5)
    expect((await index.texts('facts', ['f1', 'f3', 'nope'])).sort()).toEqual(['Alice has a corgi', 'Alice likes green tea'])

    await index.close()
    await expect(index.count('facts')).rejects.toThrow(/not open/)
    index = await makeIndex()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('ok')
    expect(await index.count('facts')).toBe(3)
  })

  it('finds Chinese text by a word inside it with an unrelated vector, and takes query syntax as plain text', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [
      row('hotpot', '小明喜欢吃四川火锅', 'alice', 1),
      row('city', '小明住在北京', 'alice', 2),
      row('en', 'Alice enjoys rock climbing', 'alice', 3),
      row('other', '小红养了一只橘猫', 'alice', 4),
    ])
    for (const text of ['火锅', '"火锅', "火锅' OR 1=1 --", 'text:火锅 AND (x OR "y']) {
      const hits = await index.search('facts', { vector: vec(999), text, scope: scopeA, limit: 4 })
      expect(hits[0].id, text).toBe('hotpot')
    }
    const climbing = await index.search('facts', { vector: new Float32Array(DIMS), text: 'CLIMB', scope: scopeA, limit: 4 })
    expect(climbing.map((h) => h.id)).toEqual(['en'])
  })

  it('falls back to one leg when the text has no words or the vector is zero', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('a', '小明喜欢吃四川火锅', 'alice', 1), row('b', 'Alice has a corgi', 'alice', 2)])
    for (const text of ['', '   ', '?!…', '😀']) {
      const hits = await index.search('facts', { vector: vec(2), text, scope: scopeA, limit: 2 })
      expect(hits[0].id).toBe('b')
      expect(hits[0].relevance).toBeCloseTo(1 / 60, 9)
    }
    const byText = await index.search('facts', { vector: new Float32Array(DIMS), text: '火锅', scope: scopeA, limit: 2 })
    expect(byText.map((h) => h.id)).toEqual(['a'])
    expect(byText[0].similarity).toBe(0)
    expect(await index.search('facts', { vector: new Float32Array(DIMS), text: '', scope: scopeA, limit: 2 })).toEqual([])
    expect(await index.nearest('facts', new Float32Array(DIMS), scopeA, 2)).toEqual([])
  })

  it('ranks by reciprocal rank fusion with k = 60', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [
      row('t', '小明喜欢吃四川火锅', 'alice', 1),
      row('v', 'Alice has a corgi', 'alice', 2),
      row('n', 'Alice lives in Leeds', 'alice', 3),
    ])
    // 't' is first by text, 'v' first by vector; both legs are fused
    const hits = await index.search('facts', { vector: vec(2), text: '火锅', scope: scopeA, limit: 3 })
    const byId = Object.fromEntries(hits.map((h) => [h.id, h]))
    expect(byId.t.relevance).toBeGreaterThan(1 / 60 + 1 / 63)
    expect(byId.t.relevance).toBeLessThan(1 / 60 + 1 / 61 + 1e-9)
    expect(byId.v.relevance).toBeCloseTo(1 / 60, 9)
    expect(byId.v.similarity).toBeCloseTo(1, 5)
    expect(hits[0].id).toBe('t')
    expect(hits).toHaveLength(3)
  })

  it('never returns a row of another scope: platforms, users, guilds and private chats', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    const evil = "x' OR '1'='1"
    const places = [
      { platform: 'onebot', user_id: 'alice', guild_id: '', channel_id: 'private:alice' },
      { platform: 'onebot', user_id: 'alice', guild_id: 'g1', channel_id: 'c1' },
      { platform: 'onebot', user_id: 'alice', guild_id: 'g2', channel_id: 'c2' },
      { platform: 'discord', user_id: 'alice', guild_id: 'g1', channel_id: 'c1' },
      { platform: 'onebot', user_id: 'bob', guild_id: 'g1', channel_id: 'c1' },
      { platform: 'onebot', user_id: evil, guild_id: "g' OR 1=1 --", channel_id: 'c3' },
    ]
    const rows = places.flatMap((place, p) =>
      [0, 1, 2].map((i) => row(`${p}-${i}`, `secret number ${i} of place ${p}`, place.user_id, p * 10 + i, place)),
    )
    await index.upsert('facts', rows)
    const scopes: Scope[] = [
      { platform: 'onebot', userId: 'alice' },
      { platform: 'onebot', userId: 'alice', guildId: '' },
      { platform: 'onebot', userId: 'alice', guildId: 'g1' },
      { platform: 'discord', userId: 'alice' },
      { platform: 'onebot', guildId: 'g1' },
      { channelId: 'c1' },
      { platform: 'onebot', userId: 'bob', guildId: 'g2' },
      { platform: 'onebot', userId: evil },
      { userId: "nobody' OR '1'='1" },
    ]
    const inScope = (hit: { platform: string; user_id: string; guild_id: string; channel_id: string }, scope: Scope) =>
      (scope.platform === undefined || hit.platform === scope.platform) &&
      (scope.userId === undefined || hit.user_id === scope.userId) &&
      (scope.guildId === undefined || hit.guild_id === scope.guildId) &&
      (scope.channelId === undefined || hit.channel_id === scope.channelId)
    for (const scope of scopes) {
      const expected = rows.filter((r) => inScope(r, scope)).map((r) => r.id)
      expect(await index.count('facts', scope), JSON.stringify(scope)).toBe(expected.length)
      for (const seed of [0, 11, 42]) {
        const hits = await index.search('facts', { vector: vec(seed), text: 'secret number 1', scope, limit: 50 })
        expect(hits.map((h) => h.id).sort(), JSON.stringify(scope)).toEqual(expected.sort())
        const near = await index.nearest('facts', vec(seed), scope, 50)
        expect(near.map((h) => h.id).sort()).toEqual(expected.sort())
      }
    }
    expect(await index.count('facts', { platform: 'onebot', userId: 'alice', guildId: '' })).toBe(3)
    await expect(index.search('facts', { vector: vec(1), text: 'secret', scope: {}, limit: 10 })).rejects.toThrow(ScopeError)
    await expect(index.count('facts', { platform: 'onebot' })).rejects.toThrow(ScopeError)
  })

  it('keeps tables apart: a search, a count and a clear of one table never touch another', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.prepare('episodes', EMBEDDER, DIMS)
    await index.upsert('facts', [row('same-id', 'a fact about tea', 'alice', 1)])
    await index.upsert('episodes', [row('same-id', 'an exchange about tea', 'alice', 1)])
    expect((await index.search('facts', { vector: vec(1), text: 'tea', scope: scopeA, limit: 5 })).map((h) => h.text)).toEqual([
      'a fact about tea',
    ])
    await index.clear('facts')
    expect(await index.count('facts')).toBe(0)
    expect(await index.texts('episodes', ['same-id'])).toEqual(['an exchange about tea'])
  })

  it('upsert replaces a row by id (the last of duplicates wins); delete and clear remove the text', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice loves apples', 'alice', 1), row('f2', 'Alice told me her PIN is 4321', 'alice', 2)])
    await index.upsert('facts', [row('f1', 'Alice now prefers bananas', 'alice', 5)])
    expect(await index.count('facts')).toBe(2)
    const hits = await index.search('facts', { vector: vec(5), text: 'bananas', scope: scopeA, limit: 5 })
    expect(hits.filter((h) => h.id === 'f1')).toHaveLength(1)
    expect(hits[0]).toMatchObject({ id: 'f1', text: 'Alice now prefers bananas' })
    expect(hits[0].similarity).toBeCloseTo(1, 5)
    const stale = await index.search('facts', { vector: new Float32Array(DIMS), text: 'apples', scope: scopeA, limit: 5 })
    expect(stale).toEqual([])
    await index.upsert('facts', [row('f3', 'first', 'alice', 7), row('f3', 'second', 'alice', 8)])
    expect(await index.texts('facts', ['f3'])).toEqual(['second'])

    await index.delete('facts', ['f2', 'f2'])
    expect(await index.texts('facts', ['f2'])).toEqual([])
    expect((await index.search('facts', { vector: vec(2), text: 'PIN 4321', scope: scopeA, limit: 5 })).map((h) => h.id)).not.toContain(
      'f2',
    )
    await index.delete('facts', [])
    await index.purge('facts')
    await index.clear('facts')
    expect(await index.count('facts')).toBe(0)
  })

  it('rejects bad rows before writing anything, and unprepared tables', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await expect(
      index.upsert('facts', [
        row('ok', 'fine', 'alice', 1),
        { ...row('short', 'too short', 'alice', 2), vector: new Float32Array(DIMS - 1) },
      ]),
    ).rejects.toThrow(RangeError)
    await expect(
      index.upsert('facts', [{ ...row('nan', 'not a number', 'alice', 2), vector: new Float32Array(DIMS).fill(NaN) }]),
    ).rejects.toThrow(RangeError)
    expect(await index.count('facts')).toBe(0)
    await expect(index.search('facts', { vector: new Float32Array(8), text: 'x', scope: scopeA, limit: 1 })).rejects.toThrow(RangeError)
    await expect(index.upsert('unprepared', [row('x', 'x', 'alice', 1)])).rejects.toThrow(/not prepared/)
    await expect(index.prepare("facts'; --", EMBEDDER, DIMS)).rejects.toThrow(TypeError)
  })

  it("prepare returns 'reindex' and empties the table after the dimension or the embedder changes, in a new instance too", async () => {
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    expect(await index.prepare('facts', EMBEDDER, 8)).toBe('reindex')
    expect(await index.count('facts')).toBe(0)
    await index.upsert('facts', [{ ...row('f1', 'Alice likes tea', 'alice', 1), vector: vec(1, 8) }])
    expect(await index.prepare('facts', EMBEDDER, 8)).toBe('ok')
    expect(await index.prepare('facts', 'another-embedder', 8)).toBe('reindex')
    await index.upsert('facts', [{ ...row('f1', 'Alice likes tea', 'alice', 1), vector: vec(1, 8) }])
    index = await makeIndex()
    expect(await index.prepare('facts', 'another-embedder', 8)).toBe('ok')
    expect(await index.count('facts')).toBe(1)
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('reindex')
    expect(await index.count('facts')).toBe(0)
    expect(await index.prepare('topics', 'another-embedder', 8)).toBe('created')
  })

  it('trusts the rows over the table record: a row of another embedder makes prepare reindex', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    await app.database.set('memory_vector', { id: 'f1' }, { embedder: 'older' })
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('reindex')
    expect(await index.count('facts')).toBe(0)
  })

  it('says whether it served, and forgets everything when asked', async () => {
    expect(await index.served()).toBe(false)
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    expect(await index.served()).toBe(true)
    await index.forgetAll()
    expect(await index.served()).toBe(false)
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    expect(await index.count('facts')).toBe(0)
  })

  it('returns nothing for a limit below 1 and rounds a fractional one down', async () => {
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('a', 'Alice has a corgi', 'alice', 1), row('b', 'Bob has a corgi', 'alice', 2)])
    expect(await index.search('facts', { vector: vec(1), text: 'corgi', scope: scopeA, limit: 0 })).toEqual([])
    expect(await index.nearest('facts', vec(1), scopeA, Number.NaN)).toEqual([])
    expect(await index.search('facts', { vector: vec(1), text: 'corgi', scope: scopeA, limit: 1.7 })).toHaveLength(1)
  })
})

describe('term matching', () => {
  it('takes CJK characters and pairs, whole other words, digits, and drops one-letter words', () => {
    expect(queryTerms('我爱火锅 a Corgi 2 ＡＢＣ')).toEqual(['我', '我爱', '爱', '爱火', '火', '火锅', '锅', 'corgi', '2', 'abc'])
    expect(queryTerms('abc火锅')).toEqual(['abc', '火', '火锅', '锅'])
    expect(queryTerms('?! 😀')).toEqual([])
  })

  it('ranks rarer terms first and leaves out texts without a term', () => {
    const texts = ['Alice has a corgi', 'Alice likes tea', 'Bob likes tea', 'nothing here']
    expect(rankByTerms(['corgi', 'alice'], texts)).toEqual([0, 1])
    expect(rankByTerms(['tea', 'bob'], texts)).toEqual([2, 1])
    expect(rankByTerms([], texts)).toEqual([])
  })
})
