import type { FactStore, ListOptions } from '../../src/facts/store'
import type { FactRow } from '../../src/facts/table'
import type { Scope } from '../../src/scope'
import { inScope } from './scope'

/** An in-memory `FactStore`. */
export class MemoryFacts implements FactStore {
  rows = new Map<string, FactRow>()
  async insert(row: FactRow) {
    this.rows.set(row.id, { ...row })
  }
  async update(id: string, patch: Partial<FactRow>) {
    Object.assign(this.rows.get(id)!, patch)
  }
  async get(ids: string[]) {
    return ids.flatMap((id) => this.rows.get(id) ?? [])
  }
  async findByContent(scope: Scope, content: string, options: ListOptions = {}) {
    return [...this.rows.values()].find((r) => inScope(r, scope) && r.content === content && (options.history || !r.validTo))
  }
  async list(scope: Scope, limit: number, offset = 0, options: ListOptions = {}) {
    return [...this.rows.values()].filter((r) => inScope(r, scope) && (options.history || !r.validTo)).slice(offset, offset + limit)
  }
  async count(scope?: Scope, options: ListOptions = {}) {
    return [...this.rows.values()].filter((r) => (!scope || inScope(r, scope)) && (options.history || !r.validTo)).length
  }
  async allIds() {
    return [...this.rows.keys()]
  }
  async ofUser(platform: string, userId: string) {
    return [...this.rows.values()].filter((r) => r.platform === platform && r.userId === userId)
  }
  async drawnFrom(platform: string, channelId: string, messageRowId: string) {
    return [...this.rows.values()].filter((r) => r.platform === platform && r.channelId === channelId && r.sourceIds.includes(messageRowId))
  }
  async remove(ids: string[]) {
    for (const id of ids) this.rows.delete(id)
  }
}
