/**
 * Fault family `kill`: kill -9 at random points of capture and of memorising, then one normal start
 * on what the killed processes left (SQLite file, LanceDB folder, capture journal).
 *
 * A child process (`kill-child.ts`) boots the app on one folder and sends a plan of lines from seven
 * lanes (three users in private, four user × group lanes over two groups; group G2's messages carry
 * their time in whole seconds, as OneBot's do, the others in milliseconds); it prints `ACK <id>` once
 * Koishi has processed a message. The parent sends it SIGKILL after a delay drawn from a seeded
 * generator (the same seed, the same delays), in three kinds of run:
 *   capture    280 lines sent as fast as the lanes go; killed 0.1–1.5 s after READY (mostly while
 *              capturing, with memorising behind it)
 *   memorize   84 lines, killed 0–1.2 s after the last was acknowledged (while memorising only)
 *   boot       killed 0.1–0.9 s after the child's modules loaded (BOOT): during the start-up, while the
 *              journal of the run before is replayed, its dialogues restored and the indexes compared
 *              with the database (a start takes 0.3–1 s here), or just after
 * Each run starts on what the runs before it left, so later runs also replay and restore under a kill.
 *
 * Then the parent starts the app normally on the folder, lets the restored dialogues end and the
 * outbox drain, and judges, for each killed run (one trial per kill), the lines it acknowledged:
 *   - each must be a row of `memory_message` (`lost` += missing);
 *   - each statement must be a fact exactly once, in its speaker's scope (`lost` += no fact,
 *     `duplicates` += rows beyond one). Every acknowledged statement counts: the config ends a dialogue
 *     at each user message (privateEvery = groupEvery = 1), so its dialogue had ended before the ACK
 *     was printed (the tracker ends it synchronously in the 'message' listener). Either it was
 *     memorised before the kill, or the channel's watermark has not passed it and the next start reads
 *     it back (`capture.restore`), where the 1 s quiet sweep ends it. Lines sent but not acknowledged
 *     may or may not be kept (the platform would send them again): they count for nothing, except
 *     that none of their facts may be stored twice either.
 *   The fact a line should give is what the offline rule judge extracts from that line alone, spoken
 *   by its user (each line is built so it gives exactly one fact), compared by content.
 *   `retrieval.dedupeThreshold` is 1, so only the exact-content check merges facts: two different
 *   statements of one user are never folded into one by the offline embedder's similarity, which
 *   would look like a loss and is not what this family measures.
 * and one final trial: every fact and every indexable message in the database is in its index
 * (`lost` += missing; rows in the index without a row in the database are reported), no fact is
 * stored twice, and a third start finds nothing left to memorise (the watermarks moved).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import type { ConfigInput } from '../../src'
import { RuleJudge } from '../../src/facts'
import type { BenchApp } from '../lib/app'
import { bootApp, log } from '../lib/app'
import type { Family, FamilyResult } from './family'
import { Tally } from './family'
import type { Line } from './say'
import { mulberry32 } from './support'
import { internalsOf } from '../../src/compose'

/** What the child and the final start run with: a dialogue ends at each user message, or after 1 s of quiet. */
export const KILL_CONFIG: ConfigInput = {
  memorize: { privateEvery: 1, groupEvery: 1, quietSeconds: 1, privateQuietSeconds: 1, retrySeconds: 1 },
  retrieval: { dedupeThreshold: 1 },
  store: { retryIntervalSeconds: 1 },
}

/** What the parent hands a child: the folder to boot on and the lines to send. */
export interface KillPlan {
  dir: string
  lines: Line[]
  /** Channels whose messages carry a time in whole seconds, as OneBot's do (the others: milliseconds). */
  secondsChannels: string[]
}

type Kind = 'capture' | 'memorize' | 'boot'

const LANES: { user: string; channel?: string }[] = [
  { user: 'p1' },
  { user: 'p2' },
  { user: 'p3' },
  { user: 'ga', channel: 'G1' },
  { user: 'gb', channel: 'G1' },
  { user: 'gc', channel: 'G2' },
  { user: 'ga', channel: 'G2' },
]
/** G2 is on a platform that tells time in seconds: several of its messages share one. */
const SECONDS_CHANNELS = ['G2']
/** Lines per lane and the killed runs in order; the short form (CI) kills once at each point. */
const PLANS: Record<'full' | 'short', { perLane: Record<Kind, number>; runs: Kind[] }> = {
  full: {
    perLane: { capture: 40, memorize: 12, boot: 10 },
    runs: ['capture', 'memorize', 'boot', 'capture', 'memorize', 'capture', 'boot', 'memorize', 'capture'],
  },
  short: { perLane: { capture: 15, memorize: 6, boot: 5 }, runs: ['capture', 'memorize', 'boot'] },
}
const SEED = 10_010
const TEMPLATES = [
  (x: string) => `我养了一只叫${x}的猫`,
  (x: string) => `我住在${x}`,
  (x: string) => `我喜欢吃${x}`,
  (x: string) => `我最近在学${x}`,
  (x: string) => `我在${x}公司上班`,
]
/** Characters for the names in the statements: none of them a pronoun, a question or a word the rules read. */
const NAME_CHARS = '青岩星河墨松竹梅兰菊云溪枫柚桃李杏橙榕桂槐柳棠泉峰湾屿澜汐砚珀琥翠'

/** A child that neither gets killed nor ends by this time is killed anyway (and its run fails). */
const RUN_LIMIT_MS = 30_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface RunRecord {
  index: number
  kind: Kind
  lines: Line[]
  acked: Set<string>
  ready: boolean
  /** How long the child's start took (replay, restore, reconcile). */
  readyMs?: number
  sent: boolean
  killAfterMs: number
  /** The child's last counters before the kill. */
  stat: string
  /** Exit other than our SIGKILL (a crash), or the run limit reached. */
  trouble?: string
}

export const run: Family = async ({ short = false } = {}) => {
  const plan = PLANS[short ? 'short' : 'full']
  const tally = new Tally()
  const started = Date.now()
  const random = mulberry32(SEED)
  const judge = new RuleJudge()
  const dir = mkdtempSync(join(tmpdir(), 'memory-kill-'))
  const planDir = join(dir, 'plans')
  mkdirSync(planDir)
  /** Line id → the fact it gives, as the rule judge words it (`factKey`). */
  const expected = new Map<string, string>()
  const runs: RunRecord[] = []
  let app: BenchApp | undefined
  try {
    const used = new Set<string>()
    for (const [index, kind] of plan.runs.entries()) {
      const lines: Line[] = []
      for (let n = 0; n < plan.perLane[kind]; n++) {
        for (const lane of LANES) {
          const line = await newLine(`k${index}-${lines.length}`, lane, random, used, judge)
          expected.set(line.id, line.fact)
          lines.push(line.line)
        }
      }
      const planFile = join(planDir, `run-${index}.json`)
      writeFileSync(planFile, JSON.stringify({ dir, lines, secondsChannels: SECONDS_CHANNELS } satisfies KillPlan))
      const record = await killRun(index, kind, lines, planFile, random)
      runs.push(record)
      log(
        `kill ${index} (${kind}): killed after ${record.killAfterMs} ms, ${record.acked.size}/${lines.length} acknowledged` +
          `${record.ready ? `, start ${record.readyMs} ms` : ', during the start'}; ${record.stat}${record.trouble ? `; ${record.trouble}` : ''}`,
      )
    }

    // the normal start: the journal replayed, the watermarks read back, the index reconciled
    const restartAt = Date.now()
    app = await bootApp(KILL_CONFIG, { dir, keep: true })
    const settleMs = await settle(app)
    log(`restarted in ${Date.now() - restartAt - settleMs} ms, settled in ${settleMs} ms`)
    const { database } = app.app
    const messages = await database.get('memory_message', {})
    const stored = new Set(messages.map((row) => row.messageId))
    const facts = await database.get('memory_fact', {})
    const factCount = new Map<string, number>()
    for (const fact of facts) {
      const key = factKey(fact.userId, fact.guildId, fact.content)
      factCount.set(key, (factCount.get(key) ?? 0) + 1)
    }
    const judged = new Set<string>()

    for (const record of runs) {
      await tally.run(`kill ${record.index} (${record.kind}, ${record.acked.size} acknowledged)`, async () => {
        let lostMessages = 0
        let lostFacts = 0
        let duplicates = 0
        const missing: string[] = []
        const byChannel = new Map<string, number>()
        for (const line of record.lines) {
          if (!record.acked.has(line.id)) continue
          if (!stored.has(line.id)) {
            lostMessages++
            missing.push(`message ${line.id}`)
          }
          const key = expected.get(line.id)!
          judged.add(key)
          const count = factCount.get(key) ?? 0
          if (count === 0) {
            lostFacts++
            const channel = line.channel ?? `private:${line.user}`
            byChannel.set(channel, (byChannel.get(channel) ?? 0) + 1)
            missing.push(`fact of ${line.id} "${line.text}"`)
          }
          duplicates += Math.max(0, count - 1)
        }
        const detail = [
          `killed ${record.killAfterMs} ms after ${record.kind === 'memorize' ? 'SENT' : record.kind === 'boot' ? 'BOOT' : 'READY'}`,
          record.ready ? `start took ${record.readyMs} ms` : 'killed during the start',
          record.stat,
          lostMessages ? `${lostMessages} messages missing` : '',
          lostFacts ? `${lostFacts} facts missing (${[...byChannel].map(([channel, n]) => `${channel} ${n}`).join(', ')})` : '',
          missing.length ? `first: ${missing.slice(0, 4).join('; ')}` : '',
          record.trouble ?? '',
        ]
          .filter(Boolean)
          .join('; ')
        return { ok: !record.trouble, harm: { lost: lostMessages + lostFacts, duplicates }, detail }
      })
    }

    await tally.run('after the restart: indexes complete, no fact twice, nothing left to memorise', async () => {
      const factIds = new Set(facts.map((fact) => fact.id))
      const indexedFacts = new Set(await internalsOf(app!.app.memory).index.ids('memories'))
      const factsMissing = [...factIds].filter((id) => !indexedFacts.has(id))
      const factsExtra = [...indexedFacts].filter((id) => !factIds.has(id))
      const messageIds = messages.filter((row) => !row.isCommand && row.content.trim()).map((row) => row.id)
      const indexedMessages = new Set(await internalsOf(app!.app.memory).index.ids('messages'))
      const messagesMissing = messageIds.filter((id) => !indexedMessages.has(id))
      // facts stored twice that no acknowledged line accounts for (those are counted in their run)
      let duplicates = 0
      for (const [key, count] of factCount) if (!judged.has(key)) duplicates += Math.max(0, count - 1)
      // a third start: the watermarks moved past everything memorised, so nothing is extracted again
      await app!.stop({ flush: false })
      app = await bootApp(KILL_CONFIG, { dir, keep: true })
      await settle(app)
      const again = internalsOf(app.app.memory).counters
      const factsAfter = await app.app.database.get('memory_fact', {})
      const extractions = again.get('memorize.extractions')
      const storedAgain = again.get('memorize.stored') + again.get('memorize.updated')
      const detail =
        `${facts.length} facts (${factsMissing.length} not indexed, ${factsExtra.length} indexed without a row); ` +
        `${messageIds.length} indexable messages (${messagesMissing.length} not indexed); ` +
        `third start: ${extractions} extractions, ${storedAgain} facts stored or updated, ${factsAfter.length - facts.length} new rows`
      log(`final check: ${detail}`)
      return {
        ok: factsExtra.length === 0 && storedAgain === 0 && factsAfter.length === facts.length,
        harm: { lost: factsMissing.length + messagesMissing.length, duplicates },
        detail,
      }
    })

    const acknowledged = runs.reduce((sum, record) => sum + record.acked.size, 0)
    const result: FamilyResult & Record<string, unknown> = {
      ...tally.result,
      kills: runs.length,
      lines_sent: runs.reduce((sum, record) => sum + record.lines.length, 0),
      lines_acknowledged: acknowledged,
      messages_stored: messages.length,
      facts_stored: facts.length,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    }
    return result
  } finally {
    await app?.stop({ flush: false }).catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

function factKey(userId: string, guildId: string, content: string) {
  return `${userId}\u0000${guildId}\u0000${content}`
}

/** A line with a name not used before, and the one fact the rule judge draws from it. */
async function newLine(
  id: string,
  lane: { user: string; channel?: string },
  random: () => number,
  used: Set<string>,
  judge: RuleJudge,
): Promise<{ id: string; line: Line; fact: string }> {
  for (;;) {
    let name = ''
    for (let i = 0; i < 3; i++) name += NAME_CHARS[Math.floor(random() * NAME_CHARS.length)]
    if (used.has(name)) continue
    used.add(name)
    const text = TEMPLATES[Math.floor(random() * TEMPLATES.length)](name)
    const { facts } = await judge.extract([{ role: 'user', name: lane.user, userId: lane.user, content: text, time: new Date() }], {
      now: new Date(),
    })
    if (facts.length !== 1) continue
    const line: Line = { id, user: lane.user, text, ...(lane.channel && { channel: lane.channel }) }
    return { id, line, fact: factKey(lane.user, lane.channel ?? '', facts[0].statement) }
  }
}

/** Spawns a child on `planFile` and SIGKILLs it at a random point of its `kind`. */
function killRun(index: number, kind: Kind, lines: Line[], planFile: string, random: () => number): Promise<RunRecord> {
  const killAfterMs = Math.round(kind === 'capture' ? 100 + random() * 1400 : kind === 'memorize' ? random() * 1200 : 100 + random() * 800)
  const record: RunRecord = { index, kind, lines, acked: new Set(), ready: false, sent: false, killAfterMs, stat: '' }
  const root = resolve(__dirname, '../..')
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'kill-child.ts'), planFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)))
  const timers: NodeJS.Timeout[] = []
  const kill = () => child.kill('SIGKILL')
  const killIn = (ms: number) => timers.push(setTimeout(kill, ms))
  timers.push(
    setTimeout(() => {
      record.trouble = `not killed within ${RUN_LIMIT_MS} ms (ready ${record.ready}, sent ${record.sent})`
      kill()
    }, RUN_LIMIT_MS),
  )
  createInterface({ input: child.stdout }).on('line', (text) => {
    if (text.startsWith('ACK ')) record.acked.add(text.slice(4))
    else if (text.startsWith('STAT ')) record.stat = text.slice(5)
    else if (text === 'BOOT') {
      if (kind === 'boot') killIn(killAfterMs)
    } else if (text.startsWith('READY ')) {
      record.ready = true
      record.readyMs = Number(text.slice(6))
      if (kind === 'capture') killIn(killAfterMs)
    } else if (text === 'SENT') {
      record.sent = true
      if (kind === 'memorize') killIn(killAfterMs)
    }
  })
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      for (const timer of timers) clearTimeout(timer)
      if (signal !== 'SIGKILL') record.trouble = `child exited by itself (code ${code}, signal ${signal}): ${stderr.trim().slice(-500)}`
      resolve(record)
    })
  })
}

/**
 * Waits until the restored dialogues have ended (the sweep runs every second and ends those quiet for
 * 1 s) and been memorised, and the outbox is empty: two calm polls in a row, at most 30 s. Returns the
 * time it took.
 */
async function settle({ app }: BenchApp): Promise<number> {
  const from = Date.now()
  await sleep(1500)
  let calm = 0
  while (calm < 2 && Date.now() - from < 30_000) {
    await app.memory.flush()
    await app.memory.flushOutbox()
    const status = await app.memory.status()
    calm = status.dialogues === 0 && status.queue === 0 && status.outbox === 0 ? calm + 1 : 0
    await sleep(300)
  }
  return Date.now() - from
}
