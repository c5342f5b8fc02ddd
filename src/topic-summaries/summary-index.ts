import type { IndexKind, IndexSyncDeps } from '../store/index-sync'
import { IndexedTable } from '../store/index-sync'
import type { IndexHit } from '../store/vector-index'
import type { SummaryChannel, TopicSummaryRow } from './types'
import type { TopicSummaryStore } from './store'

/** The LanceDB table of topic summaries. */
export const SUMMARY_TABLE = 'topic_summaries'

/** The text a summary is embedded and full-text indexed by: its title and its summary. */
export function indexText(row: Pick<TopicSummaryRow, 'title' | 'summary'>): string {
  return row.title ? `${row.title}\n${row.summary}` : row.summary
}

/** Only the newest version of each topic's summary is indexed. */
export function summaryIndexKind(store: Pick<TopicSummaryStore, 'get' | 'latest' | 'latestIds'>): IndexKind<TopicSummaryRow> {
  return {
    table: SUMMARY_TABLE,
    name: 'topic summaries',
    fields: (row) => ({
      id: row.id,
      text: indexText(row),
      platform: row.platform,
      user_id: '',
      guild_id: row.guildId,
      channel_id: row.channelId,
      created_at: row.createdAt.getTime(),
    }),
    load: async (ids) => {
      const out: TopicSummaryRow[] = []
      for (const row of await store.get(ids)) {
        if ((await store.latest(row.topicId))?.id === row.id) out.push(row)
      }
      return out
    },
    allIds: () => store.latestIds(),
  }
}

/** Keeps the LanceDB table `topic_summaries` in step with the database. */
export class SummaryIndex {
  readonly table: IndexedTable<TopicSummaryRow>

  constructor(deps: IndexSyncDeps, store: Pick<TopicSummaryStore, 'get' | 'latest' | 'latestIds'>, table?: string) {
    this.table = new IndexedTable(deps, summaryIndexKind(store), table)
  }

  /** Indexes `row` (with its vector when already made) and drops `replacedIds`. Never throws. */
  put(row: TopicSummaryRow, replacedIds: string[], vector?: Float32Array): Promise<boolean> {
    return this.table.put([row], replacedIds, vector && [vector])
  }

  /** Vector nearest neighbours within one channel. Throws when the store or the embedder is down. */
  nearest(channel: SummaryChannel, query: string, limit: number): Promise<IndexHit[]> {
    return this.table.nearest(query, { platform: channel.platform, channelId: channel.channelId }, limit)
  }
}
