import { basename } from 'node:path'
import { ID_CHUNK } from '../core/chunks'
import type { Counters, Logger } from '../core/observability'
import type { MessageRow, MessageStore } from '../messages'
import type { CaptureJournal } from './journal'
import { journalRow } from './journal-row'
import type { MessageSink } from './store-rows'
import { storeRows } from './store-rows'

export interface ReplayDeps {
  journal: Pick<CaptureJournal, 'leftovers' | 'lines' | 'setAside' | 'release'>
  /** Where captured rows are stored: the recorder's. */
  sink: MessageSink
  messages: Pick<MessageStore, 'byIds'>
  counters: Counters
  logger: Logger
}

/** What a replay did: rows stored, rows set aside, lines that were no row, entries that could not be read. */
export interface Replayed {
  stored: number
  setAside: number
  skipped: number
  unread: string[]
}

/** Characters of text written at most in one statement (SQLite's engine in WebAssembly fails for good on far larger ones). */
const TEXT_CHUNK = 1_000_000

/** A failure of the database, as opposed to one of the file being read. */
class DatabaseDown extends Error {
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error))
  }
}

/**
 * Stores what earlier runs left in the journal (killed, or stopped after their database), file by file,
 * a chunk at a time, rows already stored left alone. A file is deleted once its rows are stored; rows the
 * database refuses, and lines that are rows of the wrong shape, are set aside beside it (`setAside`), each
 * file's logged once; torn and garbage lines are skipped. What cannot be read (a folder named like a
 * journal file, an unreadable file) is left as it is and does not stop the rest. Throws when the database
 * is down: the files wait for the next start.
 */
export async function replayJournal(deps: ReplayDeps): Promise<Replayed> {
  const replayed: Replayed = { stored: 0, setAside: 0, skipped: 0, unread: [] }
  for (const { path, file } of deps.journal.leftovers()) {
    if (!file) {
      replayed.unread.push(path)
      deps.logger.warn('%s is named like a capture journal file but is no file (a folder?): left as it is', path)
      continue
    }
    try {
      const done = await replayFile(deps, path)
      replayed.stored += done.stored
      replayed.setAside += done.setAside
      replayed.skipped += done.skipped
    } catch (error) {
      if (error instanceof DatabaseDown) throw error.error
      replayed.unread.push(path)
      deps.logger.warn('capture journal file %s cannot be read, left as it is: %s', path, (error as Error).message)
    }
  }
  return replayed
}

async function replayFile(deps: ReplayDeps, path: string): Promise<Omit<Replayed, 'unread'>> {
  const { journal, logger } = deps
  const aside: { reason: string; row: unknown }[] = []
  let batch: MessageRow[] = []
  let chars = 0
  let stored = 0
  let skipped = 0
  const flush = async () => {
    const rows = batch
    batch = []
    chars = 0
    stored += await storeMissing(deps, rows, aside)
  }
  for await (const { number, text } of journal.lines(path)) {
    const value = parse(text)
    if (value === undefined) {
      if (text?.trim() !== '') skipped++
      continue
    }
    const checked = journalRow(value)
    if ('error' in checked) aside.push({ reason: `line ${number}: ${checked.error}`, row: value })
    else {
      batch.push(checked.row)
      chars += checked.row.content.length + checked.row.userName.length
      if (batch.length >= ID_CHUNK || chars >= TEXT_CHUNK) await flush()
    }
  }
  await flush()
  const kept = journal.setAside(basename(path), aside, true)
  if (aside.length) {
    deps.counters.inc('capture.rejected', aside.length)
    // without the copy the file stays: its stored rows are skipped at the next start, the others tried again
    if (!kept) return { stored, setAside: 0, skipped }
    logger.warn(
      '%d messages of capture journal file %s could not be stored, set aside in %s: %s',
      aside.length,
      path,
      kept,
      aside[0].reason,
    )
  }
  if (skipped) logger.warn('%d lines of capture journal file %s were no message (torn by a kill, or garbage), skipped', skipped, path)
  journal.release(path)
  return { stored, setAside: aside.length, skipped }
}

/** Stores the rows not yet stored (once each); those the database refuses join `aside`. Returns how many were stored. */
async function storeMissing(deps: ReplayDeps, rows: MessageRow[], aside: { reason: string; row: unknown }[]): Promise<number> {
  if (!rows.length) return 0
  try {
    const have = new Set((await deps.messages.byIds(rows.map((row) => row.id))).map((row) => row.id))
    const missing = [...new Map(rows.filter((row) => !have.has(row.id)).map((row) => [row.id, row])).values()]
    const refused = await storeRows(deps.sink, missing)
    for (const { row, reason } of refused) aside.push({ reason, row })
    return missing.length - refused.length
  } catch (error) {
    throw new DatabaseDown(error)
  }
}

/** A line's JSON value; undefined for a blank, torn or garbage line (or one too long to read). */
function parse(text: string | undefined): unknown {
  if (!text?.trim()) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
