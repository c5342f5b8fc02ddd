import type { Context } from 'koishi'
import type { Logger } from '../core/observability'

/** What the embedded SQLite driver exposes of its connection (not part of minato's typed API). */
export interface SQLiteConnection {
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

/** Sets the pragmas on the embedded SQLite's connections; returns them, for `releaseSqlite` at the stop. */
export function tuneSqlite(ctx: Context, logger: Logger): SQLiteConnection[] {
  const connections = sqliteConnections(ctx)
  for (const connection of connections) {
    for (const { sql, otherwise } of PRAGMAS) {
      try {
        connection._run(sql)
      } catch (error) {
        logger.warn('%s: %s', otherwise, (error as Error).message)
      }
    }
  }
  return connections
}

/**
 * Gives the file's lock back as the plugin stops. Koishi's stop resolves before the plugin's stop work has
 * run and before the driver closes its connection, so a restart in the same process (a reload of the
 * database plugin) would otherwise find the file locked by the old connection. In normal mode the lock
 * goes at the next access of the file, and every later statement takes and leaves it.
 */
export function releaseSqlite(connections: readonly SQLiteConnection[], logger: Logger): void {
  for (const connection of connections) {
    try {
      connection._run('PRAGMA locking_mode = NORMAL')
      connection._run('SELECT count(*) FROM sqlite_master')
    } catch (error) {
      // a connection already closed holds no lock
      logger.debug('could not hand back the SQLite lock: %s', (error as Error).message)
    }
  }
}

function sqliteConnections(ctx: Context): SQLiteConnection[] {
  return (ctx.database.drivers ?? []).filter((driver) => {
    const named = (driver.constructor as { name?: string }).name
    return named === 'sqlite' || named === 'SQLiteDriver'
  }) as unknown as SQLiteConnection[]
}
