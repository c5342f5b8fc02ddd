import * as fs from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../core/observability'
import type { MessageRow } from '../messages'

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

  /** Files left by earlier runs (a kill, or a stop after the database), and the rows they hold. */
  leftovers(): { files: string[]; rows: MessageRow[] } {
    let names: string[]
    try {
      names = fs.readdirSync(this.dir).filter((name) => name.startsWith('capture-') && name.endsWith('.jsonl'))
    } catch {
      return { files: [], rows: [] }
    }
    const files = names
      .sort()
      .map((name) => join(this.dir, name))
      .filter((file) => file !== this.file)
    const rows: MessageRow[] = []
    for (const file of files) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        const row = parseRow(line)
        if (row) rows.push(row)
      }
    }
    return { files, rows }
  }
}

/** A journal line as a row; undefined for the torn last line of a killed write. */
function parseRow(line: string): MessageRow | undefined {
  if (!line.trim()) return
  try {
    const row = JSON.parse(line) as MessageRow
    if (typeof row.id !== 'string' || typeof row.createdAt !== 'string') return
    return { ...row, createdAt: new Date(row.createdAt) }
  } catch {
    return
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
