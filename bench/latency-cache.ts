/**
 * One cap of the scope cache, in a process of its own so that its resident memory is the plugin's and
 * not the benchmark's: opens the LanceDB folder `bench/latency.ts` filled, puts `ScopeCache` in front
 * of it as the service does, and runs the service's `Retriever` over the same queries as the parent.
 *
 *   tsx bench/latency-cache.ts --dir DIR --n N --cache-mb MB --out FILE [--queries 200]
 *
 * Writes { cap_mb, cold_p50_ms, cold_p95_ms, p50_ms, p95_ms, hit_rate, cache_mb, scopes, rss_idle_mb,
 * rss_start_mb, ids, nearest } to FILE: `cold` is each user's first query (the store answers it while
 * the scope loads beside it), then the parent's 20 warm-up and timed queries; `ids` the top 10 of each timed query, `nearest` the vector-only
 * neighbours (id, similarity) of each, for the parent to compare with exact search.
 */
import * as fs from 'node:fs'
import { performance } from 'node:perf_hooks'
import { Retriever } from '../src/facts'
import { Counters } from '../src/core/observability'
import type { Logger } from '../src/core/observability'
import { LanceIndex } from '../src/store/lance-index'
import { ScopeCache } from '../src/store/scope-cache'
import { OfflineEmbedder } from '../src/providers/offline-embedder'
import { makeQuery, makeUsers, rng } from './synthetic-facts'
import { percentile } from './lib/metrics'
import { LIMIT, USERS, WARMUP } from './latency-setup'
import { parseArgs } from './lib/args'

const quiet: Logger = { debug() {}, info() {}, warn: console.warn, error: console.error }
const round = (x: number) => Math.round(x * 100) / 100
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

const options = parseArgs(process.argv.slice(2))
const arg = (name: string, fallback: string) => options[name] ?? fallback

async function main() {
  const dir = arg('dir', '')
  const n = Number(arg('n', '0'))
  const capMb = Number(arg('cache-mb', '0'))
  const queryCount = Math.max(100, Number(arg('queries', '200')))
  const out = arg('out', '')
  const rssStart = process.memoryUsage().rss
  const embedder = new OfflineEmbedder()
  const users = makeUsers(USERS)
  const store = new LanceIndex({ dir, logger: quiet, optimizeEveryWrites: 0, optimizeEveryMs: 0, hybrid: 'parallel' })
  const index = new ScopeCache(store, { capBytes: capMb * 2 ** 20, logger: quiet })
  await index.open()
  await index.prepare('facts', embedder.id, embedder.dims)
  const retriever = new Retriever({ embedder, index, table: 'facts', counters: new Counters(), logger: quiet })
  const scopeOf = (user: (typeof users)[number]) => ({ platform: user.platform, userId: user.userId })

  const random = rng(1000 + n)
  const queries = Array.from({ length: WARMUP + queryCount }, () => {
    const user = users[Math.floor(random() * users.length)]
    return { user, text: makeQuery(user, random) }
  })
  const firstRandom = rng(7 + n)
  const cold: number[] = []
  for (const user of users) {
    const start = performance.now()
    await retriever.retrieve(scopeOf(user), makeQuery(user, firstRandom), LIMIT, 0)
    cold.push(performance.now() - start)
  }
  // the scopes load beside the searches the store answered; a running bot has them by its next message
  await index.settled()
  for (const { user, text } of queries.slice(0, WARMUP)) await retriever.retrieve(scopeOf(user), text, LIMIT, 0)
  const before = index.stats()
  const times: number[] = []
  const ids: string[][] = []
  for (const { user, text } of queries.slice(WARMUP)) {
    const start = performance.now()
    const hits = await retriever.retrieve(scopeOf(user), text, LIMIT, 0)
    times.push(performance.now() - start)
    ids.push(hits.map((hit) => hit.id))
  }
  const after = index.stats()
  const nearest: { id: string; similarity: number }[][] = []
  for (const { user, text } of queries.slice(WARMUP)) {
    const [vector] = await embedder.embed([text])
    nearest.push((await index.nearest('facts', vector, scopeOf(user), LIMIT)).map((hit) => ({ id: hit.id, similarity: hit.similarity })))
  }
  global.gc?.()
  await new Promise((resolve) => setTimeout(resolve, 200))
  global.gc?.()
  const result = {
    cap_mb: capMb,
    cold_p50_ms: round(percentile(cold, 50)),
    cold_p95_ms: round(percentile(cold, 95)),
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    hit_rate: round((after.hits - before.hits) / Math.max(1, after.hits - before.hits + after.misses - before.misses)),
    cache_mb: mb(after.bytes),
    scopes: after.scopes,
    rows: after.rows,
    rss_start_mb: mb(rssStart),
    rss_idle_mb: mb(process.memoryUsage().rss),
    ids,
    nearest,
  }
  await index.close()
  fs.writeFileSync(out, JSON.stringify(result))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
