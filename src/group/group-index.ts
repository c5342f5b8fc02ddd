import type { IndexKind, IndexSyncDeps } from '../store/index-sync'
import { IndexedTable } from '../store/index-sync'
import type { IndexHit } from '../store/vector-index'
import type { GroupMemoryRow, GroupRef } from './types'
import type { GroupMemoryStore } from './store'

/** The LanceDB table of group memories. */
export const GROUP_TABLE = 'group_memories'

/** Only active heads are searchable; replaced and deleted versions stay in the database only. */
export const searchable = (row: GroupMemoryRow) => row.status === 'active' && !row.supersededBy

export function groupIndexKind(store: Pick<GroupMemoryStore, 'getMemories' | 'activeIds'>): IndexKind<GroupMemoryRow> {
  return {
    table: GROUP_TABLE,
    name: 'group memories',
    fields: (row) => ({
      id: row.id,
      text: row.statement,
      platform: row.platform,
      user_id: '',
      guild_id: row.guildId,
      channel_id: '',
      created_at: row.createdAt.getTime(),
    }),
    load: (ids) => store.getMemories(ids),
    allIds: () => store.activeIds(),
    indexed: searchable,
  }
}

/** Keeps the LanceDB table `group_memories` in step with the database: it holds the active heads. */
export class GroupIndex {
  readonly table: IndexedTable<GroupMemoryRow>

  constructor(deps: IndexSyncDeps, store: Pick<GroupMemoryStore, 'getMemories' | 'activeIds'>, table?: string) {
    this.table = new IndexedTable(deps, groupIndexKind(store), table)
  }

  /**
   * Indexes `rows` (active heads are added, anything else removed) and removes `deleteIds`. Never
   * throws: whatever fails waits in the outbox.
   */
  async sync(rows: GroupMemoryRow[], deleteIds: string[]): Promise<void> {
    const add = rows.filter(searchable)
    const remove = [...new Set([...deleteIds, ...rows.filter((row) => !searchable(row)).map((row) => row.id)])]
    await this.table.put(add, remove)
  }

  /** Hybrid search within one group. Throws when the store or the embedder is unavailable. */
  search(group: GroupRef, query: string, limit: number): Promise<IndexHit[]> {
    return this.table.search(query, { platform: group.platform, guildId: group.guildId }, limit)
  }
}
