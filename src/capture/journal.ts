import * as fs from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../core/observability'
import type { MessageRow } from '../messages'
import { cleanId } from '../scope'

/**
 * An append-only file of the captured messages not yet in the database, so a process that is killed,
 * or stopped after its database (Koishi disposes plugins in the order they were added), loses none:
 * the next start writes what the journal holds. Each flush of the recorder seals the current file and
 * deletes it once its rows are stored. Written without fsync: it survives the process, not the machine.
 */
export class CaptureJournal {
  private fd?: number
  private file?: string
  private seq = 0
  private broken = false

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  append(rows: MessageRow[]): void {
    if (this.broken || !rows.length) return
    try {
      if (this.fd === undefined) {
        fs.mkdirSync(this.dir, { recursive: true })
        this.file = join(this.dir, `capture-${Date.now()}-${process.pid}-${this.seq++}.jsonl`)
        this.fd = fs.openSync(this.file, 'a')
      }
      fs.writeSync(this.fd, rows.map((row) => JSON.stringify(row) + '\n').join(''))
    } catch (error) {
      // capture goes on without the journal: only a crash could lose the last half second
      this.broken = true
      this.logger.warn(
        'the capture journal cannot be written (%s): messages not yet stored may be lost if the process is killed',
        message(error),
      )
    }
  }

  /** Closes the current file and returns it: its rows are the ones being written now. */
  seal(): string | undefined {
    const file = this.file
    if (this.fd !== undefined) fs.closeSync(this.fd)
    this.fd = undefined
    this.file = undefined
    return file
  }

  /** Deletes a sealed file whose rows are stored (or given up). */
  release(file: string | undefined): void {
    if (file) fs.rmSync(file, { force: true })
  }

  /**
   * Entries left by earlier runs (a kill, or a stop after the database) whose names a journal file has,
   * oldest first; `file` false for what cannot be one (a folder, a pipe, a link to nothing).
   */
  leftovers(): { path: string; file: boolean }[] {
    let names: string[]
    try {
      names = fs.readdirSync(this.dir).filter((name) => name.startsWith('capture-') && name.endsWith('.jsonl'))
    } catch {
      return []
    }
    return names
      .sort()
      .map((name) => join(this.dir, name))
      .filter((path) => path !== this.file)
      .map((path) => ({ path, file: isFile(path) }))
  }

  /**
   * The lines of a journal file, read in pieces (a file is never held whole), each with its number. A
   * line longer than `LINE_MAX` bytes is no row capture writes: it is given as `undefined`.
   */
  async *lines(path: string): AsyncGenerator<{ number: number; text: string | undefined }> {
    const handle = await fs.promises.open(path, 'r')
    try {
      const buffer = Buffer.alloc(READ_SIZE)
      let parts: Buffer[] = []
      let size = 0
      let number = 1
      // past the limit only the length is counted: the line is given up, not held
      const take = (bytes: Buffer) => {
        size += bytes.length
        parts = size > LINE_MAX ? [] : [...parts, Buffer.from(bytes)]
      }
      const line = () => (size > LINE_MAX ? undefined : Buffer.concat(parts).toString('utf8'))
      for (let read; (read = (await handle.read(buffer, 0, READ_SIZE, null)).bytesRead) > 0;) {
        const piece = buffer.subarray(0, read)
        let from = 0
        for (let end = piece.indexOf(10); end !== -1; end = piece.indexOf(10, from)) {
          take(piece.subarray(from, end))
          yield { number: number++, text: line() }
          parts = []
          size = 0
          from = end + 1
        }
        take(piece.subarray(from))
      }
      if (size) yield { number, text: line() }
    } finally {
      await handle.close()
    }
  }

  /**
   * Keeps rows that cannot be stored beside the journal, one JSON line each (`reason`, `row`), in
   * `rejected-<name>.jsonl`: nothing a database refused is lost, and it is never tried again by itself.
   * `replace` writes the file anew (a journal file replayed again sets the same rows aside once).
   */
  setAside(name: string, rows: { reason: string; row: unknown }[], replace = false): string | undefined {
    if (!rows.length) return undefined
    const file = join(this.dir, `rejected-${name.replace(/\.jsonl$/, '')}.jsonl`)
    try {
      fs.mkdirSync(this.dir, { recursive: true })
      fs[replace ? 'writeFileSync' : 'appendFileSync'](file, rows.map((entry) => JSON.stringify(entry) + '\n').join(''))
      return file
    } catch (error) {
      this.logger.warn(
        '%d messages that cannot be stored could not be set aside in %s either, dropped: %s',
        rows.length,
        file,
        message(error),
      )
      return undefined
    }
  }

  /** Removes a user's rows from the files of set-aside rows (their words are being erased). Returns how many. */
  forgetUser(platform: string, userId: string): number {
    let removed = 0
    for (const name of this.rejectedFiles()) {
      const path = join(this.dir, name)
      try {
        const lines = fs.readFileSync(path, 'utf8').split('\n').filter(Boolean)
        const kept = lines.filter((line) => !ofUser(line, platform, userId))
        if (kept.length === lines.length) continue
        removed += lines.length - kept.length
        if (kept.length) fs.writeFileSync(path, kept.map((line) => line + '\n').join(''))
        else fs.rmSync(path, { force: true })
      } catch (error) {
        this.logger.warn("could not remove a forgotten user's messages from %s: %s", path, message(error))
      }
    }
    return removed
  }

  private rejectedFiles(): string[] {
    try {
      return fs.readdirSync(this.dir).filter((name) => name.startsWith('rejected-') && name.endsWith('.jsonl'))
    } catch {
      return []
    }
  }
}

/** Longest journal line read: a captured message of a million characters, written out as JSON, fits. */
const LINE_MAX = 16 * 1024 * 1024
const READ_SIZE = 64 * 1024

function isFile(path: string): boolean {
  try {
    return fs.statSync(path).isFile()
  } catch {
    return false
  }
}

/** Whether a set-aside line holds a message of the user (as captured or as written in the journal). */
function ofUser(line: string, platform: string, userId: string): boolean {
  try {
    const { row } = JSON.parse(line) as { row?: { platform?: unknown; userId?: unknown } }
    return (
      typeof row?.platform === 'string' &&
      typeof row.userId === 'string' &&
      cleanId(row.platform) === platform &&
      cleanId(row.userId) === userId
    )
  } catch {
    return false
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
