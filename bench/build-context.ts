/**
 * How long `ctx.memory.buildContext` takes on the reply path, in one group channel of 10,000 and of
 * 100,000 messages.
 *
 *   tsx bench/build-context.ts [--sizes 10000,100000] [--queries 200] [--out FILE]
 *
 * For each size, a fresh Koishi (bench/lib/app.ts: mock adapter, SQLite in memory, the plugin with its
 * offline defaults, LanceDB in a temp folder) gets one group channel of synthetic chat
 * (bench/synthetic-chat.ts). Replaying that many messages through the adapter would take most of an
 * hour, so the rows are written as the capture path writes them, through the plugin's own parts and
 * in batches: the message table, the message index (then optimized, as its timer would have done) and
 * the channel's term statistics.
 *
 * Then come the targets, one at a time, each a new message from a member, 30 s after the one before,
 * asking about something said more than a day earlier (so the semantic path has to find it); one in
 * four quotes that message. Each target is stored first as capture would store it (in the asking
 * burst's topic, or the quoted message's), but not indexed, so every target meets the same index.
 * After a warm-up, every `buildContext(target)` is timed, and beside it the recent-window-only
 * context (`baseline`): the store's window read (the builder's `maxMessages` within
 * `timeWindowHours`) and the newest of those that fit the token budget, what the builder falls back to;
 * and the message index search the build waits for, on its own (`search_*`: the part of a build that is
 * the vector index's). `retrieve_*`: the asker's memories for the message (`ctx.memory.retrieve` in the
 * group: facts and lines fused), in the same channel.
 */
import { performance } from 'node:perf_hooks'
import type { App } from 'koishi'
import { internalsOf } from '../src/compose'
import type { ContextTarget } from '../src/context'
import type { MessageRow, MirrorStats } from '../src/messages'
import { countTokens, renderLine } from '../src/text/token-count'
import { bootApp, log, machine, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { percentile } from './lib/metrics'
import type { ChatLine, ChatMember } from './synthetic-chat'
import { askAbout, makeChat, makeMembers } from './synthetic-chat'
import { rng } from './synthetic-facts'

const PLATFORM = 'mock'
const CHANNEL = 'bench-group'
const MEMBERS = 12
const BATCH = 2000
const WARMUP = 10
const TARGET_GAP_MS = 30_000
const DAY_MS = 86_400_000

export interface BuildContextTiming {
  messages: number
  targets: number
  p50_ms: number
  p95_ms: number
  max_ms: number
  /** The first build, before the channel is held in memory. */
  cold_ms: number
  /** What the channel's messages held in memory count, after the warm-up. */
  held_mb: number
  held_messages: number
  baseline_p50_ms: number
  baseline_p95_ms: number
  /** The message index search the build waits for (`semanticLimit` hits), on its own. */
  search_p50_ms: number
  search_p95_ms: number
  retrieve_p50_ms: number
  retrieve_p95_ms: number
  /** Builds that fell back to the recent window (timeout or failure). */
  fallbacks: number
  mean_messages_chosen: number
  seed_ms: number
}

/** The service's private parts, as far as seeding and the baselines reach into them. */
function partsOf(app: App) {
  const memory = internalsOf(app.memory)
  const { store: messages, index: messageIndex } = memory.modules.part('messages')
  return { messages, messageIndex, index: memory.index, termStats: memory.modules.part('context').termStats, builder: memory.builder }
}

export async function measureBuildContext(sizes: number[], queries: number): Promise<BuildContextTiming[]> {
  const results: BuildContextTiming[] = []
  for (const size of sizes) results.push(await measureSize(size, Math.max(100, queries)))
  return results
}

async function measureSize(size: number, queries: number): Promise<BuildContextTiming> {
  const bench = await bootApp()
  try {
    const { app } = bench
    const members = makeMembers(MEMBERS, size)
    const end = new Date(Date.now() - 60_000)
    const seedStart = performance.now()
    const lines = makeChat(members, { platform: PLATFORM, channelId: CHANNEL, messages: size, end, seed: size })
    await seed(app, lines)
    const seedMs = performance.now() - seedStart
    log(`${size} messages seeded in ${Math.round(seedMs)} ms`)

    const builds: number[] = []
    const baselines: number[] = []
    const searches: number[] = []
    const recalls: number[] = []
    let fallbacks = 0
    let cold = 0
    let held: MirrorStats | undefined
    let chosen = 0
    const targets = makeTargets(lines, members, end, WARMUP + queries, size)
    for (const [i, { target, row }] of targets.entries()) {
      await store(app, row)
      let start = performance.now()
      const built = await app.memory.buildContext(target)
      const ms = performance.now() - start
      start = performance.now()
      await recentWindow(app, target)
      const baselineMs = performance.now() - start
      start = performance.now()
      await search(app, target)
      const searchMs = performance.now() - start
      start = performance.now()
      await app.memory.retrieve(target.userId, target.content, { platform: target.platform, guildId: target.guildId })
      const recallMs = performance.now() - start
      if (i < WARMUP) {
        if (i === 0) cold = ms
        // what the first builds started (the channel's scope and rows held in memory) has settled
        if (i === WARMUP - 1) {
          await app.memory.flush()
          held = (await app.memory.status()).held
        }
        continue
      }
      builds.push(ms)
      baselines.push(baselineMs)
      searches.push(searchMs)
      recalls.push(recallMs)
      if (built.fallback) fallbacks++
      chosen += built.messages.length
    }
    const round = (x: number) => Math.round(x * 100) / 100
    const result = {
      messages: size,
      targets: builds.length,
      p50_ms: round(percentile(builds, 50)),
      p95_ms: round(percentile(builds, 95)),
      max_ms: round(Math.max(...builds)),
      cold_ms: round(cold),
      held_mb: round((held?.bytes ?? 0) / 2 ** 20),
      held_messages: held?.rows ?? 0,
      baseline_p50_ms: round(percentile(baselines, 50)),
      baseline_p95_ms: round(percentile(baselines, 95)),
      search_p50_ms: round(percentile(searches, 50)),
      search_p95_ms: round(percentile(searches, 95)),
      retrieve_p50_ms: round(percentile(recalls, 50)),
      retrieve_p95_ms: round(percentile(recalls, 95)),
      fallbacks,
      mean_messages_chosen: round(chosen / builds.length),
      seed_ms: Math.round(seedMs),
    }
    log(
      `${size} messages: build p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms; recent window p95 ${result.baseline_p95_ms} ms; index search p95 ${result.search_p95_ms} ms; retrieve p95 ${result.retrieve_p95_ms} ms`,
    )
    return result
  } finally {
    await bench.stop()
  }
}

/** Writes the chat as capture would have: rows, their index entries, the channel's term statistics. */
async function seed(app: App, lines: ChatLine[]) {
  const { messages, messageIndex, index, termStats } = partsOf(app)
  for (let i = 0; i < lines.length; i += BATCH) {
    const rows = lines.slice(i, i + BATCH).map((line) => line.row)
    await messages.upsert(rows)
    for (const row of rows) termStats.add(row, row.content)
    await messageIndex.indexed.write(rows.filter((row) => !row.isCommand && row.content.trim()))
  }
  await index.optimize(messageIndex.table)
}

async function store(app: App, row: MessageRow) {
  const { messages, termStats } = partsOf(app)
  await messages.upsert([row])
  termStats.add(row, row.content)
}

/** Targets about lines more than a day old, each with the row capture stores for it. */
function makeTargets(lines: ChatLine[], members: ChatMember[], end: Date, count: number, seed: number) {
  const random = rng(seed + 1)
  const old = lines.filter(
    (line): line is ChatLine & { subject: string } => line.subject !== undefined && line.row.createdAt.getTime() < end.getTime() - DAY_MS,
  )
  return Array.from({ length: count }, (_, i) => {
    const about = old[Math.floor(random() * old.length)]
    const asker = members[Math.floor(random() * members.length)]
    const quotes = random() < 0.25
    const time = new Date(end.getTime() + (i + 1) * TARGET_GAP_MS)
    const messageId = `q${i}`
    const content = askAbout(about, asker, random)
    const target: ContextTarget = {
      platform: PLATFORM,
      guildId: CHANNEL,
      channelId: CHANNEL,
      userId: asker.userId,
      userName: asker.name,
      content,
      messageId,
      ...(quotes ? { replyMessageId: about.row.messageId } : {}),
      time,
    }
    const row: MessageRow = {
      ...about.row,
      id: `${PLATFORM}:${CHANNEL}:${messageId}`,
      messageId,
      userId: asker.userId,
      userName: asker.name,
      content,
      role: 'user',
      isMentionBot: false,
      isCommand: false,
      replyMessageId: quotes ? about.row.messageId : '',
      rootMessageId: quotes ? about.row.rootMessageId : messageId,
      topicId: quotes ? about.row.topicId : `${CHANNEL}-asking`,
      createdAt: time,
    }
    return { target, row }
  })
}

/** The plain recent window that fits the budget: what a context without relevance costs. */
async function recentWindow(app: App, target: ContextTarget) {
  const { builder, messages } = partsOf(app)
  const { tokenBudget, maxMessages, timeWindowHours } = builder.config
  const rows = await messages.window(target, {
    since: new Date(target.time.getTime() - timeWindowHours * 3_600_000),
    before: target.time,
    limit: maxMessages,
  })
  const kept: MessageRow[] = []
  let used = 0
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i].messageId === target.messageId || rows[i].isCommand) continue
    const cost = countTokens(renderLine(rows[i].userName, rows[i].content)) + 1
    if (used + cost > tokenBudget) break
    kept.push(rows[i])
    used += cost
  }
  return kept.reverse()
}

/** The semantic neighbours' search of the message index, as the builder asks it. */
async function search(app: App, target: ContextTarget) {
  const { messageIndex, builder } = partsOf(app)
  return messageIndex.search(target, target.content, { limit: builder.config.semanticLimit })
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const sizes = (options.sizes ?? '10000,100000').split(',').map(Number)
  const queries = intOption(options, 'queries', 200)
  const buildContext = await measureBuildContext(sizes, queries)
  writeResult({ machine: machine(), build_context: buildContext }, options.out)
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
