import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LanceIndex } from '../../src/store/lance-index'
import type { IndexRow } from '../../src/store/vector-index'
import { Counters } from '../../src/core/observability'

const DIMS = 8
const EMBEDDER = 'test-embedder-v1'
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

function row(id: string, user: string, seed: number): IndexRow {
  const vector = Float32Array.from({ length: DIMS }, (_, i) => Math.sin(seed * 7 + i))
  return {
    id,
    text: `${user} 的第 ${seed} 条记忆`,
    vector,
    platform: 'qq',
    user_id: user,
    guild_id: '',
    channel_id: `private:${user}`,
    created_at: seed,
  }
}

/** Overwrites every file under `sub` of the table's folder with garbage. */
function damage(dir: string, table: string, sub: 'data' | '_indices' | '_versions') {
  const root = path.join(dir, `${table}.lance`, sub)
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) fs.writeFileSync(path.join(entry.parentPath, entry.name), 'garbage')
  }
}

let dir: string
let index: LanceIndex
let lost: string[]
let counters: Counters

function open() {
  lost = []
  counters = new Counters()
  index = new LanceIndex({
    dir,
    logger: quiet,
    counters,
    optimizeEveryMs: 0,
    halfOpenAfterMs: 100,
    onReindexNeeded: (table) => void lost.push(table),
  })
  return index
}

async function seeded() {
  open()
  for (const table of ['facts', 'messages']) {
    await index.prepare(table, EMBEDDER, DIMS)
    await index.upsert(
      table,
      Array.from({ length: 20 }, (_, i) => row(`${table}-${i}`, i % 2 ? 'alice' : 'bob', i)),
    )
  }
  await index.optimize()
  await index.close()
}

const search = (table: string) =>
  index.search(table, { vector: row('q', 'alice', 3).vector, text: '记忆', scope: { platform: 'qq', userId: 'alice' }, limit: 5 })

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-damage-'))
})

afterEach(async () => {
  await index?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('a damaged LanceDB table', () => {
  it('with unreadable data is made anew at start, its rows asked for again; the other table keeps its rows', async () => {
    await seeded()
    damage(dir, 'facts', 'data')
    open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    expect(await index.prepare('messages', EMBEDDER, DIMS)).toBe('ok')
    expect(await index.verify('messages')).toBe('ok')
    expect(await index.count('facts')).toBe(0)
    expect(await index.count('messages')).toBe(20)
    expect(counters.get('index.table-damaged')).toBe(1)
  })

  it('with a manifest that cannot be read is made anew at start', async () => {
    await seeded()
    damage(dir, 'facts', '_versions')
    open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('created')
    await index.upsert('facts', [row('f', 'alice', 1)])
    expect((await search('facts')).map((hit) => hit.id)).toEqual(['f'])
  })

  it('with damaged search indexes keeps its rows and gets its indexes back', async () => {
    await seeded()
    damage(dir, 'facts', '_indices')
    open()
    expect(await index.prepare('facts', EMBEDDER, DIMS)).toBe('ok')
    expect(await index.verify('facts')).toBe('ok')
    expect(await index.count('facts')).toBe(20)
    expect((await search('facts')).length).toBe(5)
    expect(counters.get('index.table-damaged')).toBe(1)
  })

  it('while running: its breaker opens alone, then it is repaired and asked to be rebuilt', async () => {
    await seeded()
    open()
    await index.prepare('facts', EMBEDDER, DIMS)
    await index.prepare('messages', EMBEDDER, DIMS)
    expect((await search('facts')).length).toBe(5)
    damage(dir, 'facts', 'data')
    for (let i = 0; i < 3; i++) await search('facts').catch(() => undefined)
    // one breaker per table: the messages table still answers
    expect((await search('messages')).length).toBe(5)
    await expect.poll(() => lost, { timeout: 5000 }).toEqual(['facts'])
    await new Promise((resolve) => setTimeout(resolve, 150))
    await index.upsert('facts', [row('f', 'alice', 1)])
    expect((await search('facts')).map((hit) => hit.id)).toEqual(['f'])
  })
})
