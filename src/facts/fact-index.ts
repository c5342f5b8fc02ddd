import type { Embedder } from '../providers/types'
import type { Logger } from '../core/observability'
import { Counters } from '../core/observability'
import type { Outbox } from '../store/outbox'
import type { FactRow } from './table'
import type { IndexRow, VectorIndex } from '../store/vector-index'

export function toIndexRow(fact: FactRow, vector: Float32Array): IndexRow {
  return {
    id: fact.id,
    text: fact.content,
    vector,
    platform: fact.platform,
    user_id: fact.userId,
    guild_id: fact.guildId,
    channel_id: fact.channelId,
    created_at: fact.createdAt.getTime(),
  }
}

export interface FactIndexDeps {
  index: VectorIndex
  embedder: Embedder
  outbox: Outbox
  table: string
  counters: Counters
  logger: Logger
}

/**
 * Keeps the LanceDB copy of facts in step with the database. Whatever cannot be indexed now
 * (embedder or store down) waits in the outbox and is retried by `drain`.
 */
export class FactIndex {
  constructor(private deps: FactIndexDeps) {}

  async add(fact: FactRow, vector?: Float32Array): Promise<boolean> {
    const { index, embedder, outbox, table, counters } = this.deps
    try {
      vector ??= (await embedder.embed([fact.content]))[0]
      await index.upsert(table, [toIndexRow(fact, vector)])
      return true
    } catch (error) {
      counters.inc('outbox.queued')
      this.deps.logger.debug('fact %s waits in the outbox: %s', fact.id, (error as Error).message)
      await outbox.add(table, fact.id, 'upsert')
      return false
    }
  }

  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return
    const { index, outbox, table } = this.deps
    await outbox.forget(table, ids)
    try {
      await index.delete(table, ids)
    } catch {
      for (const id of ids) await outbox.add(table, id, 'delete')
    }
  }

  /** Indexes waiting rows in batches. Stops at the first failure and leaves the rest queued. */
  async drain(load: (ids: string[]) => Promise<FactRow[]>, batch = 64): Promise<{ indexed: number; pending: boolean }> {
    const { index, embedder, outbox, table } = this.deps
    let indexed = 0
    for (;;) {
      const rows = await outbox.take(table, batch)
      if (!rows.length) return { indexed, pending: false }
      try {
        const deletes = rows.filter((row) => row.op === 'delete').map((row) => row.rowId)
        if (deletes.length) await index.delete(table, deletes)
        const facts = await load(rows.filter((row) => row.op === 'upsert').map((row) => row.rowId))
        if (facts.length) {
          const vectors = await embedder.embed(facts.map((fact) => fact.content))
          await index.upsert(table, facts.map((fact, i) => toIndexRow(fact, vectors[i])))
        }
        await outbox.done(rows.map((row) => row.id))
        indexed += rows.length
      } catch (error) {
        await outbox.retry(rows.map((row) => row.id))
        this.deps.logger.debug('outbox drain stopped: %s', (error as Error).message)
        return { indexed, pending: true }
      }
    }
  }
}
