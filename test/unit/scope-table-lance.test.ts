import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import * as lancedb from '@lancedb/lancedb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Logger } from '../../src/core/observability'
import { lanceWhere } from '../../src/scope'
import { LanceIndex } from '../../src/store/lance-index'
import { ScopeTable } from '../../src/store/scope-table'
import { indexRow } from '../fakes/index-rows'

const DIMS = 8
const TABLE = 'facts'
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} }
const scope = { platform: 'onebot', userId: 'u1' }

// One scope only: LanceDB scores with the whole index's statistics, a scope with its own.
const rows = [
  '小明喜欢吃火锅，尤其是麻辣火锅',
  '我们昨天去公园散步了，天气很好',
  'Alice likes green tea and coffee.',
  '周末和朋友在公园喝咖啡',
  '小明住在上海,离公园很近',
  '哈哈，今天真开心！',
  'Bob drinks coffee every morning',
  '我不喜欢喝茶，更喜欢咖啡',
  '明天要去北京出差',
  'The hot pot in Chongqing is very spicy!',
  '好的好的，没问题',
  '她养了一只猫，叫咪咪',
  'Green tea is healthier than coffee',
  '天气预报说明天下雨',
].map((text, i) => indexRow(`f${i}`, text, 'u1', i + 1, {}, DIMS))

const queries: [string, number][] = [
  ['我昨天和朋友去公园散步，天气很好，我们还喝了咖啡', 20],
  ['我昨天和朋友去公园散步，天气很好，我们还喝了咖啡', 4],
  ['green tea, green tea and coffee!', 20],
  ['green tea, green tea and coffee!', 3],
  ['哈哈哈哈哈，好好好', 10],
  ['小明小明喜欢吃火锅吗？', 20],
  ['zzz 火锅 qqq', 10],
  ['Does Alice like hot pot？', 5],
]

/** Equal to float32 precision: LanceDB computes in float32, and sums a row's terms in another order. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-5 * Math.max(Math.abs(a), Math.abs(b))

/** The ids in the order given, each run of rows of equal score one sorted group: their order is LanceDB's to choose. */
function tied(ids: string[], scores: Map<string, number>) {
  const groups: string[][] = []
  ids.forEach((id, i) => {
    if (i && same(scores.get(id)!, scores.get(ids[i - 1])!)) groups[groups.length - 1].push(id)
    else groups.push([id])
  })
  return groups.map((group) => group.sort())
}

/** LanceDB's full-text search as `LanceIndex` runs it, with the `_score` of each row. */
async function lanceScores(table: lancedb.Table, query: string, limit: number) {
  const rows = await table
    .query()
    .fullTextSearch(new lancedb.MatchQuery(query, 'text'))
    .where(lanceWhere(scope))
    .select(['id', '_score'])
    .limit(limit)
    .toArray()
  return new Map(rows.map((row) => [row.id as string, row._score as number]))
}

describe('ScopeTable full-text leg against LanceDB', () => {
  let dir: string
  let index: LanceIndex
  let lance: lancedb.Table
  let table: ScopeTable

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scope-table-lance-'))
    index = new LanceIndex({ dir: path.join(dir, 'lance'), logger: quiet, optimizeEveryMs: 0, optimizeEveryWrites: 0 })
    await index.open()
    await index.prepare(TABLE, 'test-embedder', DIMS)
    await index.upsert(TABLE, rows)
    await index.optimize(TABLE)
    // as the scope cache loads a scope: in the table's order, which is not the order written
    table = new ScopeTable(DIMS, await index.scopeRows(TABLE, scope, 1000))
    lance = await (await lancedb.connect(path.join(dir, 'lance'))).openTable(TABLE)
    expect((await lance.indexStats('text_idx'))?.numUnindexedRows).toBe(0)
  })

  afterAll(async () => {
    lance?.close()
    await index?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it.each(queries)('scores %j (limit %i) as LanceDB does', async (query, limit) => {
    const expected = await lanceScores(lance, query, limit)
    expect(expected.size).toBeGreaterThan(0)
    const hits = table.textScores(query, limit)
    const ids = hits.map((hit) => hit.id)
    expect(tied(ids, expected)).toEqual(tied([...expected.keys()], expected))
    for (const hit of hits) expect(same(hit.score, expected.get(hit.id)!), `${hit.id}: ${hit.score} vs ${expected.get(hit.id)}`).toBe(true)
  })

  it.each(queries)('ranks %j (limit %i) as the store does', async (query, limit) => {
    const zero = new Float32Array(DIMS)
    const store = (await index.search(TABLE, { vector: zero, text: query, scope, limit })).map((hit) => hit.id)
    const ours = table.search(zero, query, limit).map((hit) => hit.id)
    const scores = await lanceScores(lance, query, limit)
    expect(tied(ours, scores)).toEqual(tied(store, scores))
  })
})
