/**
 * Journal faults: what a killed or careless run leaves in the capture journal's folder — torn last
 * lines, garbage lines (bytes, JSON that is no object, a line over the reader's limit), rows of the
 * wrong shape (a number for an id, an object for a user, a date that is none, an unknown role), rows
 * a database may refuse (a NUL in the platform, ids over their column), ids over every id's bound
 * (255 characters: set aside everywhere), the same row in two
 * files, a folder named like a journal file and entries that cannot be read (a pipe, a dangling
 * link, a file without read permission when not root). Each trial leaves such files, starts the app
 * on them and checks: every good row is stored (cleaned as capture cleans it), every row that cannot
 * be stored is set aside in `rejected-*.jsonl` with its reason, nothing is stored twice, the journal
 * files are gone (what cannot be read is left as it was) and the app still captures.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { App } from 'koishi'
import { bootApp } from '../lib/app'
import type { Family, Harm } from './family'
import { Tally } from './family'
import { mulberry32, pick, seedOf } from './support'
import { cleanId } from '../../src/scope'
import { cleanText } from '../../src/text/clean'
import { messageRowId } from '../../src/messages'

type Kind = 'good' | 'cleaned' | 'oversize' | 'overlong' | 'wrong' | 'garbage' | 'torn' | 'duplicate'

/** A journal line and what must become of it. */
interface Planted {
  kind: Kind
  text: string
  /** The id it is stored under (good, cleaned, oversize, duplicate). */
  id?: string
  /** Its message id as written, by which it is found among the rows set aside. */
  messageId?: string
  content?: string
}

const base = { topics: { enabled: false }, memorize: { enabled: false } }

export const run: Family = async ({ short = false } = {}) => {
  const tally = new Tally()
  const rng = mulberry32(seedOf(10_012))
  const dir = mkdtempSync(join(tmpdir(), 'memory-faults-journal-'))
  const journal = join(dir, 'lancedb-journal')
  let serial = 0
  // each trial's rows in a channel of its own: the database is kept from one start to the next
  let channel = 'jc'
  const rowsPerFile = short ? 30 : 700

  const row = (extra: Record<string, unknown> = {}) => {
    const messageId = `j${serial++}`
    return {
      id: messageRowId('mock', channel, messageId),
      messageId,
      platform: 'mock',
      guildId: 'jg',
      channelId: channel,
      userId: `ju${serial % 5}`,
      userName: 'J',
      content: `日志第 ${messageId} 条`,
      role: 'user',
      isMentionBot: false,
      isCommand: false,
      replyMessageId: '',
      rootMessageId: messageId,
      topicId: '',
      createdAt: new Date(Date.UTC(2026, 10, 26, 8, 0, serial % 60)).toISOString(),
      ...extra,
    }
  }
  const plant: Record<Kind, () => Planted> = {
    good: () => {
      const r = row()
      return { kind: 'good', text: JSON.stringify(r), id: r.id, content: r.content }
    },
    cleaned: () => {
      const r = row()
      const platform = pick(rng, ['mo\u0000ck', 'mock\u001b', 'mo\ud800ck'])
      const raw = { ...r, platform, content: `${r.content}\u0000\udc00尾` }
      return {
        kind: 'cleaned',
        text: JSON.stringify(raw),
        id: messageRowId(cleanId(platform), channel, r.messageId),
        content: cleanText(raw.content),
      }
    },
    oversize: () => {
      // over their columns (platform string(63), messageId string(127)) though within every id's bound
      const r = row()
      const messageId = `${r.messageId}-${'x'.repeat(120)}`
      const raw = { ...r, messageId, platform: 'p'.repeat(80), rootMessageId: messageId }
      return {
        kind: 'oversize',
        text: JSON.stringify(raw),
        id: messageRowId(raw.platform, channel, messageId),
        messageId,
        content: r.content,
      }
    },
    overlong: () => {
      const r = row()
      const messageId = `${r.messageId}-${'x'.repeat(pick(rng, [300, 5000]))}`
      return { kind: 'overlong', text: JSON.stringify({ ...r, messageId }), messageId }
    },
    wrong: () => {
      const r = row()
      const spoilt = pick(rng, [
        { id: 42 },
        { userId: { $ne: '' } },
        { createdAt: 'soon' },
        { content: ['x'] },
        { role: 'root' },
        { isMentionBot: 1 },
        { channelId: '' },
      ])
      return { kind: 'wrong', text: JSON.stringify({ ...r, ...spoilt }), messageId: r.messageId }
    },
    garbage: () => ({ kind: 'garbage', text: pick(rng, ['{', '\u0000\u0001\u0002', 'not json at all', '{"id": "mock:jc:x",', ']']) }),
    torn: () => {
      const text = JSON.stringify(row())
      return { kind: 'torn', text: text.slice(0, 1 + Math.floor(rng() * (text.length - 2))) }
    },
    duplicate: () => ({ kind: 'duplicate', text: '' }),
  }

  /** A journal file of `count` lines drawn from `kinds`, a torn last line when `torn`. */
  const file = (name: string, count: number, kinds: Kind[], torn = false): Planted[] => {
    const lines = Array.from({ length: count }, () => plant[pick(rng, kinds)]())
    if (torn) lines.push(plant.torn())
    writeFileSync(join(journal, name), lines.map((line) => line.text).join('\n') + (torn ? '' : '\n'))
    return lines
  }

  /** Starts the app on the journal folder and checks what became of every planted line. */
  const trial = (name: string, leave: () => { planted: Planted[]; unreadable?: string[] }) =>
    tally.run(name, async () => {
      rmSync(journal, { recursive: true, force: true })
      mkdirSync(journal, { recursive: true })
      channel = `jc${tally.result.tried}`
      const { planted, unreadable = [] } = leave()
      const b = await bootApp(base, { dir, keep: true })
      try {
        return { ...(await check(b.app, planted, unreadable)), ...(await answers(b.app)) }
      } finally {
        await b.stop()
      }
    })

  const check = async (app: App, planted: Planted[], unreadable: string[]) => {
    const stored = new Map((await app.database.get('memory_message', { channelId: channel })).map((r) => [r.id, r]))
    const aside = readdirSync(journal)
      .filter((name) => name.startsWith('rejected-'))
      .flatMap((name) => readFileSync(join(journal, name), 'utf8').split('\n').filter(Boolean))
      .map((text) => JSON.parse(text) as { reason: string; row: { id?: unknown; platform?: unknown; messageId?: unknown } })
    const asideKeys = new Set(aside.map(({ row }) => row.messageId))
    const problems: string[] = []
    let lost = 0
    for (const line of planted) {
      if (line.kind === 'good' || line.kind === 'cleaned' || line.kind === 'duplicate') {
        const found = stored.get(line.id!)
        if (found?.content !== line.content) {
          lost++
          problems.push(`${line.kind} ${line.id!.slice(0, 40)} ${found ? 'stored as ' + found.content.slice(0, 20) : 'not stored'}`)
        }
      } else if (line.kind === 'oversize') {
        // a database that keeps long ids stores it (SQLite), one that refuses them sets it aside (MySQL)
        if (!stored.has(line.id!) && !asideKeys.has(line.messageId)) {
          lost++
          problems.push(`oversize ${line.id!.slice(0, 40)} neither stored nor set aside`)
        }
      } else if ((line.kind === 'wrong' || line.kind === 'overlong') && !asideKeys.has(line.messageId)) {
        lost++
        problems.push(`wrong-shaped ${line.text.slice(0, 60)} not set aside`)
      }
    }
    const expected = new Set(planted.flatMap((line) => line.id ?? []))
    // a row stored under an id no planted line has: a wrong-shaped row let through
    const unexpected = [...stored.keys()].filter((id) => !expected.has(id))
    if (unexpected.length) problems.push(`${unexpected.length} rows stored that should not be: ${unexpected[0].slice(0, 40)}`)
    // one message stored under two ids (its platform as written and cleaned)
    const messages = [...stored.values()].map((r) => `${cleanId(r.platform)}\u0000${r.messageId}`)
    const duplicates = messages.length - new Set(messages).size
    const left = readdirSync(journal).filter((name) => name.startsWith('capture-'))
    const stray = left.filter((name) => !unreadable.includes(name))
    const missing = unreadable.filter((name) => !left.includes(name))
    if (stray.length) problems.push(`journal files left: ${stray.join(', ')}`)
    if (missing.length) problems.push(`unreadable entries gone: ${missing.join(', ')}`)
    const harm: Harm = { lost, duplicates }
    const counts = (kind: Kind) => planted.filter((line) => line.kind === kind).length
    return {
      ok: !problems.length,
      harm,
      detail: `${counts('good') + counts('cleaned') + counts('duplicate')} good, ${counts('wrong') + counts('overlong')} wrong-shaped or with ids over 255 characters (${aside.length} set aside), ${counts('oversize')} oversize, ${counts('garbage') + counts('torn')} garbage or torn${problems.length ? '; ' + problems.slice(0, 5).join('; ') : ''}`,
    }
  }

  /** The app still captures: a message sent now is stored. */
  const answers = async (app: App) => {
    const text = `还在 ${serial++}`
    await app.mock.client('after', 'jg').receive(text)
    await app.memory.flush()
    const ok = (await app.database.get('memory_message', { content: text })).length === 1
    return ok ? {} : { ok: false, detail: 'the app did not capture after the replay' }
  }

  try {
    await trial('torn last lines', () => ({
      planted: [0, 1, 2].flatMap((i) => file(`capture-1-${i}-0.jsonl`, rowsPerFile, ['good'], true)),
    }))
    await trial('garbage lines among good rows', () => ({
      planted: [0, 1].flatMap((i) => file(`capture-2-${i}-0.jsonl`, rowsPerFile, ['good', 'good', 'garbage'])),
    }))
    await trial('rows the database may refuse or that have the wrong shape, in the middle of a chunk', () => ({
      planted: [0, 1].flatMap((i) =>
        file(`capture-3-${i}-0.jsonl`, rowsPerFile, ['good', 'good', 'good', 'cleaned', 'oversize', 'overlong', 'wrong'], true),
      ),
    }))
    await trial('a file of one wrong row, and one of one oversize row', () => ({
      planted: [
        ...file('capture-4-0-0.jsonl', 1, ['wrong']),
        ...file('capture-4-1-0.jsonl', 1, ['oversize']),
        ...file('capture-4-3-0.jsonl', 1, ['overlong']),
        ...file('capture-4-2-0.jsonl', 1, ['good']),
      ],
    }))
    await trial('the same rows in two files (a restart that stored half)', () => {
      const first = file('capture-5-0-0.jsonl', rowsPerFile, ['good'])
      writeFileSync(join(journal, 'capture-5-1-0.jsonl'), first.map((line) => line.text).join('\n') + '\n')
      return { planted: [...first, ...first.map((line) => ({ ...line, kind: 'duplicate' as const }))] }
    })
    await trial('a folder named like a journal file', () => {
      mkdirSync(join(journal, 'capture-6-0-0.jsonl'))
      writeFileSync(join(journal, 'capture-6-0-0.jsonl', 'inside.jsonl'), JSON.stringify(row()) + '\n')
      return { planted: file('capture-6-1-0.jsonl', rowsPerFile, ['good']), unreadable: ['capture-6-0-0.jsonl'] }
    })
    await trial('entries that cannot be read: a pipe, a dangling link, a file without read permission', () => {
      execFileSync('mkfifo', [join(journal, 'capture-7-0-0.jsonl')])
      symlinkSync(join(journal, 'gone.jsonl'), join(journal, 'capture-7-1-0.jsonl'))
      const unreadable = ['capture-7-0-0.jsonl', 'capture-7-1-0.jsonl']
      // root reads any file: the permission case only counts for another user
      if (process.getuid?.() !== 0) {
        file('capture-7-2-0.jsonl', 3, ['good'])
        chmodSync(join(journal, 'capture-7-2-0.jsonl'), 0)
        unreadable.push('capture-7-2-0.jsonl')
      }
      return { planted: file('capture-7-3-0.jsonl', rowsPerFile, ['good']), unreadable }
    })
    const rounds = short ? 1 : 4
    for (let round = 0; round < rounds; round++) {
      await trial(`everything at once, round ${round + 1}`, () => {
        mkdirSync(join(journal, `capture-8-${round}-9.jsonl`))
        const planted = [0, 1, 2].flatMap((i) =>
          file(
            `capture-8-${round}-${i}.jsonl`,
            Math.ceil(rowsPerFile * (0.5 + rng())),
            ['good', 'good', 'good', 'cleaned', 'oversize', 'overlong', 'wrong', 'garbage'],
            rng() < 0.5,
          ),
        )
        if (!short && round === 0) {
          // a line over the reader's limit (16 MB) is skipped, not held
          writeFileSync(join(journal, `capture-8-${round}-3.jsonl`), `${'x'.repeat(17 * 1024 * 1024)}\n${planted[0].text}\n`)
        }
        return { planted, unreadable: [`capture-8-${round}-9.jsonl`] }
      })
    }
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  }
  return tally.result
}
