import * as fs from 'node:fs'
import { join } from 'node:path'
import type * as LanceDB from '@lancedb/lancedb'
import type { Counters, Logger } from '../core/observability'
import type { EmbedderCheck } from './vector-index'
import { errorLine } from './lance-errors'
import { loadLib } from './lance-library'
import type { TableMeta } from './lance-schema'
import type { SearchIndexes } from './lance-search-indexes'

/** An error naming a data file of a table that is not there (the folder was deleted or damaged under an open table). */
const MISSING_DATA = /not found: \S*\.lance\/data\//i

export interface TableRepairOptions {
  /** The LanceDB directory. */
  dir: string
  logger: Logger
  counters?: Counters
  searchIndexes: SearchIndexes
  metaOf: (table: string) => TableMeta
  /** Gives the index the table's open handle, or takes it back (undefined). */
  setHandle: (table: string, handle: LanceDB.Table | undefined) => void
  /** Creates the table anew, empty, once it was dropped; its rows must be re-added. */
  makeAnew: (table: string) => Promise<EmbedderCheck>
}

/** Finds damaged tables and repairs them: their search indexes rebuilt, or, when that is not enough, the table made anew. */
export class TableRepair {
  constructor(private readonly options: TableRepairOptions) {}

  /**
   * Checks a table whose breaker opened while the store itself answers, and repairs it when it cannot
   * be read: what `repair` returns, or undefined when the table is missing or sound.
   */
  async afterFailure(conn: LanceDB.Connection, table: string, cause: unknown): Promise<EmbedderCheck | undefined> {
    if (!(await conn.tableNames()).includes(table)) return undefined
    const handle = await conn.openTable(table)
    // a write that found a data file gone: the table is broken however its reads fare
    const lostData = MISSING_DATA.test(errorLine(cause))
    const damage = (await this.damage(handle)) ?? (lostData ? errorLine(cause) : undefined)
    return damage ? this.repair(conn, handle, damage, lostData) : undefined
  }

  /**
   * Rebuilds a damaged table's search indexes, or, when the table still cannot be read, makes it anew
   * (`'created'`: its rows must be re-added).
   */
  async repair(conn: LanceDB.Connection, handle: LanceDB.Table, damage: string, lostData = false): Promise<EmbedderCheck> {
    const { logger, counters, searchIndexes, setHandle } = this.options
    const table = handle.name
    counters?.inc('index.table-damaged')
    for (const index of await handle.listIndices().catch(() => [])) await handle.dropIndex(index.name).catch(() => undefined)
    if (!lostData && !(await this.damage(handle))) {
      logger.warn('LanceDB table %s had damaged search indexes (%s); they are being rebuilt', table, damage)
      searchIndexes.forget(table)
      setHandle(table, handle)
      await searchIndexes.ensure(handle, table, true)
      return 'ok'
    }
    handle.close()
    setHandle(table, undefined)
    logger.warn('LanceDB table %s is damaged (%s); it is made anew and its rows are re-added from the database', table, damage)
    await this.drop(conn, table)
    return this.options.makeAnew(table)
  }

  /** Drops a table; when LanceDB cannot (its files are unreadable), deletes its folder. */
  async drop(conn: LanceDB.Connection, table: string): Promise<void> {
    this.options.setHandle(table, undefined)
    try {
      await conn.dropTable(table)
    } catch {
      fs.rmSync(join(this.options.dir, `${table}.lance`), { recursive: true, force: true })
    }
  }

  /** Why the table cannot be read (every column, its scalar, full-text and vector indexes), or undefined. */
  async damage(handle: LanceDB.Table): Promise<string | undefined> {
    const { lancedb } = loadLib()
    const meta = this.options.metaOf(handle.name)
    try {
      // every id, read natively: no JS object a row
      await handle.query().select(['id']).toArrow()
      await handle.query().nearestTo(new Float32Array(meta.dims).fill(1)).distanceType('cosine').where("user_id = ''").limit(1).toArray()
      await handle.query().fullTextSearch(new lancedb.MatchQuery('a', 'text')).where("guild_id = ''").limit(1).toArray()
      return undefined
    } catch (error) {
      return errorLine(error)
    }
  }
}
