import type { Scope } from '../scope'
import type { FactRow, OutboxRow } from './tables'

/** Where facts live for good (the Koishi database). */
export interface FactRepository {
  insert(row: FactRow): Promise<void>
  update(id: string, patch: Partial<FactRow>): Promise<void>
  get(ids: string[]): Promise<FactRow[]>
  /** A fact of this scope with exactly this content, if any. */
  findByContent(scope: Scope, content: string): Promise<FactRow | undefined>
  list(scope: Scope, limit: number, offset?: number): Promise<FactRow[]>
  count(scope?: Scope): Promise<number>
  remove(ids: string[]): Promise<void>
}

/** Index work waiting for the vector store or the embedder. */
export interface Outbox {
  add(table: string, rowId: string, op: OutboxRow['op']): Promise<void>
  take(table: string, limit: number): Promise<OutboxRow[]>
  done(ids: number[]): Promise<void>
  retry(ids: number[]): Promise<void>
  /** Drops waiting work for these rows (their text is being erased). */
  forget(table: string, rowIds: string[]): Promise<void>
  size(): Promise<number>
}
