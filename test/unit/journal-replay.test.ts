import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CaptureJournal } from '../../src/capture/journal'
import { replayJournal } from '../../src/capture/journal-replay'
import type { MessageSink } from '../../src/capture/store-rows'
import { Counters } from '../../src/core/observability'
import type { MessageRow } from '../../src/messages/table'
import { journalLine as line } from '../fakes/journal-rows'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function journalDir() {
  const dir = mkdtempSync(join(tmpdir(), 'memory-replay-'))
  dirs.push(dir)
  mkdirSync(join(dir, 'journal'))
  return join(dir, 'journal')
}

const write = (dir: string, name: string, lines: string[], end = '\n') => writeFileSync(join(dir, name), lines.join('\n') + end)

/** A database in memory: refuses a row whose content says REFUSE (as SQLite refuses a NUL), or everything while down. */
function database() {
  const rows = new Map<string, MessageRow>()
  const state = { down: false, writes: 0 }
  const sink: MessageSink = {
    async write(batch) {
      state.writes++
      if (state.down) throw new Error('database is gone')
      if (batch.some((row) => row.content.includes('REFUSE'))) throw new Error('unrecognized token')
      for (const row of batch) rows.set(row.id, row)
    },
    answers: async () => !state.down,
  }
  const messages = { byIds: async (ids: string[]) => ids.flatMap((id) => rows.get(id) ?? []) }
  return { rows, state, sink, messages }
}

function replay(dir: string, db: ReturnType<typeof database>, warnings: string[] = []) {
  const logger = { debug() {}, info() {}, error() {}, warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')) }
  return replayJournal({ journal: new CaptureJournal(dir, logger), sink: db.sink, messages: db.messages, counters: new Counters(), logger })
}

const rejected = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.startsWith('rejected-'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean))
    .map((text) => JSON.parse(text) as { reason: string; row: Record<string, unknown> })

describe('journal replay', () => {
  it('stores the rest of a chunk the database refuses one row of, and sets that row aside once', async () => {
    const dir = journalDir()
    write(dir, 'capture-1-1-0.jsonl', [line('m1'), line('m2', { content: 'REFUSE me' }), line('m3')])
    // a file of one row the database refuses, while it answers: no batch to compare with
    write(dir, 'capture-2-1-0.jsonl', [line('m4', { content: 'REFUSE alone' })])
    const db = database()
    const warnings: string[] = []
    expect(await replay(dir, db, warnings)).toMatchObject({ stored: 2, setAside: 2, unread: [] })
    expect([...db.rows.keys()].sort()).toEqual(['qq:c:m1', 'qq:c:m3'])
    expect(
      rejected(dir)
        .map(({ row }) => row.id)
        .sort(),
    ).toEqual(['qq:c:m2', 'qq:c:m4'])
    expect(rejected(dir)[0].reason).toMatch(/unrecognized token/)
    expect(warnings.filter((warning) => /set aside/.test(warning))).toHaveLength(2)
    expect(readdirSync(dir).filter((name) => name.startsWith('capture-'))).toEqual([])
    // the next start finds nothing to do: nothing logged again, nothing written
    const writes = db.state.writes
    expect(await replay(dir, db, warnings)).toMatchObject({ stored: 0, setAside: 0 })
    expect(db.state.writes).toBe(writes)
  })

  it('checks every field of a line and cleans ids and text as capture does', async () => {
    const dir = journalDir()
    write(dir, 'capture-1-1-0.jsonl', [
      line('ok'),
      line('nul', { platform: 'q\u0000q', content: 'a\u0000b\ud800c' }),
      line('n1', { id: 42 }),
      line('n2', { userId: { $ne: '' } }),
      line('n3', { createdAt: 'yesterday' }),
      line('n4', { content: ['x'] }),
      line('n5', { role: 'admin' }),
      line('n6', { isMentionBot: 'yes' }),
      line('n7', { channelId: '' }),
      line(`n8-${'x'.repeat(300)}`),
      line('n9', { userId: 'u'.repeat(256) }),
      'null',
      '[1, 2]',
    ])
    const db = database()
    expect(await replay(dir, db)).toMatchObject({ stored: 2, setAside: 11 })
    const cleaned = db.rows.get('q\\u0000q:c:nul')!
    expect(cleaned).toMatchObject({ platform: 'q\\u0000q', content: 'ab\ufffdc' })
    expect(cleaned.createdAt).toEqual(new Date(Date.UTC(2026, 10, 26, 8)))
    expect(rejected(dir).map(({ reason }) => reason.replace(/^line \d+: /, ''))).toEqual([
      'id is not a string',
      'userId is not a string',
      'createdAt is not a date',
      'content is not a string',
      'role is neither user nor assistant',
      'isMentionBot is not a boolean',
      'channelId is empty',
      'id is longer than 255 characters',
      'userId is longer than 255 characters',
      'not a JSON object',
      'not a JSON object',
    ])
  })

  it('skips torn and garbage lines, and reads lines longer than a read', async () => {
    const dir = journalDir()
    const long = line('long', { content: '长'.repeat(150_000) })
    write(dir, 'capture-1-1-0.jsonl', [line('m1'), 'garbage {', '', long, '\u0000\u0001', line('m2').slice(0, 40)], '')
    const db = database()
    expect(await replay(dir, db)).toMatchObject({ stored: 2, setAside: 0, skipped: 3 })
    expect(db.rows.get('qq:c:long')?.content).toHaveLength(150_000)
    expect(readdirSync(dir)).toEqual([])
  })

  it('writes long texts a few at a time', async () => {
    const dir = journalDir()
    write(
      dir,
      'capture-1-1-0.jsonl',
      ['a', 'b', 'c'].map((id) => line(id, { content: id.repeat(600_000) })),
    )
    const db = database()
    expect(await replay(dir, db)).toMatchObject({ stored: 3 })
    expect(db.state.writes).toBe(2)
  })

  it('leaves what is no journal file (a folder, a pipe, a link to nothing) and replays the rest', async () => {
    const dir = journalDir()
    mkdirSync(join(dir, 'capture-0-1-0.jsonl'))
    execFileSync('mkfifo', [join(dir, 'capture-0-2-0.jsonl')])
    symlinkSync(join(dir, 'nowhere'), join(dir, 'capture-0-3-0.jsonl'))
    write(dir, 'capture-1-1-0.jsonl', [line('m1')])
    const db = database()
    const warnings: string[] = []
    const replayed = await replay(dir, db, warnings)
    expect(replayed.stored).toBe(1)
    expect(replayed.unread).toHaveLength(3)
    expect(warnings).toHaveLength(3)
    expect(existsSync(join(dir, 'capture-1-1-0.jsonl'))).toBe(false)
    expect(existsSync(join(dir, 'capture-0-1-0.jsonl'))).toBe(true)
  })

  it('keeps every file while the database is down, sets nothing aside, and stores them once it is back', async () => {
    const dir = journalDir()
    write(dir, 'capture-1-1-0.jsonl', [line('m1'), line('m2', { content: 'REFUSE' })])
    write(dir, 'capture-2-1-0.jsonl', [line('m1'), line('m3')])
    const db = database()
    db.state.down = true
    await expect(replay(dir, db)).rejects.toThrow(/gone/)
    expect(readdirSync(dir).sort()).toEqual(['capture-1-1-0.jsonl', 'capture-2-1-0.jsonl'])
    db.state.down = false
    expect(await replay(dir, db)).toMatchObject({ stored: 2, setAside: 1 })
    expect([...db.rows.keys()].sort()).toEqual(['qq:c:m1', 'qq:c:m3'])
  })

  it('leaves rows already stored as they are', async () => {
    const dir = journalDir()
    const db = database()
    await db.sink.write([{ ...(JSON.parse(line('m1')) as MessageRow), content: 'stored', createdAt: new Date() }])
    write(dir, 'capture-1-1-0.jsonl', [line('m1'), line('m2')])
    expect(await replay(dir, db)).toMatchObject({ stored: 1 })
    expect(db.rows.get('qq:c:m1')?.content).toBe('stored')
  })

  it("removes a forgotten user's rows from the rows set aside", async () => {
    const dir = journalDir()
    write(dir, 'capture-1-1-0.jsonl', [
      line('m1', { content: 'REFUSE a', userId: 'alice' }),
      line('m2', { content: 'REFUSE b', userId: 'bob' }),
    ])
    await replay(dir, database())
    expect(new CaptureJournal(dir, { debug() {}, info() {}, warn() {}, error() {} }).forgetUser('qq', 'alice')).toBe(1)
    expect(rejected(dir).map(({ row }) => row.userId)).toEqual(['bob'])
  })
})
