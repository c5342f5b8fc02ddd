import { IndexSync, IndexSyncDeps } from '../store/index-sync'
import type { IndexHit } from '../store/vector-index'
import type { GroupMemoryRow, GroupRef } from './types'

/** The LanceDB table of group memories. */
export const GROUP_TABLE = 'group_memories'

export interface GroupIndexDeps extends IndexSyncDeps {
  /** Ids of every active head in every group, to queue when the embedder changed. */
  activeIds(): Promise<string[]>
}

/** Only active heads are searchable; replaced and deleted versions stay in the database only. */
export const searchable = (row: GroupMemoryRow) => row.status === 'active' && !row.supersededBy

/** Keeps the LanceDB table `group_memories` in step with the database: it holds the active heads. */
export class GroupIndex extends IndexSync<GroupMemoryRow> {
  constructor(deps: GroupIndexDeps) {
    super(deps, {
      table: GROUP_TABLE,
      name: 'group memory',
      plural: 'group memories',
      text: (row) => row.statement,
      allIds: () => deps.activeIds(),
      indexed: searchable,
    })
  }

  /**
   * Indexes `rows` (active heads are added, anything else removed) and removes `deleteIds`. Never
   * throws: whatever fails waits in the outbox.
   */
  async sync(rows: GroupMemoryRow[], deleteIds: string[]): Promise<void> {
    const add = rows.filter(searchable)
    const remove = [...new Set([...deleteIds, ...rows.filter((row) => !searchable(row)).map((row) => row.id)])]
    if (!add.length && !remove.length) return
    try {
      await this.write(add, remove)
    } catch (error) {
      const waiting = add.length + remove.length
      this.deps.counters.inc('outbox.queued', waiting)
      this.deps.logger.debug('%d group memory index changes wait in the outbox: %s', waiting, (error as Error).message)
      await this.queue(add.map((row) => row.id), remove)
    }
  }

  /** Hybrid search within one group. Throws when the store or the embedder is unavailable. */
  async search(group: GroupRef, query: string, limit: number): Promise<IndexHit[]> {
    const vector = await this.queryVector(query)
    return this.deps.index.search(this.table, { vector, text: query, scope: { platform: group.platform, guildId: group.guildId }, limit })
  }
}
