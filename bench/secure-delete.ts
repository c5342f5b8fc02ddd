/**
 * What SQLite's `secure_delete` (set by the plugin so a forgotten text leaves the database file) costs:
 * the same app, the same rows, a user forgotten with it off (SQLite's default) and on. Each run fills a
 * database file with `--users` users' messages and facts, forgets `--forget` of them one after another
 * (`memory.forget --all` through the service), and reports the time of each forget and whether the
 * forgotten words are still in the file's bytes.
 *
 *   npm run bench:secure-delete -- [--users 40] [--lines 200] [--forget 5] [--out FILE]
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { App } from 'koishi'
import type { MessageRow } from '../src/messages'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'

interface Run {
  secure_delete: boolean
  forget_ms_p50: number
  forget_ms_max: number
  file_bytes: number
  /** Forgotten users whose marker is still in the database file's bytes. */
  words_left_in_file: number
}

const marker = (user: number) => `Zmark${user}q`

async function fill(app: App, users: number, lines: number): Promise<void> {
  const now = Date.now()
  const rows: MessageRow[] = []
  for (let u = 0; u < users; u++)
    for (let i = 0; i < lines; i++)
      rows.push({
        id: `mock:private:u${u}:m${i}`,
        messageId: `m${i}`,
        platform: 'mock',
        guildId: '',
        channelId: `private:u${u}`,
        userId: `u${u}`,
        userName: `U${u}`,
        content: `第${i}句：我说过${marker(u)}和一些别的话，长度像一条普通的群聊消息那样`,
        role: 'user' as const,
        isMentionBot: false,
        isCommand: false,
        replyMessageId: '',
        rootMessageId: `m${i}`,
        topicId: '',
        createdAt: new Date(now - (lines - i) * 60_000),
      })
  for (let i = 0; i < rows.length; i += 1000) await app.database.upsert('memory_message', rows.slice(i, i + 1000))
}

async function measure(secure: boolean, users: number, lines: number, forget: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'memory-secure-'))
  const b = await bootApp({ memorize: { enabled: false }, topics: { enabled: false } }, { dir, keep: true })
  try {
    // the plugin turns it on at start; the baseline turns it back off
    if (!secure)
      for (const driver of b.app.database.drivers) (driver as unknown as { _run(sql: string): void })._run('PRAGMA secure_delete = OFF')
    await fill(b.app, users, lines)
    const times: number[] = []
    for (let u = 0; u < forget; u++) {
      const began = performance.now()
      await b.app.memory.forgetAll({ platform: 'mock', userId: `u${u}` })
      times.push(performance.now() - began)
    }
    await b.stop()
    const bytes = readFileSync(join(dir, 'koishi.db'))
    const left = Array.from({ length: forget }, (_, u) => u).filter((u) => bytes.includes(Buffer.from(marker(u)))).length
    times.sort((a, c) => a - c)
    return {
      secure_delete: secure,
      forget_ms_p50: Math.round(times[Math.floor(times.length / 2)]),
      forget_ms_max: Math.round(times[times.length - 1]),
      file_bytes: bytes.length,
      words_left_in_file: left,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const users = intOption(options, 'users', 40)
  const lines = intOption(options, 'lines', 200)
  const forget = intOption(options, 'forget', 5)
  const started = new Date()
  const runs: Run[] = []
  for (const secure of [false, true]) {
    log(`secure_delete ${secure ? 'on' : 'off'}: ${users} users × ${lines} messages, forgetting ${forget}`)
    runs.push(await measure(secure, users, lines, forget))
    log(JSON.stringify(runs.at(-1)))
  }
  const [off, on] = runs
  writeResult(
    {
      users,
      lines,
      forgotten: forget,
      baseline: off,
      secure: on,
      forget_ms_p50_added: on.forget_ms_p50 - off.forget_ms_p50,
      ...runInfo('-', started, revision(join(__dirname, '..'))),
    },
    options.out,
  )
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
