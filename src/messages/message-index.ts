import type { EmbedderCheck, IndexRow } from '../store/vector-index'
import type { MessageRow } from './table'
import { OwnTableDeps, removeFromIndex } from '../store/index-sync'
import type { ChannelRef } from './types'

/**
 * The LanceDB copy of captured messages (table `messages`): each message's text, its vector, and its
 * scope (speaker as `user_id`, guild, channel). Searching it within one channel gives the context
 * builder its "semantic neighbours" (hybrid vector + full-text search).
 *
 * Indexing is background work in batches. The message row is already in the database, so a failure
 * never loses it: rows that could not be indexed wait (bounded) and are tried again with the next
 * drain; rows that fail `maxAttempts` times while the store is up, or that overflow the waiting list,
 * are skipped and counted (`messages.index-skipped`) — `rebuild()` restores them from the database.
 */

export const MESSAGES_TABLE = 'messages'

export interface MessageHit {
  /** Row id (`platform:channelId:messageId`). */
  id: string
  text: string
  /** Cosine similarity of the message to the query, in [-1, 1]. */
  similarity: number
  /** The fused rank score hits are ordered by. */
  relevance: number
  createdAt: Date
  userId: string
}

/** `table` defaults to `messages`. */
export interface MessageIndexDeps extends OwnTableDeps {
  /** Rows per embed + upsert call. Default 64. */
  batchSize?: number
  /** Most rows waiting to be indexed; the oldest beyond are skipped. Default 5000. */
  maxPending?: number
  /** Tries per row before it is skipped. Default 3. */
  maxAttempts?: number
  /** Called when the table was (re)created for another embedder: every message must be indexed again. */
  onReindexNeeded?: () => void
}

interface Pending {
  row: MessageRow
  attempts: number
}

/** Messages worth finding again: with text, and not a bot command. */
function indexable(row: MessageRow): boolean {
  return !row.isCommand && row.content.trim().length > 0
}

export function messageIndexRow(row: MessageRow, vector: Float32Array): IndexRow {
  return {
    id: row.id,
    text: row.content,
    vector,
    platform: row.platform,
    user_id: row.userId,
    guild_id: row.guildId,
    channel_id: row.channelId,
    created_at: row.createdAt.getTime(),
  }
}

export class MessageIndex {
  readonly table: string
  private readonly batchSize: number
  private readonly maxPending: number
  private readonly maxAttempts: number
  private pending: Pending[] = []
  private draining?: Promise<void>
  private prepared = false

  constructor(private deps: MessageIndexDeps) {
    this.table = deps.table ?? MESSAGES_TABLE
    this.batchSize = Math.max(1, deps.batchSize ?? 64)
    this.maxPending = Math.max(1, deps.maxPending ?? 5000)
    this.maxAttempts = Math.max(1, deps.maxAttempts ?? 3)
  }

  /** Rows waiting to be indexed. */
  get waiting(): number {
    return this.pending.length
  }

  /** Makes sure the table exists for the current embedder. Returns undefined when the store is down. */
  async prepare(): Promise<EmbedderCheck | undefined> {
    const { index, embedder } = this.deps
    try {
      const check = await index.prepare(this.table, embedder.id, embedder.dims)
      this.prepared = true
      if (check === 'reindex') {
        this.deps.logger.info('messages index: the embedder changed, every message will be indexed again')
        this.deps.onReindexNeeded?.()
      }
      return check
    } catch (error) {
      this.deps.logger.debug('messages index not ready: %s', (error as Error).message)
      return undefined
    }
  }

  /** Queues stored messages for indexing and starts a drain. Never throws, never waits. */
  add(rows: MessageRow[]): void {
    for (const row of rows) {
      if (indexable(row)) this.pending.push({ row, attempts: 0 })
    }
    this.trim()
    void this.flush()
  }

  /** Indexes what waits; resolves when this drain is over (rows that failed stay waiting). */
  flush(): Promise<void> {
    this.draining ??= this.drain().finally(() => (this.draining = undefined))
    return this.draining
  }

  /** Indexes rows now, in batches. Returns how many were indexed; failed rows join the waiting list. */
  async index(rows: MessageRow[]): Promise<number> {
    let indexed = 0
    for (let i = 0; i < rows.length; i += this.batchSize) {
      const batch = rows.slice(i, i + this.batchSize).filter(indexable)
      if (!batch.length) continue
      if (await this.write(batch)) indexed += batch.length
      else {
        for (const row of batch) this.pending.push({ row, attempts: 1 })
        this.trim()
      }
    }
    return indexed
  }

  /** Indexes every message from the database again (after the embedder changed, or to repair the index). */
  async rebuild(pages: AsyncIterable<MessageRow[]>): Promise<number> {
    let indexed = 0
    for await (const page of pages) indexed += await this.index(page)
    return indexed
  }

  /** Messages of one channel nearest to `query` (hybrid search). Throws when the store or embedder is down. */
  async search(channel: ChannelRef, query: string, options: { limit: number; vector?: Float32Array }): Promise<MessageHit[]> {
    if (!query.trim() || options.limit < 1) return []
    if (!this.prepared && !(await this.prepare())) throw new Error('messages index unavailable')
    const vector = options.vector ?? (await this.deps.embedder.embed([query]))[0]
    const hits = await this.deps.index.search(this.table, {
      vector,
      text: query,
      scope: { platform: channel.platform, channelId: channel.channelId },
      limit: options.limit,
    })
    return hits.map((hit) => ({
      id: hit.id,
      text: hit.text,
      similarity: hit.similarity,
      relevance: hit.relevance,
      createdAt: new Date(hit.created_at),
      userId: hit.user_id,
    }))
  }

  /** Removes messages from the index (their rows are being erased). Failures are counted, not thrown. */
  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return
    const gone = new Set(ids)
    this.pending = this.pending.filter((entry) => !gone.has(entry.row.id))
    await removeFromIndex(this.deps, this.table, ids, 'messages')
  }

  private async drain() {
    while (this.pending.length) {
      const batch = this.pending.splice(0, this.batchSize)
      if (await this.write(batch.map((entry) => entry.row))) continue
      // Put the batch back at the front. While the store is out (breaker open) rows only wait; a
      // failure of a working store costs them an attempt, and rows that used theirs up are skipped.
      const outage = this.deps.index.state !== 'ready'
      const kept: Pending[] = []
      for (const entry of batch) {
        if (outage || ++entry.attempts < this.maxAttempts) kept.push(entry)
        else this.skip(1)
      }
      this.pending.unshift(...kept)
      this.trim()
      return
    }
  }

  private async write(rows: MessageRow[]): Promise<boolean> {
    const { index, embedder, counters, logger } = this.deps
    try {
      if (!this.prepared && !(await this.prepare())) throw new Error('messages index unavailable')
      const vectors = await embedder.embed(rows.map((row) => row.content))
      await index.upsert(this.table, rows.map((row, i) => messageIndexRow(row, vectors[i])))
      counters.inc('messages.indexed', rows.length)
      return true
    } catch (error) {
      counters.inc('messages.index-failed', rows.length)
      logger.debug('could not index %d messages: %s', rows.length, (error as Error).message)
      return false
    }
  }

  private trim() {
    const over = this.pending.length - this.maxPending
    if (over > 0) {
      this.pending.splice(0, over)
      this.skip(over)
    }
  }

  private skip(count: number) {
    this.deps.counters.inc('messages.index-skipped', count)
  }
}
