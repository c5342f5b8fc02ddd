import type { Scope } from '../scope'
import type { Episode } from './table'

/** Episodes in the database. */
export interface EpisodeStore {
  get(ids: string[]): Promise<Episode[]>
  upsert(episode: Episode): Promise<void>
  /** The newest `limit` episodes of a scope (newest first). */
  recent(scope: Scope, limit: number): Promise<Episode[]>
  /** Ids of every episode (an index rebuild). */
  allIds(): Promise<string[]>
  /** Returns how many there were. */
  remove(ids: string[]): Promise<number>
}
