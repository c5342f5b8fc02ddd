/**
 * The process `kill.ts` kills: boots the app on the folder its plan names (SQLite file, LanceDB, the
 * capture journal beside it) and sends the plan's lines, one lane per user and channel, lanes at
 * once. It prints, one line each, on stdout (a pipe: written synchronously on Linux, so a line the
 * parent read was written before the kill):
 *   BOOT                   the modules are loaded, the app starts
 *   READY <ms>             the app started, <ms> after BOOT (the journal of the last run replayed, its
 *                          dialogues restored, the indexes compared with the database)
 *   ACK <id>               Koishi processed the message `id` (the acknowledgement the platform would get)
 *   SENT                   every line was acknowledged
 *   STAT <json>            counters, every 100 ms and every 25 ACKs: where memorising was when the kill came
 * Run as `node --import tsx bench/faults/kill-child.ts <plan.json>` (not through the tsx CLI, which
 * runs the script in a grandchild a SIGKILL would not reach).
 */
import { readFileSync } from 'node:fs'
import { bootApp } from '../lib/app'
import { KILL_CONFIG, type KillPlan } from './kill'
import { say } from './say'
import { internalsOf } from '../../src/compose'

async function main() {
  const plan = JSON.parse(readFileSync(process.argv[2], 'utf8')) as KillPlan
  const out = (line: string) => process.stdout.write(line + '\n')
  const booting = Date.now()
  out('BOOT')
  const { app } = await bootApp(KILL_CONFIG, { dir: plan.dir, keep: true })
  const counters = internalsOf(app.memory).counters
  const stat = () =>
    out(
      `STAT ${JSON.stringify({
        captured: counters.get('capture.messages'),
        extractions: counters.get('memorize.extractions'),
        stored: counters.get('memorize.stored'),
        repeated: counters.get('memorize.repeated'),
      })}`,
    )
  setInterval(stat, 100)
  out(`READY ${Date.now() - booting}`)
  const lanes = new Map<string, KillPlan['lines']>()
  for (const line of plan.lines) {
    const key = `${line.user}\u0000${line.channel ?? ''}`
    lanes.set(key, [...(lanes.get(key) ?? []), line])
  }
  let acked = 0
  await Promise.all(
    [...lanes.values()].map(async (lines) => {
      for (const line of lines) {
        // the channels of a platform that tells time in whole seconds (OneBot does)
        const timestamp = plan.secondsChannels.includes(line.channel ?? '') ? Math.floor(Date.now() / 1000) * 1000 : undefined
        await say(app, { ...line, timestamp })
        out(`ACK ${line.id}`)
        // while the lanes send, timers hardly run (SQLite answers synchronously): report from here too
        if (++acked % 25 === 0) stat()
      }
    }),
  )
  out('SENT')
  stat()
  // memorising goes on; the parent kills this process (it never stops by itself)
}

main().catch((error) => {
  process.stderr.write(`kill-child failed: ${(error as Error).stack ?? error}\n`)
  process.exit(1)
})
