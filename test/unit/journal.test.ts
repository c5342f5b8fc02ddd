import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CaptureJournal } from '../../src/capture/journal'
import { MessageRecorder } from '../../src/capture/recorder'
import { Counters } from '../../src/core/observability'
import type { MessageRow } from '../../src/messages/table'
import { journalRow as row } from '../fakes/journal-rows'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const dirs: string[] = []

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'memory-journal-'))
  dirs.push(dir)
  return join(dir, 'journal')
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The ids the journal's leftover files hold, in order, as the next start reads them. */
async function leftIds(dir: string): Promise<string[]> {
  const journal = new CaptureJournal(dir, quiet)
  const ids: string[] = []
  for (const { path } of journal.leftovers()) {
    for await (const { text } of journal.lines(path)) {
      try {
        ids.push((JSON.parse(text ?? '') as MessageRow).id)
      } catch {
        // a torn line
      }
    }
  }
  return ids
}

function recorder(journal: CaptureJournal, write: (rows: MessageRow[]) => Promise<void>) {
  return new MessageRecorder(
    { write },
    {
      batchSize: 100,
      intervalMs: 10_000,
      maxBuffered: 1000,
      rootCacheSize: 10,
      schedule: () => () => {},
      counters: new Counters(),
      logger: quiet,
      journal,
    },
  )
}

describe('capture journal', () => {
  it('holds buffered rows on disk until they are stored, then deletes them', async () => {
    const dir = tempDir()
    const stored: MessageRow[] = []
    const r = recorder(new CaptureJournal(dir, quiet), async (rows) => void stored.push(...rows))
    r.add(row('m1'))
    r.add(row('m2'))
    // a process killed now leaves both in the journal
    expect(await leftIds(dir)).toEqual(['qq:c:m1', 'qq:c:m2'])
    await r.flush()
    expect(stored).toHaveLength(2)
    expect(readdirSync(dir)).toEqual([])
  })

  it('keeps rows the database did not take, and nothing twice', async () => {
    const dir = tempDir()
    let down = true
    const r = recorder(new CaptureJournal(dir, quiet), async (rows) => {
      if (down) throw new Error('database is gone')
      void rows
    })
    r.add(row('m1'))
    await r.flush()
    r.add(row('m2'))
    expect((await leftIds(dir)).sort()).toEqual(['qq:c:m1', 'qq:c:m2'])
    down = false
    await r.flush()
    expect(readdirSync(dir)).toEqual([])
  })

  it('reads past a torn last line (a kill in the middle of a write)', async () => {
    const dir = tempDir()
    const journal = new CaptureJournal(dir, quiet)
    journal.append([row('m1')])
    const file = journal.seal()!
    writeFileSync(file, JSON.stringify(row('m1')) + '\n{"id":"qq:c:m2","messa', 'utf8')
    expect(await leftIds(dir)).toEqual(['qq:c:m1'])
  })

  it('does not stop capture when the folder cannot be written', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, '..', 'blocker'), '')
    const warnings: string[] = []
    const journal = new CaptureJournal(join(dir, '..', 'blocker', 'journal'), {
      ...quiet,
      warn: (text: string) => void warnings.push(text),
    })
    const stored: MessageRow[] = []
    const r = recorder(journal, async (rows) => void stored.push(...rows))
    r.add(row('m1'))
    r.add(row('m2'))
    await r.flush()
    expect(stored).toHaveLength(2)
    expect(warnings).toHaveLength(1)
  })

  it('drops a forgotten user from the disk once the rest is stored', async () => {
    const dir = tempDir()
    const r = recorder(new CaptureJournal(dir, quiet), async () => {})
    r.add(row('m1', { userId: 'alice' }))
    r.add(row('m2', { userId: 'bob' }))
    r.dropUser('qq', 'alice')
    await r.flush()
    expect(readdirSync(dir)).toEqual([])
  })
})
