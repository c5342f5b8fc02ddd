import type { Counters, Embedder, Logger } from '../providers/types'
import type { Outbox } from '../store/ports'
import type { IndexHit, IndexRow, VectorIndex } from '../store/vector-index'
import type { SummaryChannel, SummaryRow } from './types'

/** The LanceDB table of topic summaries. */
export const SUMMARY_TABLE = 'topic_summaries'

/** The text a summary is embedded and full-text indexed by: its title and its summary. */
export function indexText(row: Pick<SummaryRow, 'title' | 'summary'>): string {
  return row.title ? `${row.title}\n${row.summary}` : row.summary
}

export function toIndexRow(row: SummaryRow, vector: Float32Array): IndexRow {
  return {
    id: row.id,
    text: indexText(row),
    vector,
    platform: row.platform,
    user_id: '',
    guild_id: row.guildId,
    channel_id: row.channelId,
    created_at: row.createdAt.getTime(),
  }
}

export interface SummaryIndexDeps {
  index: VectorIndex
  embedder: Embedder
  outbox: Outbox
  counters: Counters
  logger: Logger
  /** Ids of the newest version of every summarised topic, to queue when the embedder changed. */
  latestIds(): Promise<string[]>
  table?: string
}

/**
 * Keeps the LanceDB table `topic_summaries` in step with the database (the truth): only the newest
 * version of each topic's summary is indexed. What cannot be indexed now (store or embedder down)
 * waits in the outbox under the table's name and is retried by `drain`, as for facts and group
 * memories. The table is prepared on first use; when it held another embedder's vectors every
 * newest summary is queued again.
 */
export class SummaryIndex {
  readonly table: string
  private prepared = false

  constructor(private deps: SummaryIndexDeps) {
    this.table = deps.table ?? SUMMARY_TABLE
  }

  async ready(): Promise<boolean> {
    if (this.prepared) return true
    const { index, embedder, outbox, logger } = this.deps
    try {
      const check = await index.prepare(this.table, embedder.id, embedder.dims)
      if (check === 'reindex') {
        const ids = await this.deps.latestIds()
        for (const id of ids) await outbox.add(this.table, id, 'upsert')
        logger.info('embedder changed: %d topic summaries will be indexed again', ids.length)
      }
      this.prepared = true
    } catch (error) {
      logger.debug('topic summary index not ready: %s', (error as Error).message)
    }
    return this.prepared
  }

  /** Indexes `row` (with its vector when already made) and drops `replacedIds`. Never throws. */
  async put(row: SummaryRow, replacedIds: string[], vector?: Float32Array): Promise<boolean> {
    const { index, embedder, outbox, counters, logger } = this.deps
    try {
      if (!await this.ready()) throw new Error('the vector store is unavailable')
      if (replacedIds.length) {
        await outbox.forget(this.table, replacedIds)
        await index.delete(this.table, replacedIds)
      }
      vector ??= (await embedder.embed([indexText(row)]))[0]
      await index.upsert(this.table, [toIndexRow(row, vector)])
      return true
    } catch (error) {
      counters.inc('outbox.queued')
      logger.debug('topic summary %s waits in the outbox: %s', row.id, (error as Error).message)
      try {
        for (const id of replacedIds) await outbox.add(this.table, id, 'delete')
        await outbox.add(this.table, row.id, 'upsert')
      } catch (inner) {
        logger.warn('could not queue topic summary index work: %s', (inner as Error).message)
      }
      return false
    }
  }

  /** Queues rows for (re-)indexing by the next `drain`. */
  async requeue(ids: string[]): Promise<void> {
    for (const id of ids) await this.deps.outbox.add(this.table, id, 'upsert')
  }

  /**
   * Indexes waiting rows in batches; stops at the first failure and leaves the rest queued. `load`
   * returns the rows still wanted in the index (newest versions); ids it does not return are removed.
   */
  async drain(load: (ids: string[]) => Promise<SummaryRow[]>, batch = 64): Promise<{ indexed: number; pending: boolean }> {
    const { index, embedder, outbox } = this.deps
    let indexed = 0
    if (!await this.ready()) return { indexed, pending: (await outbox.take(this.table, 1)).length > 0 }
    for (;;) {
      const waiting = await outbox.take(this.table, batch)
      if (!waiting.length) return { indexed, pending: false }
      try {
        const wanted = waiting.filter((row) => row.op === 'upsert').map((row) => row.rowId)
        const rows = await load(wanted)
        const found = new Set(rows.map((row) => row.id))
        const remove = [...new Set([...waiting.filter((row) => row.op === 'delete').map((row) => row.rowId), ...wanted.filter((id) => !found.has(id))])]
        if (remove.length) await index.delete(this.table, remove)
        if (rows.length) {
          const vectors = await embedder.embed(rows.map(indexText))
          await index.upsert(this.table, rows.map((row, i) => toIndexRow(row, vectors[i])))
        }
        await outbox.done(waiting.map((row) => row.id))
        indexed += waiting.length
      } catch (error) {
        await outbox.retry(waiting.map((row) => row.id))
        this.deps.logger.debug('topic summary outbox drain stopped: %s', (error as Error).message)
        return { indexed, pending: true }
      }
    }
  }

  /** Vector nearest neighbours within one channel. Throws when the store or the embedder is down. */
  async nearest(channel: SummaryChannel, query: string, limit: number): Promise<IndexHit[]> {
    if (!await this.ready()) throw new Error('the vector store is unavailable')
    const [vector] = await this.deps.embedder.embed([query])
    return this.deps.index.nearest(this.table, vector, { platform: channel.platform, channelId: channel.channelId }, limit)
  }
}
