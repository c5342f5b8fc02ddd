import type { Context } from 'koishi'
import type { Logger } from '../core/observability'

/** What the embedded SQLite driver exposes of its connection (not part of minato's typed API). */
interface SQLiteConnection {
  _run(sql: string): unknown
}

/**
 * Has SQLite overwrite what it deletes: without it, a forgotten fact's text stays in the database
 * file's free pages until they are reused. The server databases keep their own files (say so in
 * docs/reliability.md); only the embedded SQLite driver is reached here.
 */
export function secureDelete(ctx: Context, logger: Logger): void {
  for (const driver of ctx.database.drivers ?? []) {
    const named = (driver.constructor as { name?: string }).name
    if (named !== 'sqlite' && named !== 'SQLiteDriver') continue
    try {
      ;(driver as unknown as SQLiteConnection)._run('PRAGMA secure_delete = ON')
    } catch (error) {
      logger.warn('SQLite keeps deleted text in free pages until they are reused: %s', (error as Error).message)
    }
  }
}
