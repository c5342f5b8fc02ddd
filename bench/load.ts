/**
 * The plugin under load: many channels talking at once while the reply path reads, then a stop as
 * Koishi stops (nothing written first) and a restart that must find every message.
 *
 *   npm run bench:load -- [--messages 20000] [--channels 50] [--rate N] [--config JSON] [--collect-after-boot] [--out FILE]
 *
 * 1. Boots Koishi (mock adapter, SQLite in a file, the memory on its offline defaults) in a temp folder.
 * 2. Sends `--messages` messages over `--channels` channels (four in five groups of three speakers, the
 *    rest private chats), one lane per channel, all lanes at once, each lane sending its next message as
 *    soon as Koishi has processed the last: as fast as the mock adapter goes. With `--rate N`, N messages a
 *    second over all channels (each lane still waits for its last message), as a bot's groups talk.
 * 3. Beside them, one reader calls `retrieve` and `buildContext` in turn for a flooded group, back to
 *    back (the reply path of a bot in a busy group); their latencies are the `*_under_load` figures.
 *    `event_loop_delay_p95_ms` is how late a timer fires meanwhile: what any work queued on the event
 *    loop waits behind.
 * 4. Every second: the process's RSS and the longest of the background queue, the capture buffer and the
 *    outbox (`ctx.memory.status()`).
 * 5. `stop({ flush: false })` right after the last message (Koishi stops the database before the plugin),
 *    a new start on the same folder, and the `memory_message` rows counted: `lost_at_stop` is what was
 *    sent and is not there.
 * `rss_growth_mb` is RSS after the flood (before the stop) minus RSS after the boot;
 * `rss_growth_second_half_mb` the part of it in the load's second half (flat once the caches are full).
 * `heap_live_mb` is what V8's heap holds after a full collection at the end of the load, and
 * `heap_total_mb` what it had reserved before: V8 lets the heap grow to several times what is live when
 * its limit (`heap_limit_mb`, from the machine's memory or `--max-old-space-size`) is far.
 * `budget_used_mb` is what the caches of the memory budget (`store.memoryMB`, `budget_mb`) hold then.
 * `--collect-after-boot` runs one full collection before the load (and writes `heap_live_at_boot_mb`): a
 * process fresh from its start has had none, and V8 lets its heap grow further before the first; a bot
 * that has run a while has had them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { ConfigInput } from '../src'
import type { BenchApp } from './lib/app'
import { bootApp, log, machine, revision, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { percentile, round4 } from './lib/metrics'
import { floodLanes, sendLanes } from './faults/lanes'
import { internalsOf } from '../src/compose'

const ROOT = join(__dirname, '..')
const SEED = 20_000
/** Dialogues end at a count, so the flood memorises as it goes, as a busy bot does. */
const LOAD_CONFIG: ConfigInput = { memorize: { privateEvery: 5, groupEvery: 10, quietSeconds: 600, privateQuietSeconds: 600 } }

const megabytes = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A full garbage collection, without `--expose-gc` on the command line. */
function collectGarbage() {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const messages = intOption(options, 'messages', 20_000)
  const channels = intOption(options, 'channels', 50)
  const rate = intOption(options, 'rate', 0)
  const config: ConfigInput = { ...LOAD_CONFIG, ...(options.config ? (JSON.parse(options.config) as ConfigInput) : {}) }
  const out = options.out
  const started = new Date()
  const rev = revision(ROOT)
  const dir = mkdtempSync(join(tmpdir(), 'memory-load-'))
  const groups = Math.max(1, Math.round(channels * 0.8))
  const lanes = floodLanes({ messages, groups, privates: channels - groups, seed: SEED, idPrefix: 'l', channelPrefix: 'load' })
  let app: BenchApp | undefined
  try {
    app = await bootApp(config, { dir, keep: true })
    const { memory } = app.app
    const rssAtBoot = process.memoryUsage().rss
    const collectAfterBoot = options['collect-after-boot'] !== undefined
    if (collectAfterBoot) collectGarbage()
    const heapLiveAtBoot = collectAfterBoot ? megabytes(process.memoryUsage().heapUsed) : null
    let loading = true
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()

    const retrieveMs: number[] = []
    const buildMs: number[] = []
    const reader = (async () => {
      for (let n = 0; loading; n++) {
        // a turn of the event loop between reads, as reads that messages trigger have: reads answered
        // from memory alone would otherwise run as one chain of microtasks and starve the flood
        await new Promise((resolve) => setImmediate(resolve))
        const c = n % groups
        const user = `u${c}-${n % 3}`
        const begin = performance.now()
        if (n % 2) {
          await memory.retrieve(user, '住在哪里', { platform: 'mock', guildId: `load${c}` })
          retrieveMs.push(performance.now() - begin)
        } else {
          const target = {
            platform: 'mock',
            guildId: `load${c}`,
            channelId: `load${c}`,
            userId: user,
            content: '周末去哪吃火锅',
            time: new Date(),
          }
          await memory.buildContext(target)
          buildMs.push(performance.now() - begin)
        }
      }
    })()

    let longestQueue = 0
    let longestBuffer = 0
    let longestOutbox = 0
    let peakRss = rssAtBoot
    const rssSeries: { at: number; rss: number }[] = []
    const sampler = (async () => {
      while (loading) {
        const status = await memory.status()
        longestQueue = Math.max(longestQueue, status.queue)
        longestBuffer = Math.max(longestBuffer, status.captureBuffer)
        longestOutbox = Math.max(longestOutbox, status.outbox)
        const rss = process.memoryUsage().rss
        peakRss = Math.max(peakRss, rss)
        rssSeries.push({ at: performance.now(), rss })
        await sleep(1000)
      }
    })()

    const began = performance.now()
    await sendLanes(app.app, lanes, rate || undefined)
    const loadMs = performance.now() - began
    loading = false
    delay.disable()
    await Promise.all([reader, sampler])
    const { rss: rssAfter, heapTotal } = process.memoryUsage()
    collectGarbage()
    const heapLive = process.memoryUsage().heapUsed
    const halfway = rssSeries.find((sample) => sample.at >= began + loadMs / 2)?.rss ?? rssAtBoot
    const { cache, memory: budget } = await memory.status()
    const dropped = internalsOf(memory).counters.get('capture.dropped')
    const deferred = internalsOf(memory).counters.get('memorize.deferred')
    log(
      `load: ${messages} messages over ${channels} channels${rate ? ` at ${rate}/s` : ''} in ${Math.round(loadMs)} ms; ${retrieveMs.length + buildMs.length} reads beside`,
    )

    // as Koishi stops: the database goes before the plugin, nothing is written first
    await app.stop({ flush: false })
    app = await bootApp(config, { dir, keep: true })
    await app.app.memory.flush()
    const rows = await app.app.database.get('memory_message', { role: 'user' }, ['messageId'])
    const stored = new Set(rows.map((row) => row.messageId))
    const lost = lanes.flat().filter((line) => !stored.has(line.id)).length
    log(`after the stop and a restart: ${stored.size} of ${messages} messages stored, ${lost} lost`)

    writeResult(
      {
        messages_sent: messages,
        channels,
        rate: rate || null,
        config: options.config ? JSON.parse(options.config) : null,
        messages_per_s: round4(messages / (loadMs / 1000)),
        rows_in_db: stored.size,
        lost_at_stop: lost,
        rss_growth_mb: megabytes(rssAfter - rssAtBoot),
        rss_peak_mb: megabytes(peakRss),
        rss_growth_second_half_mb: megabytes(rssAfter - halfway),
        heap_live_mb: megabytes(heapLive),
        heap_live_at_boot_mb: heapLiveAtBoot,
        collect_after_boot: collectAfterBoot,
        heap_total_mb: megabytes(heapTotal),
        heap_limit_mb: megabytes(getHeapStatistics().heap_size_limit),
        budget_used_mb: megabytes(budget.usedBytes),
        budget_mb: megabytes(budget.budgetBytes),
        retrieve_p95_ms_under_load: round4(percentile(retrieveMs, 95)),
        retrieve_p50_ms_under_load: round4(percentile(retrieveMs, 50)),
        build_context_p95_ms_under_load: round4(percentile(buildMs, 95)),
        build_context_p50_ms_under_load: round4(percentile(buildMs, 50)),
        event_loop_delay_p95_ms: round4(delay.percentile(95) / 1e6),
        reads_under_load: retrieveMs.length + buildMs.length,
        longest_queue: { background_jobs: longestQueue, capture_buffer: longestBuffer, outbox: longestOutbox },
        counters: { capture_dropped: dropped, memorize_deferred: deferred },
        scope_cache: { hits: cache.hits, misses: cache.misses, scopes: cache.scopes },
        date: started.toISOString(),
        machine: machine(),
        revision: rev,
      },
      out,
    )
  } finally {
    await app?.stop().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
