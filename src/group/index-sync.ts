import type { Counters, Embedder, Logger } from '../providers/types'
import type { Outbox } from '../store/ports'
import type { IndexHit, IndexRow, VectorIndex } from '../store/vector-index'
import type { GroupMemoryRow, GroupRef } from './types'

/** The LanceDB table of group memories. */
export const GROUP_TABLE = 'group_memories'

export interface GroupIndexDeps {
  index: VectorIndex
  embedder: Embedder
  outbox: Outbox
  counters: Counters
  logger: Logger
  /** Ids of every active head in every group, to queue when the embedder changed. */
  activeIds(): Promise<string[]>
  table?: string
}

/** Only active heads are searchable; replaced and deleted versions stay in the database only. */
export const searchable = (row: GroupMemoryRow) => row.status === 'active' && !row.supersededBy

export function toIndexRow(row: GroupMemoryRow, vector: Float32Array): IndexRow {
  return {
    id: row.id,
    text: row.statement,
    vector,
    platform: row.platform,
    user_id: '',
    guild_id: row.guildId,
    channel_id: '',
    created_at: row.createdAt.getTime(),
  }
}

/**
 * Keeps the LanceDB table `group_memories` in step with the database (the truth), as `FactIndex`
 * does for facts: what cannot be indexed now waits in the outbox (table name = the LanceDB table)
 * and is retried by `drain`. The table is prepared on first use; when it held another embedder's
 * vectors every active memory is queued again.
 */
export class GroupIndex {
  readonly table: string
  private prepared = false

  constructor(private deps: GroupIndexDeps) {
    this.table = deps.table ?? GROUP_TABLE
  }

  /** Prepares the table once. False while the vector store is unavailable. */
  async ready(): Promise<boolean> {
    if (this.prepared) return true
    const { index, embedder, outbox, logger } = this.deps
    try {
      const check = await index.prepare(this.table, embedder.id, embedder.dims)
      if (check === 'reindex') {
        const ids = await this.deps.activeIds()
        for (const id of ids) await outbox.add(this.table, id, 'upsert')
        logger.info('embedder changed: %d group memories will be indexed again', ids.length)
      }
      this.prepared = true
    } catch (error) {
      logger.debug('group memory index not ready: %s', (error as Error).message)
    }
    return this.prepared
  }

  /**
   * Indexes `rows` (active heads are added, anything else removed) and removes `deleteIds`. Never
   * throws: whatever fails waits in the outbox.
   */
  async sync(rows: GroupMemoryRow[], deleteIds: string[]): Promise<void> {
    const { index, embedder, outbox, counters, logger } = this.deps
    const add = rows.filter(searchable)
    const remove = [...new Set([...deleteIds, ...rows.filter((row) => !searchable(row)).map((row) => row.id)])]
    if (!add.length && !remove.length) return
    try {
      if (!await this.ready()) throw new Error('the vector store is unavailable')
      if (remove.length) {
        await outbox.forget(this.table, remove)
        await index.delete(this.table, remove)
      }
      if (add.length) {
        const vectors = await embedder.embed(add.map((row) => row.statement))
        await index.upsert(this.table, add.map((row, i) => toIndexRow(row, vectors[i])))
      }
    } catch (error) {
      counters.inc('outbox.queued', add.length + remove.length)
      logger.debug('%d group memory index changes wait in the outbox: %s', add.length + remove.length, (error as Error).message)
      try {
        for (const id of remove) await outbox.add(this.table, id, 'delete')
        for (const row of add) await outbox.add(this.table, row.id, 'upsert')
      } catch (inner) {
        // the database failed too: `memory.reindex` rebuilds the index from the rows
        logger.warn('could not queue group memory index work: %s', (inner as Error).message)
      }
    }
  }

  /** Queues rows for (re-)indexing by the next `drain`. */
  async requeue(ids: string[]): Promise<void> {
    for (const id of ids) await this.deps.outbox.add(this.table, id, 'upsert')
  }

  /** Indexes waiting rows in batches; stops at the first failure and leaves the rest queued. */
  async drain(load: (ids: string[]) => Promise<GroupMemoryRow[]>, batch = 64): Promise<{ indexed: number; pending: boolean }> {
    const { index, embedder, outbox } = this.deps
    let indexed = 0
    if (!await this.ready()) return { indexed, pending: (await outbox.take(this.table, 1)).length > 0 }
    for (;;) {
      const waiting = await outbox.take(this.table, batch)
      if (!waiting.length) return { indexed, pending: false }
      try {
        const wanted = waiting.filter((row) => row.op === 'upsert').map((row) => row.rowId)
        const rows = await load(wanted)
        const add = rows.filter(searchable)
        const found = new Set(add.map((row) => row.id))
        const remove = [...new Set([...waiting.filter((row) => row.op === 'delete').map((row) => row.rowId), ...wanted.filter((id) => !found.has(id))])]
        if (remove.length) await index.delete(this.table, remove)
        if (add.length) {
          const vectors = await embedder.embed(add.map((row) => row.statement))
          await index.upsert(this.table, add.map((row, i) => toIndexRow(row, vectors[i])))
        }
        await outbox.done(waiting.map((row) => row.id))
        indexed += waiting.length
      } catch (error) {
        await outbox.retry(waiting.map((row) => row.id))
        this.deps.logger.debug('group memory outbox drain stopped: %s', (error as Error).message)
        return { indexed, pending: true }
      }
    }
  }

  /** Hybrid search within one group. Throws when the store or the embedder is unavailable. */
  async search(group: GroupRef, query: string, limit: number): Promise<IndexHit[]> {
    if (!await this.ready()) throw new Error('the vector store is unavailable')
    const [vector] = await this.deps.embedder.embed([query])
    return this.deps.index.search(this.table, { vector, text: query, scope: { platform: group.platform, guildId: group.guildId }, limit })
  }
}
