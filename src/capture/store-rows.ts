import type { MessageRow } from '../messages'

export interface MessageSink {
  write(rows: MessageRow[]): Promise<void>
  /** Whether the database answers a read: tells rows it refuses from a database that is down. */
  answers?(): Promise<boolean>
}

/** A row the database would not take, and what it said. */
export interface Refused {
  row: MessageRow
  reason: string
}

/**
 * Stores rows in one write; when that fails, each row alone, so one row the database refuses never holds
 * back the others. Resolves with the refused rows: those that failed alone while others went through, or
 * while the database still answers a read. Throws the batch's error when nothing went through and the
 * database answers nothing (it is down): the caller keeps the rows for later.
 */
export async function storeRows(sink: MessageSink, rows: MessageRow[]): Promise<Refused[]> {
  if (!rows.length) return []
  try {
    await sink.write(rows)
    return []
  } catch (error) {
    const refused: Refused[] = []
    if (rows.length === 1) refused.push({ row: rows[0], reason: reasonOf(error) })
    else for (const row of rows) await sink.write([row]).catch((alone) => refused.push({ row, reason: reasonOf(alone) }))
    if (refused.length < rows.length) return refused
    if (await sink.answers?.().catch(() => false)) return refused
    throw error
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
