import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IndexUnavailableError } from '../../src/store/lance-errors'
import { LanceIndex } from '../../src/store/lance-index'
import { lanceCpuThreads } from '../../src/store/lance-library'
import type { IndexRow } from '../../src/store/vector-index'
import { Counters, type Logger } from '../../src/core/observability'
import { ScopeError } from '../../src/scope'
import { indexRow, unitVector } from '../fakes/index-rows'

const DIMS = 16
const EMBEDDER = 'test-embedder-v1'

function recordingLogger() {
  const lines: Record<'debug' | 'info' | 'warn' | 'error', string[]> = { debug: [], info: [], warn: [], error: [] }
  const log =
    (level: keyof typeof lines) =>
    (format: any, ...args: any[]) =>
      lines[level].push([format, ...args].join(' '))
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
  return { logger, lines }
}

const vec = (seed: number, dims = DIMS) => unitVector(seed, dims)
const row = (id: string, text: string, user: string, seed: number, extra: Partial<IndexRow> = {}) =>
  indexRow(id, text, user, seed, extra, DIMS)

let dir: string
let index: LanceIndex
let counters: Counters
let lines: ReturnType<typeof recordingLogger>['lines']

function makeIndex(options: Partial<ConstructorParameters<typeof LanceIndex>[0]> = {}) {
  const recorded = recordingLogger()
  lines = recorded.lines
  counters = new Counters()
  return new LanceIndex({ dir: path.join(dir, 'lance'), logger: recorded.logger, counters, optimizeEveryMs: 0, ...options })
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-index-test-'))
})

afterEach(async () => {
  await index?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const scopeA = { platform: 'onebot', userId: 'alice' }

describe('LanceIndex', () => {
  it('keeps its caches of index data and file metadata within the bytes it is given', async () => {
    const cap = 256 * 1024
    index = makeIndex({ cacheBytes: { index: cap, metadata: cap } })
    expect(index.cached()).toEqual({ bytes: 0, entries: 0 })
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    for (let i = 0; i < 30; i++) {
      await index.upsert('facts', [row(`f${i}`, `Alice note ${i}`, 'alice', i + 1)])
      await index.search('facts', { vector: vec(i + 1), text: 'Alice note', scope: scopeA, limit: 5 })
    }
    // the caches are LanceDB's session: it holds what the writes and queries read, no more than given
    const { bytes, entries } = index.cached()
    expect(entries).toBeGreaterThan(0)
    expect(bytes).toBeGreaterThan(0)
    expect(bytes).toBeLessThanOrEqual(2 * cap)
  })

  it('round-trips rows: prepare, upsert, search, count, texts, reopen', async () => {
    index = makeIndex()
    expect(index.state).toBe('uninitialised')
    await index.open()
    expect(index.state).toBe('ready')
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
    expect(hits[0].relevance).toBeGreaterThan(0)
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
    expect(near.map((h) => h.id)[0]).toBe('f3')
    expect(near[0].similarity).toBeCloseTo(1, 5)

    expect((await index.texts('facts', ['f1', 'f3', 'nope'])).sort()).toEqual(['Alice has a corgi', 'Alice likes green tea'])
    await index.close()
    expect(index.state).toBe('uninitialised')

    index = makeIndex()
    await index.open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('ok')
    expect(await index.count('facts')).toBe(3)
  })

  it('finds Chinese text by a word inside it, with an unrelated vector, before and after optimize', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [
      row('hotpot', '小明喜欢吃四川火锅', 'alice', 1),
      row('city', '小明住在北京', 'alice', 2),
      row('en', 'Alice enjoys rock climbing', 'alice', 3),
      row('other', '小红养了一只橘猫', 'alice', 4),
    ])
    const unrelated = vec(999)
    // Rows written since the last optimize are not in the FTS index yet; LanceDB scans them.
    let hits = await index.search('facts', { vector: unrelated, text: '火锅', scope: scopeA, limit: 4 })
    expect(hits[0].id).toBe('hotpot')
    await index.optimize('facts')
    hits = await index.search('facts', { vector: unrelated, text: '火锅', scope: scopeA, limit: 4 })
    expect(hits[0].id).toBe('hotpot')
    // Quotes and query syntax are plain text inside a MatchQuery.
    hits = await index.search('facts', { vector: unrelated, text: '"火锅', scope: scopeA, limit: 4 })
    expect(hits[0].id).toBe('hotpot')
    hits = await index.search('facts', { vector: unrelated, text: 'text:火锅 AND (x OR "y', scope: scopeA, limit: 4 })
    expect(hits.map((h) => h.id)).toContain('hotpot')
  })

  it('falls back to one leg when the text has no words or the vector is zero', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('a', '小明喜欢吃四川火锅', 'alice', 1), row('b', 'Alice has a corgi', 'alice', 2)])
    for (const text of ['', '   ', '?!…', '😀']) {
      const hits = await index.search('facts', { vector: vec(2), text, scope: scopeA, limit: 2 })
      expect(hits[0].id).toBe('b')
    }
    const byText = await index.search('facts', { vector: new Float32Array(DIMS), text: '火锅', scope: scopeA, limit: 2 })
    expect(byText.map((h) => h.id)).toEqual(['a'])
    expect(byText[0].similarity).toBe(0)
    expect(await index.search('facts', { vector: new Float32Array(DIMS), text: '', scope: scopeA, limit: 2 })).toEqual([])
    expect(await index.nearest('facts', new Float32Array(DIMS), scopeA, 2)).toEqual([])
  })

  it('never shows one user the rows of another, whatever their ids contain', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    const evil = "x' OR '1'='1"
    const sneaky = "bob'); DELETE FROM facts; --"
    const rows: IndexRow[] = []
    for (let i = 0; i < 5; i++) {
      rows.push(row(`a${i}`, `secret of alice number ${i}`, 'alice', i))
      rows.push(row(`e${i}`, `secret of evil number ${i}`, evil, i, { id: `e'${i}` }))
      rows.push(row(`s${i}`, `secret of sneaky number ${i}`, sneaky, i, { guild_id: "g' OR 1=1 --" }))
    }
    await index.upsert('facts', rows)
    expect(await index.count('facts')).toBe(15)

    const scopes = [
      { scope: scopeA, user: 'alice' },
      { scope: { platform: 'onebot', userId: evil }, user: evil },
      { scope: { platform: 'onebot', userId: sneaky }, user: sneaky },
    ]
    for (const { scope, user } of scopes) {
      expect(await index.count('facts', scope)).toBe(5)
      for (const seed of [0, 3, 42]) {
        const hits = await index.search('facts', { vector: vec(seed), text: 'secret number 1', scope, limit: 15 })
        expect(hits.length).toBe(5)
        expect(hits.every((h) => h.user_id === user)).toBe(true)
        const near = await index.nearest('facts', vec(seed), scope, 15)
        expect(near.every((h) => h.user_id === user)).toBe(true)
      }
    }
    // A value that looks like SQL matches nothing rather than everything.
    expect(await index.count('facts', { userId: "nobody' OR '1'='1" })).toBe(0)
    expect(await index.search('facts', { vector: vec(1), text: 'secret', scope: { userId: "' OR ''='" }, limit: 10 })).toEqual([])
    expect(await index.count('facts', { guildId: "g' OR 1=1 --" })).toBe(5)
    expect(await index.count('facts', { platform: 'discord', userId: 'alice' })).toBe(0)
    // Ids with quotes work for texts and delete.
    expect(await index.texts('facts', ["e'1"])).toEqual(['secret of evil number 1'])
    await index.delete('facts', ["e'1"])
    expect(await index.count('facts')).toBe(14)
    // An empty scope would match everyone: refused before touching the store.
    await expect(index.search('facts', { vector: vec(1), text: 'secret', scope: {}, limit: 10 })).rejects.toThrow(ScopeError)
    await expect(index.count('facts', { platform: 'onebot' })).rejects.toThrow(ScopeError)
  })

  it('upsert replaces a row by id, in the vector and the full-text index', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice loves apples', 'alice', 1), row('f2', 'Alice has a corgi', 'alice', 2)])
    await index.optimize('facts') // the old text is now in the FTS index
    await index.upsert('facts', [row('f1', 'Alice now prefers bananas', 'alice', 5)])
    expect(await index.count('facts')).toBe(2)
    expect(await index.texts('facts', ['f1'])).toEqual(['Alice now prefers bananas'])
    for (const phase of ['before optimize', 'after optimize']) {
      const hits = await index.search('facts', { vector: vec(5), text: 'bananas', scope: scopeA, limit: 5 })
      expect(
        hits.filter((h) => h.id === 'f1'),
        phase,
      ).toHaveLength(1)
      expect(hits.find((h) => h.id === 'f1')!.text).toBe('Alice now prefers bananas')
      expect(hits.find((h) => h.id === 'f1')!.similarity).toBeCloseTo(1, 5)
      const stale = await index.search('facts', { vector: new Float32Array(DIMS), text: 'apples', scope: scopeA, limit: 5 })
      expect(stale.map((h) => h.text).join()).not.toContain('apples')
      await index.optimize('facts')
    }
    // Duplicate ids within one call: the last one wins.
    await index.upsert('facts', [row('f3', 'first', 'alice', 7), row('f3', 'second', 'alice', 8)])
    expect(await index.texts('facts', ['f3'])).toEqual(['second'])
  })

  it('delete removes the text', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice told me her PIN is 4321', 'alice', 1), row('f2', 'Alice has a corgi', 'alice', 2)])
    await index.delete('facts', ['f1'])
    expect(await index.texts('facts', ['f1'])).toEqual([])
    expect(await index.count('facts')).toBe(1)
    const hits = await index.search('facts', { vector: vec(1), text: 'PIN 4321', scope: scopeA, limit: 5 })
    expect(hits.map((h) => h.id)).toEqual(['f2'])
    await index.optimize('facts')
    expect(await index.texts('facts', ['f1'])).toEqual([])
    await index.delete('facts', [])
  })

  it('rejects vectors of the wrong length before writing anything', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await expect(
      index.upsert('facts', [
        row('ok', 'fine', 'alice', 1),
        { ...row('short', 'too short', 'alice', 2), vector: new Float32Array(DIMS - 1) },
      ]),
    ).rejects.toThrow(RangeError)
    await expect(index.upsert('facts', [{ ...row('long', 'too long', 'alice', 2), vector: new Float32Array(DIMS + 3) }])).rejects.toThrow(
      /dimensions/,
    )
    await expect(
      index.upsert('facts', [{ ...row('nan', 'not a number', 'alice', 2), vector: new Float32Array(DIMS).fill(NaN) }]),
    ).rejects.toThrow(RangeError)
    expect(await index.count('facts')).toBe(0)
    await expect(index.search('facts', { vector: new Float32Array(8), text: 'x', scope: scopeA, limit: 1 })).rejects.toThrow(RangeError)
    // Validation errors are the caller's, not the store's: the breaker stays closed.
    expect(index.state).toBe('ready')
    expect(counters.get('index.failure')).toBe(0)
    await expect(index.upsert('unprepared', [row('x', 'x', 'alice', 1)])).rejects.toThrow(/not prepared/)
  })

  it("prepare returns 'reindex' after the dimension or the embedder changes", async () => {
    index = makeIndex()
    await index.open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    expect(await index.prepare('facts', EMBEDDER, 8)).toBe('reindex')
    expect(await index.count('facts')).toBe(0)
    await index.upsert('facts', [{ ...row('f1', 'Alice likes tea', 'alice', 1), vector: vec(1, 8) }])
    expect(await index.prepare('facts', EMBEDDER, 8)).toBe('ok')
    expect(await index.prepare('facts', 'another-embedder', 8)).toBe('reindex')
    expect(await index.count('facts')).toBe(0)
    await index.close()
    // Detected from what is on disk, by a fresh process too.
    index = makeIndex()
    await index.open()
    expect(await index.prepare('facts', 'another-embedder', 8)).toBe('ok')
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('reindex')
    // Tables are independent.
    expect(await index.prepare('topics', 'another-embedder', 8)).toBe('created')
    expect(await index.count('facts')).toBe(0)
  })

  it('opens the breaker when the path is a regular file, rejects fast, and recovers once it is fixed', async () => {
    const file = path.join(dir, 'lance')
    fs.writeFileSync(file, 'not a directory')
    index = makeIndex({ halfOpenAfterMs: 200 })
    await expect(index.open()).resolves.toBeUndefined()
    expect(index.state).toBe('open')
    expect(counters.get('index.breaker-open')).toBe(1)

    const started = performance.now()
    await expect(index.prepare('facts', EMBEDDER, DIMS)).rejects.toThrow(IndexUnavailableError)
    await expect(index.upsert('facts', [row('f1', 'x', 'alice', 1)])).rejects.toThrow(IndexUnavailableError)
    await expect(index.search('facts', { vector: vec(1), text: 'x', scope: scopeA, limit: 1 })).rejects.toThrow(/unavailable/)
    await expect(index.count('facts')).rejects.toThrow(IndexUnavailableError)
    expect(performance.now() - started).toBeLessThan(100)

    // Still broken after the pause: the probe fails, and the outage is not logged again.
    await new Promise((resolve) => setTimeout(resolve, 250))
    await expect(index.count('facts')).rejects.toThrow(IndexUnavailableError)
    expect(index.state).toBe('open')
    expect(lines.warn.filter((l) => l.includes('unavailable'))).toHaveLength(1)
    expect(counters.get('index.breaker-open')).toBe(1)
    expect(counters.get('index.failure')).toBe(2)

    fs.rmSync(file)
    await new Promise((resolve) => setTimeout(resolve, 250))
    // `prepare` remembered the table; the first call after the pause probes, reconnects and creates it.
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    expect(index.state).toBe('ready')
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    expect(await index.count('facts')).toBe(1)
    expect(lines.info.some((l) => l.includes('available again'))).toBe(true)
  })

  it('reopens a table that vanished during an outage and asks for a reindex', async () => {
    const asked: string[] = []
    index = makeIndex({ halfOpenAfterMs: 50, breakerThreshold: 1, onReindexNeeded: (table, check) => asked.push(`${table}:${check}`) })
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('f1', 'Alice likes tea', 'alice', 1)])
    fs.rmSync(path.join(dir, 'lance'), { recursive: true, force: true })
    fs.writeFileSync(path.join(dir, 'lance'), 'oops')
    await expect(index.upsert('facts', [row('f2', 'x', 'alice', 2)])).rejects.toThrow()
    expect(index.state).toBe('open')
    fs.rmSync(path.join(dir, 'lance'))
    await new Promise((resolve) => setTimeout(resolve, 80))
    await index.upsert('facts', [row('f2', 'Alice has a corgi', 'alice', 2)])
    expect(index.state).toBe('ready')
    expect(asked).toEqual(['facts:created'])
    expect(await index.count('facts')).toBe(1)
  })

  it('serialises concurrent writes so that all of them land', async () => {
    index = makeIndex({ optimizeEveryWrites: 7 })
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    const writes: Promise<unknown>[] = []
    for (let i = 0; i < 40; i++) {
      writes.push(index.upsert('facts', [row(`f${i}`, `fact number ${i}`, i % 2 ? 'alice' : 'bob', i)]))
      if (i % 10 === 9) writes.push(index.optimize('facts'))
    }
    writes.push(
      index.upsert(
        'facts',
        Array.from({ length: 20 }, (_, i) => row(`batch${i}`, `batch fact ${i}`, 'alice', 100 + i)),
      ),
    )
    writes.push(index.delete('facts', ['f0', 'f1']))
    await Promise.all(writes)
    expect(await index.count('facts')).toBe(58)
    expect(await index.count('facts', scopeA)).toBe(39)
    expect(counters.get('index.optimize')).toBeGreaterThanOrEqual(4)
  })

  it('close waits for queued writes', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    const pending = index.upsert(
      'facts',
      Array.from({ length: 50 }, (_, i) => row(`f${i}`, `fact ${i}`, 'alice', i)),
    )
    await index.close()
    await pending
    await expect(index.count('facts')).rejects.toThrow(IndexUnavailableError)
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    expect(await index.count('facts')).toBe(50)
  })

  it('builds a vector index past vectorIndexMinRows and still returns every row of a small scope', async () => {
    index = makeIndex({ vectorIndexMinRows: 300 })
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    const many = Array.from({ length: 600 }, (_, i) => row(`a${i}`, `alice fact ${i}`, 'alice', i))
    await index.upsert('facts', [
      ...many,
      row('b1', 'bob fact one', 'bob', 10_001),
      row('b2', 'bob fact two', 'bob', 10_002),
      row('b3', 'bob fact three', 'bob', 10_003),
    ])
    await index.optimize()
    const lancedb = require('@lancedb/lancedb')
    const conn = await lancedb.connect(path.join(dir, 'lance'))
    const indices = (await (await conn.openTable('facts')).listIndices()).map(
      (i: { name: string; indexType: string }) => `${i.name}:${i.indexType}`,
    )
    expect(indices).toEqual(expect.arrayContaining(['vector_idx:IvfRq', 'text_idx:FTS', 'user_id_idx:BTree']))
    conn.close()
    // Alice's rows are all closer to her own vector; Bob still gets all of his (prefiltered), none of hers.
    for (const seed of [1, 2, 3]) {
      const hits = await index.search('facts', { vector: vec(seed), text: 'fact', scope: { platform: 'onebot', userId: 'bob' }, limit: 10 })
      expect(hits.map((h) => h.id).sort()).toEqual(['b1', 'b2', 'b3'])
      const near = await index.nearest('facts', vec(seed), { platform: 'onebot', userId: 'bob' }, 10)
      expect(near.map((h) => h.id).sort()).toEqual(['b1', 'b2', 'b3'])
    }
    const top = await index.nearest('facts', vec(42), scopeA, 1)
    expect(top[0].id).toBe('a42')
    expect(top[0].similarity).toBeCloseTo(1, 5)
  })
})

describe('LanceIndex upkeep', () => {
  it('rebuilds a full-text index that was built with another tokenizer', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('hotpot', '小明喜欢吃四川火锅', 'alice', 1), row('city', '小明住在北京', 'alice', 2)])
    await index.close()
    const lancedb = require('@lancedb/lancedb')
    const conn = await lancedb.connect(path.join(dir, 'lance'))
    const table = await conn.openTable('facts')
    await table.createIndex('text', { config: lancedb.Index.fts({ baseTokenizer: 'simple' }), replace: true })
    const tokenizer = async () =>
      (await table.listIndices()).find((i: { name: string }) => i.name === 'text_idx').indexDetails.base_tokenizer
    expect(await tokenizer()).toBe('simple')

    index = makeIndex()
    await index.open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('ok')
    await table.checkoutLatest()
    expect(await tokenizer()).toBe('ngram')
    conn.close()
    const hits = await index.search('facts', { vector: new Float32Array(DIMS), text: '火锅', scope: scopeA, limit: 5 })
    expect(hits.map((h) => h.id)).toEqual(['hotpot'])
  })

  it('returns nothing for a limit below 1', async () => {
    index = makeIndex()
    await index.open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.upsert('facts', [row('a', 'Alice has a corgi', 'alice', 1)])
    expect(await index.search('facts', { vector: vec(1), text: 'corgi', scope: scopeA, limit: 0 })).toEqual([])
    expect(await index.nearest('facts', vec(1), scopeA, Number.NaN)).toEqual([])
    expect(await index.search('facts', { vector: vec(1), text: 'corgi', scope: scopeA, limit: 2.7 })).toHaveLength(1)
  })
})

describe('LanceIndex hybrid modes', () => {
  for (const hybrid of ['lancedb', 'parallel'] as const) {
    it(`ranks by reciprocal rank fusion (${hybrid})`, async () => {
      index = makeIndex({ hybrid })
      await index.open()
      await index.prepare('facts', EMBEDDER, DIMS)
      await index.upsert('facts', [
        row('t', '小明喜欢吃四川火锅', 'alice', 1),
        row('v', 'Alice has a corgi', 'alice', 2),
        row('n', 'Alice lives in Leeds', 'alice', 3),
      ])
      // 't' is first by text, 'v' first by vector; both legs are fused with k = 60.
      const hits = await index.search('facts', { vector: vec(2), text: '火锅', scope: scopeA, limit: 3 })
      const byId = Object.fromEntries(hits.map((h) => [h.id, h]))
      // 't': rank 0 by text plus rank 1 or 2 by vector; 'v': rank 0 by vector only.
      expect(byId.t.relevance).toBeGreaterThan(1 / 60 + 1 / 63)
      expect(byId.t.relevance).toBeLessThan(1 / 60 + 1 / 61 + 1e-6)
      expect(byId.v.relevance).toBeCloseTo(1 / 60, 6)
      expect(byId.v.similarity).toBeCloseTo(1, 5)
      expect(hits[0].id).toBe('t')
      expect(hits.length).toBe(3)
    })
  }
})

describe('lanceCpuThreads', () => {
  it('gives LanceDB two CPU threads on a machine of two cores or fewer, unless the owner set them', () => {
    expect(lanceCpuThreads(undefined, 1)).toBe('2')
    expect(lanceCpuThreads(undefined, 2)).toBe('2')
    expect(lanceCpuThreads('', 2)).toBe('2')
    expect(lanceCpuThreads(undefined, 4)).toBeUndefined()
    expect(lanceCpuThreads('1', 2)).toBeUndefined()
  })
})
