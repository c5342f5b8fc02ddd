import type { Scope } from '../../src/scope'
import type { IndexHit, IndexRow, VectorIndex } from '../../src/store/vector-index'
import { inScope } from './scope'

function dot(a: Float32Array, b: Float32Array) {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** An exact in-memory index that can be switched off (`down = true`) to play an unavailable store. */
export class ExactIndex implements VectorIndex {
  state: VectorIndex['state'] = 'ready'
  rows = new Map<string, IndexRow>()
  down = false
  private check() {
    if (this.down) throw new Error('index down')
  }
  async open() {}
  async prepare() {
    return 'ok' as const
  }
  async upsert(_: string, rows: IndexRow[]) {
    this.check()
    for (const row of rows) this.rows.set(row.id, row)
  }
  async delete(_: string, ids: string[]) {
    this.check()
    for (const id of ids) this.rows.delete(id)
  }
  /** Every table shares one map here: clearing one clears all. */
  async clear() {
    this.check()
    this.rows.clear()
  }
  async search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }) {
    return this.nearest(table, query.vector, query.scope, query.limit)
  }
  async nearest(_: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    this.check()
    return [...this.rows.values()]
      .filter((r) => inScope({ platform: r.platform, userId: r.user_id, guildId: r.guild_id, channelId: r.channel_id }, scope))
      .map((r) => ({ ...r, similarity: dot(r.vector, vector), relevance: dot(r.vector, vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, limit)
  }
  async scopeRows(_: string, scope: Scope, limit: number) {
    return this.scopesRows(_, [scope], limit)
  }
  async scopesRows(_: string, scopes: readonly Scope[], limit: number) {
    this.check()
    return [...this.rows.values()]
      .filter((r) =>
        scopes.some((scope) => inScope({ platform: r.platform, userId: r.user_id, guildId: r.guild_id, channelId: r.channel_id }, scope)),
      )
      .slice(0, limit)
  }
  async count() {
    return this.rows.size
  }
  /** Every table shares one map here: the ids of all. */
  async ids(_: string, among?: readonly string[]) {
    this.check()
    return among ? among.filter((id) => this.rows.has(id)) : [...this.rows.keys()]
  }
  async texts(_: string, ids: string[]) {
    return ids.flatMap((id) => this.rows.get(id)?.text ?? [])
  }
  purged: string[] = []
  async purge(table: string) {
    this.check()
    this.purged.push(table)
  }
  async optimize() {}
  async close() {}
}
