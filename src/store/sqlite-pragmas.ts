import type { Context } from 'koishi'
import type { Logger } from '../core/observability'

/** What the embedded SQLite driver exposes of its connection (not part of minato's typed API). */
interface SQLiteConnection {
  _run(sql: string): unknown
}

/**
 * The settings the plugin needs of the embedded SQLite driver (sql.js, one connection, every statement
 * on the event loop). The server databases keep their own files and settings; only SQLite is reached.
 */
const PRAGMAS: { sql: string; otherwise: string }[] = [
  {
    // without it, a forgotten fact's text stays in the database file's free pages until they are reused
    sql: 'PRAGMA secure_delete = ON',
    otherwise: 'SQLite keeps deleted text in free pages until they are reused',
  },
  {
    // one process owns the file: the lock is kept between statements, so SQLite no longer looks for a
    // hot journal and rereads the file's header before each one (file calls that block the event loop)
    sql: 'PRAGMA locking_mode = EXCLUSIVE',
    otherwise: 'SQLite checks the file before every statement',
  },
  {
    // the journal is emptied at each commit instead of deleted and created again; emptied, not kept,
    // so no copy of an erased page outlives the transaction that erased it
    sql: 'PRAGMA journal_mode = TRUNCATE',
    otherwise: 'SQLite creates and deletes its journal file at every write',
  },
]

export function tuneSqlite(ctx: Context, logger: Logger): void {
  for (const driver of ctx.database.drivers ?? []) {
    const named = (driver.constructor as { name?: string }).name
    if (named !== 'sqlite' && named !== 'SQLiteDriver') continue
    for (const { sql, otherwise } of PRAGMAS) {
      try {
        ;(driver as unknown as SQLiteConnection)._run(sql)
      } catch (error) {
        logger.warn('%s: %s', otherwise, (error as Error).message)
      }
    }
  }
}
