import type { Scope } from '../scope'
import type { IndexKind, IndexSyncDeps } from '../store/index-sync'
import { IndexedTable } from '../store/index-sync'
import type { MessageRow } from './table'
import type { ChannelRef } from './types'
import type { IndexedMessages } from './store'

/**
 * The LanceDB copy of captured messages (table `messages`): each message's text, its vector, and its
 * scope (speaker as `user_id`, guild, channel). Searching it within one channel gives the context
 * builder its "semantic neighbours" (hybrid vector + full-text search).
 *
 * Indexing is background work in batches. The message row is already in the database, so a failure
 * never loses it: rows that could not be indexed wait (bounded) and are tried again with the next
 * drain; rows that fail `maxAttempts` times while the store is up, or that overflow the waiting list,
 * are skipped and counted (`messages.index-skipped`) — `memory.reindex messages` restores them from the
 * database.
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
  channelId: string
}

export interface MessageIndexDeps extends IndexSyncDeps {
  rows: IndexedMessages
  /** The LanceDB table, when not `messages`. */
  table?: string
  /** Rows per embed + upsert call. Default 64. */
  batchSize?: number
  /** Most rows waiting to be indexed; the oldest beyond are skipped. Default 5000. */
  maxPending?: number
  /** Tries per row before it is skipped. Default 3. */
  maxAttempts?: number
  /**
   * How long new rows wait for more before they are written, unless a batch is full (ms). Default 1000.
   * Every LanceDB write is a commit, and each commit's table version costs native memory.
   */
  lingerMs?: number
}

interface Pending {
  row: MessageRow
  attempts: number
}

/** Messages worth finding again: with text, and not a bot command. */
function indexable(row: MessageRow): boolean {
  return !row.isCommand && row.content.trim().length > 0
}

export function messageIndexKind(rows: IndexedMessages): IndexKind<MessageRow> {
  return {
    table: MESSAGES_TABLE,
    name: 'messages',
    fields: (row) => ({
      id: row.id,
      text: row.content,
      platform: row.platform,
      user_id: row.userId,
      guild_id: row.guildId,
      channel_id: row.channelId,
      created_at: row.createdAt.getTime(),
    }),
    load: (ids) => rows.byIds(ids),
    allIds: () => rows.indexableIds(),
    ...(rows.indexableIdsAfter && { idsAfter: (after, limit) => rows.indexableIdsAfter!(after, limit) }),
    ...(rows.indexableSince && { changedSince: (since) => rows.indexableSince!(since) }),
    indexed: indexable,
  }
}

/**
 * New messages are indexed from a bounded list in memory, in batches, so capture never writes to
 * the outbox; erasures, rebuilds and what the list had to skip go through the table's outbox.
 */
export class MessageIndex {
  readonly indexed: IndexedTable<MessageRow>
  private readonly batchSize: number
  private readonly maxPending: number
  private readonly maxAttempts: number
  private readonly lingerMs: number
  private pending: Pending[] = []
  private draining?: Promise<boolean>
  private lingering?: NodeJS.Timeout

  constructor(private deps: MessageIndexDeps) {
    this.indexed = new IndexedTable(deps, messageIndexKind(deps.rows), deps.table)
    this.batchSize = Math.max(1, deps.batchSize ?? 64)
    this.maxPending = Math.max(1, deps.maxPending ?? 5000)
    this.maxAttempts = Math.max(1, deps.maxAttempts ?? 3)
    this.lingerMs = Math.max(0, deps.lingerMs ?? 1000)
  }

  get table(): string {
    return this.indexed.table
  }

  /** Rows waiting to be indexed. */
  get waiting(): number {
    return this.pending.length
  }

  /** Queues stored messages for indexing and starts a drain once a batch is full or the linger is over. Never throws, never waits. */
  add(rows: MessageRow[]): void {
    for (const row of rows) {
      if (indexable(row)) this.pending.push({ row, attempts: 0 })
    }
    this.trim()
    if (!this.lingerMs) void this.flush()
    else if (this.pending.length >= this.batchSize) void this.drainOnce(false)
    else this.linger()
  }

  /** Indexes every row that waits; resolves when that is done or a write failed (its rows stay waiting). */
  async flush(): Promise<void> {
    clearTimeout(this.lingering)
    this.lingering = undefined
    // a drain of full batches under way leaves a part batch behind: after it, this one writes the rest
    while (this.draining) if (!(await this.draining) || !this.pending.length) return
    await this.drainOnce(true)
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

  /** Messages of one channel nearest to `query` (hybrid search). Throws when the store or embedder is down. */
  async search(channel: ChannelRef, query: string, options: { limit: number; vector?: Float32Array }): Promise<MessageHit[]> {
    return this.searchWithin({ platform: channel.platform, channelId: channel.channelId }, query, options)
  }

  /** Messages of a scope (a speaker, a guild, a channel) most similar to `query`. */
  async searchWithin(scope: Scope, query: string, options: { limit: number; vector?: Float32Array }): Promise<MessageHit[]> {
    if (!query.trim() || options.limit < 1) return []
    const hits = await this.indexed.search(query, scope, options.limit, options.vector)
    return hits.map((hit) => ({
      id: hit.id,
      text: hit.text,
      similarity: hit.similarity,
      relevance: hit.relevance,
      createdAt: new Date(hit.created_at),
      userId: hit.user_id,
      channelId: hit.channel_id,
    }))
  }

  similarities(channel: ChannelRef, vector: Float32Array, ids: readonly string[]): (number | undefined)[] | undefined {
    return this.indexed.similarities({ platform: channel.platform, channelId: channel.channelId }, vector, ids)
  }

  /** Removes messages from the index (their rows are being erased). Failures are counted, not thrown. */
  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return
    const gone = new Set(ids)
    this.pending = this.pending.filter((entry) => !gone.has(entry.row.id))
    await this.indexed.remove(ids)
  }

  private linger() {
    this.lingering ??= setTimeout(() => void this.flush(), this.lingerMs).unref()
  }

  /** One drain at a time: `all` rows, or full batches only. Resolves whether every write went through. */
  private drainOnce(all: boolean): Promise<boolean> {
    this.draining ??= this.drain(all).then((ok) => {
      this.draining = undefined
      if (ok && this.pending.length && this.lingerMs) this.linger()
      return ok
    })
    return this.draining
  }

  /** `all`: the rows that wait now (not those that come meanwhile, which linger), else full batches. */
  private async drain(all: boolean): Promise<boolean> {
    let left = all ? this.pending.length : Infinity
    while (this.pending.length >= (all ? 1 : this.batchSize) && left > 0) {
      await this.deps.yieldToReads?.()
      const batch = this.pending.splice(0, Math.min(this.batchSize, left))
      left -= batch.length
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
      return false
    }
    return true
  }

  private async write(rows: MessageRow[]): Promise<boolean> {
    const { counters, logger } = this.deps
    try {
      await this.indexed.write(rows)
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
