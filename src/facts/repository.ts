import type { Context } from 'koishi'
import { $ } from 'koishi'
import type { Scope } from '../scope'
import { dbWhere } from '../scope'
import type { FactRow } from './table'

export interface ListOptions {
  /** Also facts a newer statement closed. Default: current facts only. */
  history?: boolean
}

/** Where facts live for good (the Koishi database). */
export interface FactRepository {
  insert(row: FactRow): Promise<void>
  update(id: string, patch: Partial<FactRow>): Promise<void>
  get(ids: string[]): Promise<FactRow[]>
  /** A fact of this scope with exactly this content (a current one unless `history`), if any. */
  findByContent(scope: Scope, content: string, options?: ListOptions): Promise<FactRow | undefined>
  list(scope: Scope, limit: number, offset?: number, options?: ListOptions): Promise<FactRow[]>
  count(scope?: Scope, options?: ListOptions): Promise<number>
  /** Ids of every fact (an index rebuild). */
  allIds(): Promise<string[]>
  /** Every fact of a user on a platform, in every guild. */
  ofUser(platform: string, userId: string): Promise<FactRow[]>
  remove(ids: string[]): Promise<void>
}

function where(scope: Scope | undefined, { history }: ListOptions) {
  const filter = scope ? dbWhere(scope) : {}
  return history ? filter : { ...filter, validTo: null }
}

export class KoishiFactRepository implements FactRepository {
  constructor(private ctx: Context) {}

  async insert(row: FactRow) {
    await this.ctx.database.create('memory_fact', row)
  }

  async update(id: string, patch: Partial<FactRow>) {
    await this.ctx.database.set('memory_fact', { id }, patch)
  }

  async get(ids: string[]) {
    if (!ids.length) return []
    return this.ctx.database.get('memory_fact', { id: { $in: ids } })
  }

  async findByContent(scope: Scope, content: string, options: ListOptions = {}) {
    const [row] = await this.ctx.database.get('memory_fact', { ...where(scope, options), content }, { limit: 1 })
    return row
  }

  async list(scope: Scope, limit: number, offset = 0, options: ListOptions = {}) {
    return this.ctx.database.get('memory_fact', where(scope, options), {
      limit,
      offset,
      sort: { updatedAt: 'desc' },
    })
  }

  async count(scope?: Scope, options: ListOptions = {}) {
    return this.ctx.database.eval('memory_fact', (row) => $.count(row.id), where(scope, options))
  }

  async ofUser(platform: string, userId: string) {
    return this.ctx.database.get('memory_fact', { platform, userId })
  }

  async allIds() {
    return (await this.ctx.database.get('memory_fact', {}, ['id'])).map((row) => row.id)
  }

  async remove(ids: string[]) {
    if (ids.length) await this.ctx.database.remove('memory_fact', { id: { $in: ids } })
  }
}
