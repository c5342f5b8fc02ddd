import type { Scope } from '../scope'
import type { FactRow } from './table'

export interface ListOptions {
  /** Also facts a newer statement closed. Default: current facts only. */
  history?: boolean
}

/** Where facts live for good (the Koishi database). */
export interface FactStore {
  insert(row: FactRow): Promise<void>
  update(id: string, patch: Partial<FactRow>): Promise<void>
  get(ids: string[]): Promise<FactRow[]>
  /** A fact of this scope with exactly this content (a current one unless `history`), if any. */
  findByContent(scope: Scope, content: string, options?: ListOptions): Promise<FactRow | undefined>
  list(scope: Scope, limit: number, offset?: number, options?: ListOptions): Promise<FactRow[]>
  count(scope?: Scope, options?: ListOptions): Promise<number>
  /** Ids of every fact (an index rebuild). */
  allIds(): Promise<string[]>
  /** Up to `limit` fact ids after `after`, in order (the index compared a slice at a time). */
  idsAfter?(after: string, limit: number): Promise<string[]>
  /** Ids of facts created or changed since `since`. */
  changedSince?(since: Date): Promise<string[]>
  /** Every fact of a user on a platform, in every guild. */
  ofUser(platform: string, userId: string): Promise<FactRow[]>
  /** Every fact of a channel, closed ones too, that names the message `messageRowId` among its sources. */
  drawnFrom(platform: string, channelId: string, messageRowId: string): Promise<FactRow[]>
  remove(ids: string[]): Promise<void>
}
