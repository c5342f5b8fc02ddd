import type { Embedder } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import type { Scope } from '../../src/scope'
import type { Outbox } from '../../src/store/outbox'
import type { FactRepository } from '../../src/facts/repository'
import type { OutboxRow } from '../../src/store/outbox'
import type { FactRow } from '../../src/facts/table'
import type { IndexHit, IndexRow, VectorIndex } from '../../src/store/vector-index'

export const quiet = { debug() {}, info() {}, warn() {}, error() {} }

function matches(row: { platform: string; userId: string; guildId: string; channelId: string }, scope: Scope) {
  return (scope.platform === undefined || row.platform === scope.platform)
    && (scope.userId === undefined || row.userId === scope.userId)
    && (scope.guildId === undefined || row.guildId === scope.guildId)
    && (scope.channelId === undefined || row.channelId === scope.channelId)
}

export class MemoryFacts implements FactRepository {
  rows = new Map<string, FactRow>()
  async insert(row: FactRow) { this.rows.set(row.id, { ...row }) }
  async update(id: string, patch: Partial<FactRow>) { Object.assign(this.rows.get(id)!, patch) }
  async get(ids: string[]) { return ids.flatMap((id) => this.rows.get(id) ?? []) }
  async findByContent(scope: Scope, content: string) { return [...this.rows.values()].find((r) => matches(r, scope) && r.content === content) }
  async list(scope: Scope, limit: number, offset = 0) { return [...this.rows.values()].filter((r) => matches(r, scope)).slice(offset, offset + limit) }
  async count(scope?: Scope) { return [...this.rows.values()].filter((r) => !scope || matches(r, scope)).length }
  async allIds() { return [...this.rows.keys()] }
  async ofUser(platform: string, userId: string) { return [...this.rows.values()].filter((r) => r.platform === platform && r.userId === userId) }
  async remove(ids: string[]) { for (const id of ids) this.rows.delete(id) }
}

export class MemoryOutbox implements Outbox {
  rows: OutboxRow[] = []
  private next = 1
  async add(table: string, rowId: string, op: OutboxRow['op']) {
    this.rows = this.rows.filter((r) => !(r.table === table && r.rowId === rowId))
    this.rows.push({ id: this.next++, table, rowId, op, attempts: 0, createdAt: new Date() })
  }
  async addMany(table: string, rowIds: string[], op: OutboxRow['op']) { for (const rowId of rowIds) await this.add(table, rowId, op) }
  async take(table: string, limit: number) { return this.rows.filter((r) => r.table === table).slice(0, limit) }
  async done(ids: number[]) { this.rows = this.rows.filter((r) => !ids.includes(r.id)) }
  async retry(ids: number[]) { for (const r of this.rows) if (ids.includes(r.id)) r.attempts++ }
  async forget(table: string, rowIds: string[]) { this.rows = this.rows.filter((r) => !(r.table === table && rowIds.includes(r.rowId))) }
  async size() { return this.rows.length }
}

function dot(a: Float32Array, b: Float32Array) {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** An exact in-memory index that can be switched off to play an unavailable store. */
export class ExactIndex implements VectorIndex {
  state: VectorIndex['state'] = 'ready'
  rows = new Map<string, IndexRow>()
  down = false
  private check() { if (this.down) throw new Error('index down') }
  async open() {}
  async prepare() { return 'ok' as const }
  async upsert(_: string, rows: IndexRow[]) { this.check(); for (const row of rows) this.rows.set(row.id, row) }
  async delete(_: string, ids: string[]) { this.check(); for (const id of ids) this.rows.delete(id) }
  /** Every table shares one map here: clearing one clears all. */
  async clear() { this.check(); this.rows.clear() }
  async search(table: string, query: { vector: Float32Array; text: string; scope: Scope; limit: number }) {
    return this.nearest(table, query.vector, query.scope, query.limit)
  }
  async nearest(_: string, vector: Float32Array, scope: Scope, limit: number): Promise<IndexHit[]> {
    this.check()
    return [...this.rows.values()]
      .filter((r) => matches({ platform: r.platform, userId: r.user_id, guildId: r.guild_id, channelId: r.channel_id }, scope))
      .map((r) => ({ ...r, similarity: dot(r.vector, vector), relevance: dot(r.vector, vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, limit)
  }
  async count() { return this.rows.size }
  async texts(_: string, ids: string[]) { return ids.flatMap((id) => this.rows.get(id)?.text ?? []) }
  async optimize() {}
  async close() {}
}

/** Wraps an embedder so a test can make it fail. */
export class SwitchableEmbedder implements Embedder {
  down = false
  constructor(private inner: Embedder) {}
  get id() { return this.inner.id }
  get dims() { return this.inner.dims }
  get lexical() { return this.inner.lexical }
  async embed(texts: string[]) {
    if (this.down) throw new Error('embedder down')
    return this.inner.embed(texts)
  }
}

export { Counters }
