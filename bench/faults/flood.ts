/**
 * Fault family `flood`: 5,000 messages over 20 channels (16 groups of three speakers, 4 private chats),
 * one lane per channel, all lanes at once, each sending its next message as soon as Koishi has
 * processed the last (as fast as the mock adapter goes), with `retrieve` and `buildContext` called in
 * a loop beside them. Then `stop({ flush: false })` at once (as Koishi stops) and a new start on the
 * same folder. Trials:
 *   - stored: every message sent is a row of `memory_message` after the restart (`lost` += missing);
 *   - not dropped: the recorder's `capture.dropped` is 0 (a dropped row is also missing above, so it
 *     is counted as lost there only);
 *   - indexed: after the restart every indexable message is in the LanceDB `messages` table (`lost`
 *     += missing);
 *   - reads: no `retrieve` or `buildContext` beside the flood threw (both promise never to);
 *   - stop: stopping with work queued gives up no dialogue (`memorize.abandoned` stays 0): the backlog
 *     promises a doubling wait between attempts and to leave what it cannot do to the watermarks;
 *   - versions: the `messages` table's versions on disk (files in `messages.lance/_versions`) at the
 *     stop, after the restart settled, and after the plugin's own `index.optimize()` once the flood's
 *     versions are past its cleanup window (2 minutes, `cleanupOlderThanMs` in
 *     `src/store/lance-index.ts`; it was an hour). Passes when that optimize leaves at most
 *     `VERSION_BOUND` ("few": the latest version and the ones an optimize and its index updates add).
 * The figures are returned beside the tally (`messages_per_s`, read latencies, versions, sizes).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ConfigInput } from '../../src'
import type { BenchApp } from '../lib/app'
import { bootApp, log } from '../lib/app'
import type { Family, FamilyResult } from './family'
import { Tally } from './family'
import { floodLanes, sendLanes } from './lanes'
import { internalsOf } from '../../src/compose'

/** The flood's size; the short form (CI) floods less and does not wait out the cleanup window. */
const SIZES = { full: { messages: 5000, groups: 16 }, short: { messages: 800, groups: 6 } }
const PRIVATE = 4
/** Most versions of the `messages` table left on disk after the flood and one optimize. */
const VERSION_BOUND = 20
/** The plugin's cleanup window for old versions, and a few seconds more. */
const CLEANUP_MS = 2 * 60_000 + 5000
const SEED = 20_020

/** Defaults, but dialogues that end at a count (the flood memorises as it goes) and a short outbox timer. */
const FLOOD_CONFIG: ConfigInput = {
  memorize: { privateEvery: 5, groupEvery: 10, quietSeconds: 600, privateQuietSeconds: 600 },
  store: { retryIntervalSeconds: 1 },
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const run: Family = async ({ short = false } = {}) => {
  const size = SIZES[short ? 'short' : 'full']
  const tally = new Tally()
  const dir = mkdtempSync(join(tmpdir(), 'memory-flood-'))
  const versionsDir = join(dir, 'lancedb', 'messages.lance', '_versions')
  let app: BenchApp | undefined
  try {
    const lanes = floodLanes({
      messages: size.messages,
      groups: size.groups,
      privates: PRIVATE,
      seed: SEED,
      idPrefix: 'f',
      channelPrefix: 'flood',
    })

    app = await bootApp(FLOOD_CONFIG, { dir, keep: true })
    const { memory } = app.app
    let flooding = true
    const latencies: number[] = []
    const readErrors: string[] = []
    // reads beside the flood: the reply path of a bot in one of the flooded channels
    const reader = (async () => {
      for (let n = 0; flooding; n++) {
        const c = n % size.groups
        const user = `u${c}-${n % 3}`
        const begin = performance.now()
        try {
          if (n % 2) await memory.retrieve(user, '住在哪里', { platform: 'mock', guildId: `flood${c}` })
          else {
            await memory.buildContext({
              platform: 'mock',
              guildId: `flood${c}`,
              channelId: `flood${c}`,
              userId: user,
              content: '周末去哪吃火锅',
              time: new Date(),
            })
          }
        } catch (error) {
          readErrors.push((error as Error).message)
        }
        latencies.push(performance.now() - begin)
        // a read now and then, not a second flood
        await sleep(20)
      }
    })()
    const began = Date.now()
    await sendLanes(app.app, lanes)
    const floodMs = Date.now() - began
    flooding = false
    await reader
    const counters = internalsOf(memory).counters
    const dropped = counters.get('capture.dropped')
    const abandonedBeforeStop = counters.get('memorize.abandoned')
    const figures = {
      rejected: counters.get('capture.rejected'),
      index_skipped: counters.get('messages.index-skipped'),
      topic_dropped: counters.get('topic.dropped'),
      memorize_deferred: counters.get('memorize.deferred'),
    }
    await app.stop({ flush: false })
    app = undefined
    const versionsAtStop = countFiles(versionsDir)
    log(`flood: ${size.messages} messages in ${floodMs} ms, ${latencies.length} reads beside; stopped with ${versionsAtStop} versions`)

    const restartAt = Date.now()
    app = await bootApp(FLOOD_CONFIG, { dir, keep: true })
    await settle(app)
    const settledMs = Date.now() - restartAt
    const versionsAfterFlood = countFiles(versionsDir)
    // the flood's versions (and the restart's) grow older than the cleanup window (not waited for in the short form)
    if (!short) await sleep(Math.max(0, began + floodMs + CLEANUP_MS - Date.now()))
    const optimizeAt = Date.now()
    await internalsOf(app.app.memory).index.optimize()
    const optimizeMs = Date.now() - optimizeAt
    const versionsAfterOptimize = countFiles(versionsDir)
    log(`restarted and settled in ${settledMs} ms; versions ${versionsAfterFlood}, after optimize ${versionsAfterOptimize}`)

    const rows = await app.app.database.get('memory_message', { role: 'user' })
    const stored = new Set(rows.map((row) => row.messageId))
    const missing = lanes.flat().filter((line) => !stored.has(line.id))
    await tally.run('every flooded message is stored after an immediate stop and a restart', async () => ({
      ok: true,
      harm: { lost: missing.length },
      detail: `${stored.size}/${size.messages} stored${missing.length ? `; first missing: ${missing.slice(0, 5).map((line) => line.id)}` : ''}`,
    }))
    await tally.run('no captured message dropped (capture.dropped)', async () => ({
      ok: dropped === 0,
      detail: `capture.dropped ${dropped} (the dropped rows are counted as lost above)`,
    }))
    await tally.run('every stored message is in the messages index after the restart', async () => {
      const indexed = new Set(await internalsOf(app!.app.memory).index.ids('messages'))
      const all = await app!.app.database.get('memory_message', {})
      const wanted = all.filter((row) => !row.isCommand && row.content.trim())
      const notIndexed = wanted.filter((row) => !indexed.has(row.id)).length
      return { ok: true, harm: { lost: notIndexed }, detail: `${wanted.length - notIndexed}/${wanted.length} indexed` }
    })
    const sorted = [...latencies].sort((a, b) => a - b)
    const pct = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0)
    await tally.run('retrieve and buildContext beside the flood never threw', async () => ({
      ok: readErrors.length === 0 && latencies.length > 0,
      detail: `${latencies.length} reads, ${readErrors.length} threw${readErrors.length ? `: ${readErrors[0]}` : ''}; p50 ${pct(50)} ms, p95 ${pct(95)} ms`,
    }))
    if (!short)
      await tally.run(
        `the messages table keeps at most ${VERSION_BOUND} versions once the flood's are past the cleanup window`,
        async () => ({
          ok: versionsAfterOptimize <= VERSION_BOUND,
          detail: `versions: ${versionsAtStop} at the stop, ${versionsAfterFlood} after the restart settled, ${versionsAfterOptimize} after optimize (${optimizeMs} ms)`,
        }),
      )

    // the stopped app's jobs have long ended by now: what its stop gave up
    const abandonedAtStop = counters.get('memorize.abandoned') - abandonedBeforeStop
    await tally.run('the stop gives up no dialogue (memorize.abandoned)', async () => ({
      ok: abandonedAtStop === 0 && abandonedBeforeStop === 0,
      detail:
        `${abandonedBeforeStop} dialogues given up during the flood, ${abandonedAtStop} while stopping ` +
        `(their watermarks hold them for the restart only when the database is already gone); ` +
        `${counters.get('capture.write-failed')} failed message writes retried after the database stopped`,
    }))

    await app.stop()
    app = undefined
    const lancedbMb = megabytes(join(dir, 'lancedb'))
    const tables = Object.fromEntries(
      readdirSync(join(dir, 'lancedb'))
        .filter((name) => name.endsWith('.lance'))
        .map((name) => [
          name.replace(/\.lance$/, ''),
          { mb: megabytes(join(dir, 'lancedb', name)), versions: countFiles(join(dir, 'lancedb', name, '_versions')) },
        ]),
    )

    for (const line of tally.result.failures) log(`failed: ${line}`)
    const result: FamilyResult & Record<string, unknown> = {
      ...tally.result,
      messages: size.messages,
      channels: lanes.length,
      flood_seconds: Math.round(floodMs / 100) / 10,
      messages_per_s: Math.round(size.messages / (floodMs / 1000)),
      reads_beside: latencies.length,
      read_p50_ms: pct(50),
      read_p95_ms: pct(95),
      read_max_ms: Math.round(sorted.at(-1) ?? 0),
      capture_dropped: dropped,
      abandoned_at_stop: abandonedAtStop,
      ...figures,
      restart_settled_ms: settledMs,
      versions_at_stop: versionsAtStop,
      versions_after_flood: versionsAfterFlood,
      versions_after_optimize: versionsAfterOptimize,
      lancedb_mb: lancedbMb,
      lancedb_tables: tables,
      sqlite_mb: megabytes(join(dir, 'koishi.db')),
    }
    return result
  } finally {
    await app?.stop({ flush: false }).catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Waits for the replayed journal to be stored and indexed and the outbox to drain: two calm polls, at most 60 s. */
async function settle({ app }: BenchApp): Promise<void> {
  const from = Date.now()
  let calm = 0
  while (calm < 2 && Date.now() - from < 60_000) {
    await app.memory.flush()
    await app.memory.flushOutbox()
    const status = await app.memory.status()
    calm = status.queue === 0 && status.outbox === 0 && status.captureBuffer === 0 ? calm + 1 : 0
    await sleep(300)
  }
}

function countFiles(dir: string): number {
  try {
    return readdirSync(dir).length
  } catch {
    return 0
  }
}

function megabytes(path: string): number {
  const size = (p: string): number => {
    const stat = statSync(p)
    if (!stat.isDirectory()) return stat.size
    return readdirSync(p).reduce((sum, name) => sum + size(join(p, name)), 0)
  }
  try {
    return Math.round((size(path) / 2 ** 20) * 10) / 10
  } catch {
    return 0
  }
}
