import type * as LanceDB from '@lancedb/lancedb'
import type * as ArrowLib from 'apache-arrow'
import { sqlString } from '../scope'
import { loadLib } from './lance-library'

export const COLUMNS = ['id', 'text', 'vector', 'platform', 'user_id', 'guild_id', 'channel_id', 'created_at'] as const
const ALL_COLUMNS = [...COLUMNS, 'embedder', 'dims']
const META_EMBEDDER = 'memory.embedder'
const META_DIMS = 'memory.dims'

export interface TableMeta {
  embedderId: string
  dims: number
}

export function schemaOf(meta: TableMeta): ArrowLib.Schema {
  const { arrow } = loadLib()
  const utf8 = (name: string) => new arrow.Field(name, new arrow.Utf8(), false)
  return new arrow.Schema(
    [
      utf8('id'),
      utf8('text'),
      new arrow.Field('vector', new arrow.FixedSizeList(meta.dims, new arrow.Field('item', new arrow.Float32(), true)), false),
      utf8('platform'),
      utf8('user_id'),
      utf8('guild_id'),
      utf8('channel_id'),
      new arrow.Field('created_at', new arrow.Float64(), false),
      utf8('embedder'),
      new arrow.Field('dims', new arrow.Int32(), false),
    ],
    new Map([
      [META_EMBEDDER, meta.embedderId],
      [META_DIMS, String(meta.dims)],
    ]),
  )
}

/** Why an existing table cannot hold this embedder's vectors, or undefined when it can. */
export async function mismatchOf(handle: LanceDB.Table, meta: TableMeta): Promise<string | undefined> {
  const schema = await handle.schema()
  const names = schema.fields.map((f) => f.name)
  const missing = ALL_COLUMNS.filter((c) => !names.includes(c))
  if (missing.length) return `an old layout (missing ${missing.join(', ')})`
  const vectorType = schema.fields.find((f) => f.name === 'vector')!.type as { listSize?: number }
  if (vectorType.listSize !== meta.dims) return `vectors of ${vectorType.listSize} dimensions`
  const embedder = schema.metadata.get(META_EMBEDDER)
  if (embedder !== undefined && embedder !== meta.embedderId) return `vectors of embedder ${embedder}`
  // Every row carries its embedder and dimension too; trust the rows over the schema.
  const foreign = await handle.countRows(`embedder <> ${sqlString(meta.embedderId)} OR dims <> ${meta.dims}`)
  if (foreign > 0) return `${foreign} rows of another embedder`
  return undefined
}
