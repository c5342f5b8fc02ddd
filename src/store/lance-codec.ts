import type * as ArrowLib from 'apache-arrow'
import { cosine } from '../providers/vectors'
import type { IndexHit, IndexRow } from './vector-index'
import { rankRelevance } from './index-checks'
import { loadLib } from './lance-library'
import type { TableMeta } from './lance-schema'
import { COLUMNS, schemaOf } from './lance-schema'

export function toArrow(meta: TableMeta, rows: IndexRow[]): ArrowLib.Table {
  const { arrow } = loadLib()
  const schema = schemaOf(meta)
  const n = rows.length
  const flat = new Float32Array(n * meta.dims)
  rows.forEach((row, i) => flat.set(row.vector, i * meta.dims))
  const strings = (pick: (row: IndexRow) => string) => arrow.vectorFromArray(rows.map(pick), new arrow.Utf8())
  const vectorType = schema.fields[2].type
  const vectors = arrow.makeVector(
    arrow.makeData({
      type: vectorType,
      length: n,
      nullCount: 0,
      child: arrow.makeData({ type: new arrow.Float32(), length: n * meta.dims, data: flat }),
    }),
  )
  const columns: Record<string, ArrowLib.Vector> = {
    id: strings((r) => r.id),
    text: strings((r) => r.text),
    vector: vectors,
    platform: strings((r) => r.platform),
    user_id: strings((r) => r.user_id),
    guild_id: strings((r) => r.guild_id),
    channel_id: strings((r) => r.channel_id),
    created_at: arrow.makeVector(Float64Array.from(rows, (r) => r.created_at)),
    embedder: strings(() => meta.embedderId),
    dims: arrow.makeVector(new Int32Array(n).fill(meta.dims)),
  }
  // apache-arrow's typings take a schema's columns only as one vector type; these differ per column
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return new arrow.Table(schema, columns as any)
}

export function toHits(rows: ArrowLib.Table, query: Float32Array, relevance: (i: number) => number): IndexHit[] {
  return toRows(rows, query.length).map(({ vector, ...row }, i) => ({
    ...row,
    similarity: cosine(query, vector),
    relevance: relevance(i),
  }))
}

/** Hits of one ranked list, scored like a single list in reciprocal rank fusion. */
export function rankHits(rows: ArrowLib.Table, query: Float32Array): IndexHit[] {
  return toHits(rows, query, rankRelevance)
}

/** The rows of a query's result that selected every column of `COLUMNS`. */
export function toRows(rows: ArrowLib.Table, dims: number): IndexRow[] {
  // an empty result may come without its columns
  if (!rows.numRows) return []
  const col = (name: string) => rows.getChild(name)!
  const [id, text, , platform, userId, guildId, channelId, createdAt] = COLUMNS.map(col)
  const vectors = flatVectors(col('vector'), dims)
  const out: IndexRow[] = []
  for (let i = 0; i < rows.numRows; i++) {
    out.push({
      id: String(id.get(i)),
      text: String(text.get(i)),
      vector: vectors.subarray(i * dims, (i + 1) * dims),
      platform: String(platform.get(i)),
      user_id: String(userId.get(i)),
      guild_id: String(guildId.get(i)),
      channel_id: String(channelId.get(i)),
      created_at: Number(createdAt.get(i)),
    })
  }
  return out
}

/** The vectors of a fixed-size-list column, one after another (rows never hold a null vector: the schema forbids it). */
function flatVectors(column: ArrowLib.Vector, dims: number): Float32Array {
  const flat = new Float32Array(column.length * dims)
  let at = 0
  for (const data of column.data) {
    const values = data.children[0].values as Float32Array
    flat.set(values.subarray(data.offset * dims, (data.offset + data.length) * dims), at * dims)
    at += data.length
  }
  return flat
}
