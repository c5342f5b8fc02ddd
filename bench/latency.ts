/**
 * Latency of the reply path's reads: `retrieve` at 1k, 10k and 100k long-term facts (add 1000000 with
 * `--sizes`), `buildContext` in channels of 10k and 100k messages, and capturing one message.
 *
 *   npm run bench:latency -- --out bench/results/latency.json [--sizes 1000,10000,100000] [--queries 200]
 *     [--cache-mb MB] [--caps 0,512] [--context-sizes 10000,100000]
 *
 * For each size: synthetic facts (mixed Chinese/English, 200 users on 2 platforms) are embedded with
 * the offline embedder and written in batches (upserted up to 100k; appended 100k at a time past it),
 * the table is optimized (FTS, scalar and the IVF_RQ vector index), then:
 *   - `p95_ms` — the product's `retrieve`: the service's `Retriever` (embed the query, hybrid search in
 *     one user's scope, rerank, top 10) on `ScopeCache` in front of `LanceIndex`, with the cap of
 *     `--cache-mb` (default: the scope cache's share of the default `store.memoryMB`), in a process of its own
 *     (`bench/latency-cache.ts`) after each user's first query; `caps` repeats it for every cap of
 *     `--caps` (0 is no cache), each with its hit rate and resident memory at idle;
 *   - `main_p95_ms`: the same `Retriever` straight on `LanceIndex` (the retrieve before the cache);
 *   - `baseline_p95_ms`: embed + exact cosine over all rows in memory, filtered to the user in JS;
 *   - `native_hybrid_p95_ms`: LanceDB's own hybrid query (`hybrid: 'lancedb'`);
 *   - `recall_at_10` (the cache's nearest) and `lancedb_nearest_recall_at_10` against the exact top 10,
 *     `agreement_at_10_with_main`: the share of main's top 10 the product returns;
 *   - up to 100k: `lancedb_noindex_p95_ms` (a flat LanceDB query on a copy without any index) and
 *     `database_p95_ms` (`retrieve` on `DatabaseIndex`, the engine used when LanceDB cannot load).
 * `build_context` comes from `bench/build-context.ts`, `capture_p95_ms` from `bench/capture-overhead.ts`.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Retriever } from '../src/facts'
import { Counters } from '../src/core/observability'
import { App } from 'koishi'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import { DatabaseIndex, defineVectorTables } from '../src/store/database-index'
import { LanceIndex } from '../src/store/lance-index'
import type { IndexRow } from '../src/store/vector-index'
import type { Embedder } from '../src/providers/types'
import type { Logger } from '../src/core/observability'
import { OfflineEmbedder } from '../src/providers/offline-embedder'
import { lanceWhere } from '../src/scope'
import { makeFacts, makeQuery, makeUsers, rng, type SyntheticUser } from './synthetic-facts'
import { percentile } from './lib/metrics'
import { LIMIT, USERS, WARMUP } from './latency-setup'
import { parseArgs } from './lib/args'
import { measureBuildContext } from './build-context'
import { DEFAULT_MEMORY_MB } from '../src/config'
import { BUDGET_SHARES } from '../src/core/memory-budget'

// by require, as the store loads it (CommonJS), so both share one copy of its Arrow classes
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lancedb = require('@lancedb/lancedb') as typeof import('@lancedb/lancedb')

const options = parseArgs(process.argv.slice(2))
const arg = (name: string, fallback: string) => options[name] ?? fallback
const OUT = arg('out', 'bench/results/latency.json')
const SIZES = arg('sizes', '1000,10000,100000').split(',').map(Number)
const QUERIES = Math.max(100, Number(arg('queries', '200')))
/** The scope cache's cap for the headline figure; unless given, its share of the plugin's default memory budget. */
const CACHE_MB = Number(arg('cache-mb', String(Math.floor(DEFAULT_MEMORY_MB * BUDGET_SHARES.scopes))))
/** More caps, for their effect on speed and memory. */
const MORE_CAPS = arg('caps', '0')
  .split(',')
  .filter(Boolean)
  .map(Number)
  .filter((cap) => cap !== CACHE_MB)
/** Channel sizes for `buildContext` (bench/build-context.ts); `--context-sizes 0` leaves it out. */
const CONTEXT_SIZES = arg('context-sizes', '10000,100000')
  .split(',')
  .map(Number)
  .filter((size) => size > 0)
/** Past this size the baselines that scan every row per query (LanceDB without index, the database index) are left out. */
const SLOW_BASELINES_UP_TO = 100_000
const BATCH = 5000

const quiet: Logger = {
  debug() {},
  info() {},
  warn: (...args) => console.warn('[index]', ...args),
  error: (...args) => console.error('[index]', ...args),
}
const log = (...args: unknown[]) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args)

const round = (x: number) => Math.round(x * 100) / 100

/** All rows in memory, for the brute-force baseline. */
class Memory {
  keys: string[] = []
  ids: string[] = []
  vectors: Float32Array
  count = 0
  constructor(
    capacity: number,
    readonly dims: number,
  ) {
    this.vectors = new Float32Array(capacity * dims)
  }
  add(row: IndexRow) {
    this.keys.push(`${row.platform}\u0000${row.user_id}`)
    this.ids.push(row.id)
    this.vectors.set(row.vector, this.count * this.dims)
    this.count++
  }
  /** Exact cosine top-k among one user's rows (vectors are unit length, so cosine = dot). */
  search(user: SyntheticUser, query: Float32Array, k: number): { id: string; score: number }[] {
    const key = `${user.platform}\u0000${user.userId}`
    const top: { id: string; score: number }[] = []
    for (let r = 0; r < this.count; r++) {
      if (this.keys[r] !== key) continue
      let dot = 0
      const base = r * this.dims
      for (let j = 0; j < this.dims; j++) dot += this.vectors[base + j] * query[j]
      if (top.length < k || dot > top[top.length - 1].score) {
        top.push({ id: this.ids[r], score: dot })
        top.sort((a, b) => b.score - a.score)
        if (top.length > k) top.pop()
      }
    }
    return top
  }
}

async function time(queries: { user: SyntheticUser; text: string }[], fn: (q: { user: SyntheticUser; text: string }) => Promise<unknown>) {
  for (const q of queries.slice(0, WARMUP)) await fn(q)
  const times: number[] = []
  for (const q of queries.slice(WARMUP)) {
    const start = performance.now()
    await fn(q)
    times.push(performance.now() - start)
  }
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) }
}

async function benchSize(n: number, embedder: Embedder, users: SyntheticUser[], root: string, database: App) {
  const dir = path.join(root, `n${n}`)
  // configured as the service configures it (src/service.ts)
  const openIndex = async () => {
    const opened = new LanceIndex({ dir, logger: quiet, optimizeEveryWrites: 0, optimizeEveryMs: 0, hybrid: 'parallel' })
    await opened.open()
    await opened.prepare('facts', embedder.id, embedder.dims)
    return opened
  }
  let index = await openIndex()
  // a handle sees only the writes made through it: open the table again to see what was appended
  const reopen = async (old: LanceIndex) => {
    await old.close()
    return openIndex()
  }
  const databaseIndex = new DatabaseIndex(database, { logger: quiet })
  await databaseIndex.open()
  await databaseIndex.prepare(`facts_${n}`, embedder.id, embedder.dims)
  let databaseWriteMs = 0
  const slow = n <= SLOW_BASELINES_UP_TO
  const memory = new Memory(n, embedder.dims)
  // The same rows, in a table with no index at all, for the flat LanceDB figure.
  const conn = await lancedb.connect(dir)
  let plain: Awaited<ReturnType<typeof conn.openTable>> | undefined
  let facts: Awaited<ReturnType<typeof conn.openTable>> | undefined

  let embedMs = 0
  let writeMs = 0
  let batch: IndexRow[] = []
  const flush = async () => {
    let start = performance.now()
    const vectors = await embedder.embed(batch.map((r) => r.text))
    batch.forEach((r, i) => (r.vector = vectors[i]))
    embedMs += performance.now() - start
    start = performance.now()
    if (slow) await index.upsert('facts', batch)
    else {
      // past the small sizes each `mergeInsert` would scan the whole table for ids: append instead (the ids are new)
      facts ??= await conn.openTable('facts')
      await facts.add(batch.map((r) => ({ ...r, vector: Array.from(r.vector), embedder: embedder.id, dims: embedder.dims })))
    }
    writeMs += performance.now() - start
    if (slow) {
      start = performance.now()
      await databaseIndex.upsert(`facts_${n}`, batch)
      databaseWriteMs += performance.now() - start
    }
    for (const r of batch) memory.add(r)
    if (slow) {
      const records = batch.map((r) => ({ ...r, vector: Array.from(r.vector), embedder: embedder.id, dims: embedder.dims }))
      if (!plain) plain = await conn.createTable('plain', records)
      else await plain.add(records)
    }
    batch = []
  }
  for (const fact of makeFacts(users, n)) {
    batch.push({ ...fact, vector: new Float32Array(0) })
    if (batch.length === BATCH) {
      await flush()
      if (!slow && memory.count % 100_000 === 0) {
        // as the product does every few hundred writes: fold what was appended into the indexes as it grows
        index = await reopen(index)
        await index.optimize()
        log(`n=${n}: ${memory.count} rows written and indexed`)
      }
    }
  }
  if (batch.length) await flush()
  if (!slow) index = await reopen(index)
  const start = performance.now()
  await index.optimize()
  const optimizeMs = performance.now() - start
  await plain?.optimize()
  log(`n=${n}: embedded in ${Math.round(embedMs)} ms, upserted in ${Math.round(writeMs)} ms, optimized in ${Math.round(optimizeMs)} ms`)

  const random = rng(1000 + n)
  const queries = Array.from({ length: WARMUP + QUERIES }, () => {
    const user = users[Math.floor(random() * users.length)]
    return { user, text: makeQuery(user, random) }
  })
  const scopeOf = (user: SyntheticUser) => ({ platform: user.platform, userId: user.userId })

  // main's `retrieve`: embed the query, LanceDB's hybrid search in the user's scope, rerank — no scope cache
  const retriever = new Retriever({ embedder, index, table: 'facts', counters: new Counters(), logger: quiet })
  const mainIds: string[][] = []
  const main = await time(queries, async ({ user, text }) => {
    const hits = await retriever.retrieve(scopeOf(user), text, LIMIT, 0)
    mainIds.push(hits.map((hit) => hit.id))
  })
  mainIds.splice(0, WARMUP)
  const baseline = await time(queries, async ({ user, text }) => {
    const [vector] = await embedder.embed([text])
    return memory.search(user, vector, LIMIT)
  })
  const noIndex = !plain
    ? undefined
    : await time(queries, async ({ user, text }) => {
        const [vector] = await embedder.embed([text])
        return plain!
          .query()
          .nearestTo(vector)
          .distanceType('cosine')
          .where(lanceWhere(scopeOf(user)))
          .select(['id', 'text', '_distance'])
          .limit(LIMIT)
          .toArray()
      })

  // LanceDB's own hybrid query (fullTextSearch().nearestTo().rerank(RRF)) on the same table
  const nativeIndex = new LanceIndex({ dir, logger: quiet, optimizeEveryWrites: 0, optimizeEveryMs: 0, hybrid: 'lancedb' })
  await nativeIndex.open()
  await nativeIndex.prepare('facts', embedder.id, embedder.dims)
  const native = await time(queries, async ({ user, text }) => {
    const [vector] = await embedder.embed([text])
    return nativeIndex.search('facts', { vector, text, scope: scopeOf(user), limit: LIMIT })
  })
  await nativeIndex.close()

  const databaseRetriever = new Retriever({ embedder, index: databaseIndex, table: `facts_${n}`, counters: new Counters(), logger: quiet })
  const onDatabase = slow ? await time(queries, ({ user, text }) => databaseRetriever.retrieve(scopeOf(user), text, LIMIT, 0)) : undefined
  await databaseIndex.clear(`facts_${n}`)

  // Vector-only `nearest` of LanceDB (what de-duplication used): latency, and recall against the exact top 10
  let recall = 0
  const nearest = await time(queries, async ({ user, text }) => {
    const [vector] = await embedder.embed([text])
    return index.nearest('facts', vector, scopeOf(user), LIMIT)
  })
  const exact: { id: string; score: number }[][] = []
  for (const { user, text } of queries.slice(WARMUP)) {
    const [vector] = await embedder.embed([text])
    exact.push(memory.search(user, vector, LIMIT))
    recall += recallAt10(exact[exact.length - 1], await index.nearest('facts', vector, scopeOf(user), LIMIT))
  }

  const lanceIndices = (await (await conn.openTable('facts')).listIndices()).map((i) => `${i.columns.join(',')}:${i.indexType}`)
  conn.close()
  await index.close()

  // the product: the same retrieve with the scope cache in front, per cap, each in a process of its own
  const caps = [CACHE_MB, ...MORE_CAPS].map((cap) => cachedRun(dir, n, cap))
  const [cached] = caps
  const agreement = mainIds.reduce((sum, ids, i) => sum + overlap(ids, cached.ids[i]), 0) / mainIds.length
  const cachedRecall = cached.nearest.reduce((sum, hits, i) => sum + recallAt10(exact[i], hits), 0) / exact.length
  const result = {
    n,
    p50_ms: cached.p50_ms,
    p95_ms: cached.p95_ms,
    cold_p95_ms: cached.cold_p95_ms,
    cache_mb: CACHE_MB,
    cache_hit_rate: cached.hit_rate,
    recall_at_10: round(cachedRecall),
    agreement_at_10_with_main: round(agreement),
    baseline_p95_ms: baseline.p95,
    baseline_p50_ms: baseline.p50,
    main_p50_ms: main.p50,
    main_p95_ms: main.p95,
    caps: caps.map(({ ids: _ids, nearest: _nearest, ...figures }) => figures),
    lancedb_noindex_p50_ms: noIndex?.p50 ?? null,
    lancedb_noindex_p95_ms: noIndex?.p95 ?? null,
    native_hybrid_p50_ms: native.p50,
    native_hybrid_p95_ms: native.p95,
    nearest_p50_ms: nearest.p50,
    nearest_p95_ms: nearest.p95,
    lancedb_nearest_recall_at_10: round(recall / QUERIES),
    database_p50_ms: onDatabase?.p50 ?? null,
    database_p95_ms: onDatabase?.p95 ?? null,
    database_insert_rows_per_s: slow ? Math.round(n / ((embedMs + databaseWriteMs) / 1000)) : null,
    queries: QUERIES,
    [slow ? 'insert_rows_per_s' : 'append_rows_per_s']: Math.round(n / ((embedMs + writeMs) / 1000)),
    optimize_ms: Math.round(optimizeMs),
    indices: lanceIndices,
  }
  log(JSON.stringify(result))
  return result
}

/** Recall of `hits` against the exact top 10: a hit counts when it is at least as close as the exact 10th neighbour (ties make ids ambiguous). */
function recallAt10(exact: { score: number }[], hits: { similarity: number }[]): number {
  if (!exact.length) return 1
  const bar = exact[exact.length - 1].score
  return Math.min(exact.length, hits.filter((h) => h.similarity >= bar - 1e-5).length) / exact.length
}

function overlap(a: string[], b: string[]): number {
  if (!a.length && !b.length) return 1
  const seen = new Set(a)
  return b.filter((id) => seen.has(id)).length / Math.max(a.length, b.length)
}

interface CachedRun {
  cap_mb: number
  cold_p95_ms: number
  p50_ms: number
  p95_ms: number
  hit_rate: number
  cache_mb: number
  scopes: number
  rss_idle_mb: number
  ids: string[][]
  nearest: { id: string; similarity: number }[][]
}

function cachedRun(dir: string, n: number, cap: number): CachedRun {
  log(`n=${n}: scope cache of ${cap} MB (bench/latency-cache.ts)`)
  const out = path.join(dir, `cache-${cap}.json`)
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx')
  const child = spawnSync(
    tsx,
    [
      path.join(__dirname, 'latency-cache.ts'),
      '--dir',
      dir,
      '--n',
      String(n),
      '--cache-mb',
      String(cap),
      '--queries',
      String(QUERIES),
      '--out',
      out,
    ],
    { encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 64 * 2 ** 20, env: { ...process.env, NODE_OPTIONS: '--expose-gc' } },
  )
  if (child.status !== 0) throw new Error(`the cache run failed: ${child.error?.message ?? child.stderr}`)
  const result = JSON.parse(fs.readFileSync(out, 'utf8')) as CachedRun
  const { ids: _ids, nearest: _nearest, ...figures } = result
  log(JSON.stringify(figures))
  return result
}

function measureCapture(): Record<string, unknown> | undefined {
  const file = path.join(__dirname, 'capture-overhead.ts')
  if (!fs.existsSync(file)) return undefined
  log('measuring capture overhead (bench/capture-overhead.ts)')
  const script = `
    const m = require(${JSON.stringify(file)})
    if (typeof m.measureCaptureP95 !== 'function') { console.log('@@' + JSON.stringify(null)); process.exit(0) }
    m.measureCaptureP95().then((r) => { console.log('@@' + JSON.stringify(r)); process.exit(0) })`
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx')
  const child = spawnSync(tsx, ['-e', script], { encoding: 'utf8', timeout: 5 * 60_000, maxBuffer: 64 * 2 ** 20 })
  const line = child.stdout?.split('\n').find((l) => l.startsWith('@@'))
  if (!line) {
    const why = child.error?.message ?? `exit ${child.status}: ${(child.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`
    log('capture overhead failed:', why)
    return { capture_error: why.slice(0, 500) }
  }
  const result: unknown = JSON.parse(line.slice(2))
  if (typeof result === 'number') return { capture_p95_ms: round(result) }
  if (result && typeof result === 'object') return result as Record<string, unknown>
  return undefined
}

function lanceVersion(): string {
  // The package's `exports` hide package.json; find it beside the resolved entry point.
  let dir = path.dirname(require.resolve('@lancedb/lancedb'))
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir)
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
}

async function main() {
  const started = Date.now()
  const embedder = new OfflineEmbedder()
  const users = makeUsers(USERS)
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bench-latency-'))
  const cpus = os.cpus()
  const machine = {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    lancedb: lanceVersion(),
    embedder: `${embedder.id} (${embedder.dims} dims)`,
    date: new Date().toISOString(),
    /** 1-minute load average at the start; the machine may be shared, so figures move with it. */
    loadavg_start: round(os.loadavg()[0]),
  }
  log('machine', machine)
  const output: Record<string, unknown> = { machine, retrieve: [] as unknown[] }
  const database = new App()
  database.plugin(SQLiteDriver, { path: ':memory:' })
  await database.start()
  await new Promise<void>((resolve) => database.inject(['database'], () => resolve()))
  defineVectorTables(database)
  try {
    for (const n of SIZES) (output.retrieve as unknown[]).push(await benchSize(n, embedder, users, root, database))
  } finally {
    await database.stop()
    fs.rmSync(root, { recursive: true, force: true })
  }

  if (CONTEXT_SIZES.length) {
    log(`buildContext in channels of ${CONTEXT_SIZES.join(', ')} messages (bench/build-context.ts)`)
    output.build_context = await measureBuildContext(CONTEXT_SIZES, QUERIES)
  }

  ;(machine as Record<string, unknown>).loadavg_end = round(os.loadavg()[0])
  // Results so far are on disk before the capture step, whatever happens to it.
  fs.mkdirSync(path.dirname(path.resolve(OUT)), { recursive: true })
  fs.writeFileSync(OUT, JSON.stringify(output, null, 2) + '\n')

  // ── capture overhead hook ─────────────────────────────────────────────────
  // The lead's `bench/capture-overhead.ts` measures Koishi's `message` event with and without the
  // plugin. `capture_p95_ms` is written only when that module exports `measureCaptureP95()`. It runs
  // in a child process so that a crash inside Koishi cannot take this run's results with it.
  const capture = measureCapture()
  if (capture) Object.assign(output, capture)

  output.duration_s = Math.round((Date.now() - started) / 1000)
  fs.mkdirSync(path.dirname(path.resolve(OUT)), { recursive: true })
  fs.writeFileSync(OUT, JSON.stringify(output, null, 2) + '\n')
  console.log(JSON.stringify(output, null, 2))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
