/**
 * How long the plugin takes to start and to reload on a large store, and what it holds at idle.
 *
 *   npm run bench:startup -- [--facts 100000] [--messages 200000] [--channels 100] [--out FILE] [--store DIR]
 *
 * 1. Builds a store in a temp folder (SQLite in a file, LanceDB beside it): `--facts` synthetic facts
 *    (bench/synthetic-facts.ts, 200 users) and `--messages` synthetic chat lines over `--channels` group
 *    channels (bench/synthetic-chat.ts), written straight to their tables and index tables in large
 *    batches, the index tables then optimized (as the plugin's timers would have done). Each channel's
 *    watermark stands two hours before its last line, so a start finds the dialogues of the last two
 *    hours to read back, as after a restart. `--store DIR` builds there once and reuses it afterwards.
 * 2. In a fresh process (so its memory is the plugin's alone): Koishi and the database start, then the
 *    memory plugin is added. `start_ms`: from adding it to the first answered `retrieve` (a user's facts);
 *    `ready_ms`: until the start-up work the plugin does in the background is done too, asked for right
 *    after that answer (by itself the plugin begins it a few seconds after the start); `rss_idle_mb`:
 *    the process's resident memory after that and a full GC (the default memory budget).
 * 3. A settings change as the console's settings page makes it (`fork.update(config)`: Koishi disposes
 *    the plugin and starts it anew): `reload_ms` until the new instance answers `retrieve`;
 *    `reload_ready_ms` until its background work is done. `stop_ms`: the app's stop at the end.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { App } from 'koishi'
import type { ConfigInput } from '../src'
import type { MemoryService } from '../src'
import { internalsOf } from '../src/compose'
import type { FactRow } from '../src/facts'
import type { MessageRow } from '../src/messages'
import { bootApp, log, machine, plugMemory, revision, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { USERS } from './latency-setup'
import { makeChat, makeMembers } from './synthetic-chat'
import { makeFacts, makeQuery, makeUsers, rng } from './synthetic-facts'

const ROOT = join(__dirname, '..')
const BATCH = 5000
const MEMBERS = 12
/** Each channel's watermark stands this long before its last line: what a start reads back. */
const UNMEMORISED_MS = 2 * 3_600_000
const BUILT = 'startup-store.json'
/** The setting the reload changes, as an owner would on the settings page. */
const RELOAD_CHANGE: ConfigInput = { retrieval: { topK: 7 } }

interface StoreShape {
  facts: number
  messages: number
  channels: number
}

const round = (x: number) => Math.round(x)
const megabytes = (bytes: number) => Math.round(bytes / 2 ** 20)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Writes the store: facts and messages in their tables and their index tables, in large batches. */
async function buildStore(dir: string, shape: StoreShape): Promise<number> {
  const began = performance.now()
  const bench = await bootApp({}, { dir, keep: true })
  try {
    const { app } = bench
    const memory = internalsOf(app.memory)
    const facts = memory.modules.part('facts')
    const { index: messageIndex, watermarks } = memory.modules.part('messages')
    const users = makeUsers(USERS)
    let batch: FactRow[] = []
    const writeFacts = async () => {
      // one transaction a batch: SQLite in a file otherwise commits (and syncs) every row
      await app.database.withTransaction(async (db) => void (await db.upsert('memory_fact', batch)))
      await facts.index.write(batch)
      batch = []
    }
    for (const fact of makeFacts(users, shape.facts)) {
      const at = new Date(fact.created_at)
      batch.push({
        id: fact.id,
        platform: fact.platform,
        guildId: fact.guild_id,
        channelId: fact.channel_id,
        userId: fact.user_id,
        content: fact.text,
        reason: '',
        version: 1,
        parentId: '',
        sourceIds: [],
        createdAt: at,
        updatedAt: at,
        validFrom: at,
        validTo: null,
        supersededBy: '',
      })
      if (batch.length === BATCH) await writeFacts()
    }
    if (batch.length) await writeFacts()
    log(`${shape.facts} facts written in ${round(performance.now() - began)} ms`)

    const end = new Date(Date.now() - 60_000)
    const perChannel = Math.ceil(shape.messages / shape.channels)
    let pending: MessageRow[] = []
    const writeMessages = async () => {
      await app.database.withTransaction(async (db) => void (await db.upsert('memory_message', pending)))
      await messageIndex.indexed.write(pending.filter((row) => !row.isCommand && row.content.trim()))
      pending = []
    }
    for (let c = 0; c < shape.channels; c++) {
      const count = Math.min(perChannel, shape.messages - c * perChannel)
      if (count <= 0) break
      const channelId = `group${c}`
      const lines = makeChat(makeMembers(MEMBERS, c + 1), { platform: 'mock', channelId, messages: count, end, seed: c + 1 })
      for (const line of lines) {
        pending.push(line.row)
        if (pending.length === BATCH) await writeMessages()
      }
      await watermarks.advance({ platform: 'mock', channelId }, new Date(lines[lines.length - 1].row.createdAt.getTime() - UNMEMORISED_MS))
    }
    if (pending.length) await writeMessages()
    log(`${shape.messages} messages written in ${round(performance.now() - began)} ms`)
    await memory.index.optimize(facts.index.table)
    await memory.index.optimize(messageIndex.table)
  } finally {
    await bench.stop()
  }
  const ms = performance.now() - began
  writeFileSync(join(dir, BUILT), JSON.stringify({ ...shape, build_ms: round(ms) }))
  log(`store built in ${round(ms)} ms`)
  return ms
}

/** The service once it is there and is not `previous` (Koishi sets it when its start has finished). */
async function serviceAfter(app: App, previous?: MemoryService): Promise<MemoryService> {
  for (;;) {
    const service = app.memory as MemoryService | undefined
    if (service && service !== previous) return service
    await sleep(1)
  }
}

/** Waits for the start-up work a service does after it answers (nothing more on a start that does it all first). */
async function warmedUp(service: MemoryService): Promise<void> {
  const lifecycle = internalsOf(service).lifecycle as { ready?: () => Promise<void> }
  await lifecycle.ready?.()
}

/** Runs in its own process: times the start, the idle memory and a reload on the built store. */
async function measure(dir: string, out: string) {
  const users = makeUsers(USERS)
  const random = rng(7)
  const asker = users[0]
  const ask = (service: MemoryService) => service.retrieve(asker.userId, makeQuery(asker, random), { platform: asker.platform })

  const bench = await bootApp({}, { dir, keep: true, memoryLater: true })
  const { app } = bench
  let began = performance.now()
  const fork = plugMemory(app, dir)
  const service = await serviceAfter(app)
  const hits = await ask(service)
  const startMs = performance.now() - began
  await warmedUp(service)
  const readyMs = performance.now() - began
  log(`start ${round(startMs)} ms (${hits.length} memories), ready ${round(readyMs)} ms`)
  ;(globalThis as { gc?: () => void }).gc?.()
  await sleep(100)
  const rssIdle = process.memoryUsage().rss

  began = performance.now()
  fork.update({ store: { path: join(dir, 'lancedb') }, ...RELOAD_CHANGE })
  const reloaded = await serviceAfter(app, service)
  const reloadHits = await ask(reloaded)
  const reloadMs = performance.now() - began
  await warmedUp(reloaded)
  const reloadReadyMs = performance.now() - began
  log(`reload ${round(reloadMs)} ms (${reloadHits.length} memories), ready ${round(reloadReadyMs)} ms`)
  ;(globalThis as { gc?: () => void }).gc?.()
  await sleep(100)
  const rssReloaded = process.memoryUsage().rss

  began = performance.now()
  // as Koishi stops: what waits to be memorised is left to the next start
  await bench.stop({ flush: false })
  const stopMs = performance.now() - began
  writeFileSync(
    out,
    JSON.stringify({
      start_ms: round(startMs),
      ready_ms: round(readyMs),
      reload_ms: round(reloadMs),
      reload_ready_ms: round(reloadReadyMs),
      stop_ms: round(stopMs),
      rss_idle_mb: megabytes(rssIdle),
      rss_after_reload_mb: megabytes(rssReloaded),
      start_memories: hits.length,
      reload_memories: reloadHits.length,
    }),
  )
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  if (options.measure) return measure(options.measure, options.result)
  const shape: StoreShape = {
    facts: intOption(options, 'facts', 100_000),
    messages: intOption(options, 'messages', 200_000),
    channels: intOption(options, 'channels', 100),
  }
  const started = new Date()
  const rev = revision(ROOT)
  const kept = options.store
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'memory-startup-'))
  try {
    let buildMs: number | null = null
    const built = kept && existsSync(join(kept, BUILT)) ? (JSON.parse(readFileSync(join(kept, BUILT), 'utf8')) as StoreShape) : undefined
    if (built && (built.facts !== shape.facts || built.messages !== shape.messages || built.channels !== shape.channels))
      throw new Error(`${kept} holds another store (${JSON.stringify(built)}); name an empty folder`)
    if (!built) {
      mkdirSync(dir, { recursive: true })
      buildMs = await buildStore(dir, shape)
    } else log(`reusing the store in ${dir}`)
    const result = join(dir, 'startup-result.json')
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx')
    const child = spawnSync(tsx, [__filename, '--measure', dir, '--result', result], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim() },
      timeout: 30 * 60_000,
    })
    if (child.status !== 0) throw new Error(`the measuring process failed (exit ${child.status ?? child.signal})`)
    const figures = JSON.parse(readFileSync(result, 'utf8')) as Record<string, number>
    writeResult(
      {
        ...figures,
        ...shape,
        build_ms: buildMs === null ? null : round(buildMs),
        date: started.toISOString(),
        machine: machine(),
        revision: rev,
      },
      options.out,
    )
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
