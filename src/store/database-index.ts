import type { Context } from 'koishi'
import { $ } from 'koishi'
import { chunks } from '../core/chunks'
import type { Counters, Logger } from '../core/observability'
import { cosine } from '../providers/vectors'
import type { Scope } from '../scope'
import { dbWhere } from '../scope'
import {
  checkEmbedder,
  checkLimit,
  checkQueryVector,
  checkTableName,
  fuse,
  isZero,
  rankRelevance,
  uniqueRows,
  WORDLIKE,
} from './index-checks'
import { queryTerms, rankByTerms } from './term-match'
import type { EmbedderCheck, IndexHit, IndexRow, IndexState, VectorIndex } from './vector-index'

/**
 * The `VectorIndex` that needs no native code, for machines where LanceDB cannot load: the rows live
 * in a Koishi database table and a search scores every row of the query's scope exactly (cosine for
 * the vector leg, term matching for the full-text leg, fused by reciprocal rank as LanceDB's are).
 * Slower than LanceDB on large scopes, and as correct.
 *
 * Vectors are kept as base64 of their float32 bytes in a text column: every minato driver stores
 * text the same way, and on SQLite it reads back faster than a binary column and three times faster
 * than JSON (measured in docs/architecture.md, "One way to keep LanceDB in step").
 */

/** One index row in the database: `IndexRow` with its vector encoded, and the embedder that made it. */
export interface VectorRecord {
  table: string
  id: string
  text: string
  vector: string
  platform: string
  userId: string
  guildId: string
  channelId: string
  /** Milliseconds since the epoch. */
  createdAt: number
  embedder: string
  dims: number
}

/** Which embedder's vectors an index table holds. A row here also says the database index served. */
export interface VectorTableRecord {
  table: string
  embedder: string
  dims: number
}

declare module 'koishi' {
  interface Tables {
    memory_vector: VectorRecord
    memory_vector_table: VectorTableRecord
  }
}

export function defineVectorTables(ctx: Context) {
  ctx.model.extend(
    'memory_vector',
    {
      table: 'string(63)',
      id: 'string(63)',
      text: 'text',
      vector: 'text',
      platform: 'string(63)',
      userId: 'string(127)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      createdAt: 'double',
      embedder: 'string(255)',
      dims: 'unsigned',
    },
    {
      primary: ['table', 'id'],
      indexes: [
        ['table', 'platform', 'userId', 'guildId'],
        ['table', 'guildId'],
        ['table', 'channelId'],
      ],
    },
  )
  ctx.model.extend('memory_vector_table', { table: 'string(63)', embedder: 'string(255)', dims: 'unsigned' }, { primary: 'table' })
}

function encode(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
}

function decode(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64')
  // copied: a Float32Array needs an offset that is a multiple of 4, which a pooled Buffer may not have
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
}

const HIT_FIELDS = ['id', 'text', 'vector', 'platform', 'userId', 'guildId', 'channelId', 'createdAt'] as const

type Candidate = Pick<VectorRecord, (typeof HIT_FIELDS)[number]>

function toHit(row: Candidate, similarity: number, relevance: number): IndexHit {
  return {
    id: row.id,
    text: row.text,
    similarity,
    relevance,
    created_at: row.createdAt,
    platform: row.platform,
    user_id: row.userId,
    guild_id: row.guildId,
    channel_id: row.channelId,
  }
}

export interface DatabaseIndexOptions {
  logger: Logger
  counters?: Counters
}

export class DatabaseIndex implements VectorIndex {
  private readonly meta = new Map<string, { embedderId: string; dims: number }>()
  private opened = false

  constructor(
    private readonly ctx: Context,
    private readonly options: DatabaseIndexOptions,
  ) {}

  get state(): IndexState {
    return this.opened ? 'ready' : 'uninitialised'
  }

  async open(): Promise<void> {
    this.opened = true
  }

  async prepare(table: string, embedderId: string, dims: number): Promise<EmbedderCheck> {
    checkTableName(table)
    checkEmbedder(embedderId, dims)
    this.checkOpen()
    this.meta.set(table, { embedderId, dims })
    const db = this.ctx.database
    const [known] = await db.get('memory_vector_table', { table })
    if (known?.embedder === embedderId && known.dims === dims) {
      // every row carries its embedder and dimension too; trust the rows over the table's record
      const foreign = await db.eval('memory_vector', (row) => $.count(row.id), {
        table,
        $or: [{ embedder: { $ne: embedderId } }, { dims: { $ne: dims } }],
      })
      if (!foreign) return 'ok'
    }
    if (known) this.options.logger.info('index table %s holds vectors of another embedder; emptying it for %s/%d', table, embedderId, dims)
    await db.remove('memory_vector', { table })
    await db.upsert('memory_vector_table', [{ table, embedder: embedderId, dims }])
    return known ? 'reindex' : 'created'
  }

  async upsert(table: string, rows: IndexRow[]): Promise<void> {
    const { embedderId, dims } = this.metaOf(table)
    const unique = uniqueRows(rows, dims)
    if (!unique.length) return
    this.checkOpen()
    for (const part of chunks(unique)) {
      await this.ctx.database.upsert(
        'memory_vector',
        part.map((row) => ({
          table,
          id: row.id,
          text: row.text,
          vector: encode(row.vector),
          platform: row.platform,
          userId: row.user_id,
          guildId: row.guild_id,
          channelId: row.channel_id,
          createdAt: row.created_at,
          embedder: embedderId,
          dims,
        })),
      )
    }
    this.options.counters?.inc('index.rows-upserted', unique.length)
  }

  async delete(table: string, ids: string[]): Promise<void> {
    this.metaOf(table)
    this.checkOpen()
    for (const part of chunks([...new Set(ids)])) await this.ctx.database.remove('memory_vector', { table, id: { $in: part } })
  }

  async clear(table: string): Promise<void> {
    this.metaOf(table)
    this.checkOpen()
    await this.ctx.database.remove('memory_vector', { table })
  }

  async search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }): Promise<IndexHit[]> {
    const { dims } = this.metaOf(table)
    checkQueryVector(query.vector, dims)
    const where = dbWhere(query.scope)
    const limit = checkLimit(query.limit)
    const text = (query.text ?? '').trim()
    const terms = WORDLIKE.test(text) ? queryTerms(text) : []
    const useVector = !isZero(query.vector)
    if ((!terms.length && !useVector) || !limit) return []
    const rows = await this.readScope(table, where)
    const similarity = rows.map((row) => cosine(query.vector, decode(row.vector)))
    const byVector = useVector ? this.byVector(rows, similarity, limit) : undefined
    const byText = terms.length
      ? rankByTerms(
          terms,
          rows.map((row) => row.text),
        )
          .slice(0, limit)
          .map((i, rank) => toHit(rows[i], similarity[i], rankRelevance(rank)))
      : undefined
    if (byVector && byText) return fuse([byVector, byText], limit)
    return (byVector ?? byText)!
  }

  async nearest(table: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    const { dims } = this.metaOf(table)
    checkQueryVector(vector, dims)
    const where = dbWhere(scope)
    const checked = checkLimit(limit)
    if (isZero(vector) || !checked) return []
    const rows = await this.readScope(table, where)
    return this.byVector(
      rows,
      rows.map((row) => cosine(vector, decode(row.vector))),
      checked,
    )
  }

  async count(table: string, scope?: Scope): Promise<number> {
    this.metaOf(table)
    const where = scope ? dbWhere(scope) : {}
    this.checkOpen()
    return this.ctx.database.eval('memory_vector', (row) => $.count(row.id), { table, ...where })
  }

  async scopeRows(table: string, scope: Scope, limit: number): Promise<IndexRow[]> {
    this.metaOf(table)
    const checked = Math.max(0, Math.floor(limit))
    if (!checked) return []
    return (await this.readScope(table, dbWhere(scope), checked)).map((row) => ({
      id: row.id,
      text: row.text,
      vector: decode(row.vector),
      platform: row.platform,
      user_id: row.userId,
      guild_id: row.guildId,
      channel_id: row.channelId,
      created_at: row.createdAt,
    }))
  }

  async ids(table: string, among?: readonly string[]): Promise<string[]> {
    this.metaOf(table)
    this.checkOpen()
    if (!among) return (await this.ctx.database.get('memory_vector', { table }, ['id'])).map((row) => row.id)
    const out: string[] = []
    for (const part of chunks([...new Set(among)])) {
      out.push(...(await this.ctx.database.get('memory_vector', { table, id: { $in: part } }, ['id'])).map((row) => row.id))
    }
    return out
  }

  async texts(table: string, ids: string[]): Promise<string[]> {
    this.metaOf(table)
    this.checkOpen()
    const out: string[] = []
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.ctx.database.get('memory_vector', { table, id: { $in: part } }, ['text'])
      out.push(...rows.map((row) => row.text))
    }
    return out
  }

  /**
   * Nothing to rewrite: a removed row is gone from the table. What the database file keeps of freed
   * pages it keeps of every memory table alike (the facts themselves are erased the same way).
   */
  async purge(table: string): Promise<void> {
    this.metaOf(table)
    this.checkOpen()
  }

  /** The database keeps its own indices up to date. */
  async optimize(): Promise<void> {}

  async close(): Promise<void> {
    this.opened = false
  }

  /** Whether the database index served some table since `forgetAll` last ran (its copy must go stale otherwise). */
  async served(): Promise<boolean> {
    return (await this.ctx.database.get('memory_vector_table', {}, { fields: ['table'], limit: 1 })).length > 0
  }

  /** Drops every row and table record: another engine serves the memory now, and this copy would go stale. */
  async forgetAll(): Promise<void> {
    await this.ctx.database.remove('memory_vector', {})
    await this.ctx.database.remove('memory_vector_table', {})
  }

  private async readScope(table: string, where: ReturnType<typeof dbWhere>, limit?: number): Promise<Candidate[]> {
    this.checkOpen()
    return this.ctx.database.get('memory_vector', { table, ...where }, { fields: [...HIT_FIELDS], ...(limit && { limit }) })
  }

  private byVector(rows: Candidate[], similarity: number[], limit: number): IndexHit[] {
    return rows
      .map((_, i) => i)
      .sort((a, b) => similarity[b] - similarity[a])
      .slice(0, limit)
      .map((i, rank) => toHit(rows[i], similarity[i], rankRelevance(rank)))
  }

  private metaOf(table: string) {
    const meta = this.meta.get(table)
    if (!meta) throw new Error(`index table ${JSON.stringify(table)} is not prepared; call prepare(table, embedderId, dims) first`)
    return meta
  }

  private checkOpen() {
    if (!this.opened) throw new Error('the database index is not open')
  }
}
