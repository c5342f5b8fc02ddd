import { IndexSync, IndexSyncDeps } from '../store/index-sync'
import type { IndexHit } from '../store/vector-index'
import type { SummaryChannel, TopicSummaryRow } from './types'

/** The LanceDB table of topic summaries. */
export const SUMMARY_TABLE = 'topic_summaries'

/** The text a summary is embedded and full-text indexed by: its title and its summary. */
export function indexText(row: Pick<TopicSummaryRow, 'title' | 'summary'>): string {
  return row.title ? `${row.title}\n${row.summary}` : row.summary
}

export interface SummaryIndexDeps extends IndexSyncDeps {
  /** Ids of the newest version of every summarised topic, to queue when the embedder changed. */
  latestIds(): Promise<string[]>
}

/**
 * Keeps the LanceDB table `topic_summaries` in step with the database: only the newest version of
 * each topic's summary is indexed (`drain`'s `load` returns the rows still wanted there).
 */
export class SummaryIndex extends IndexSync<TopicSummaryRow> {
  constructor(deps: SummaryIndexDeps) {
    super(deps, {
      table: SUMMARY_TABLE,
      name: 'topic summary',
      plural: 'topic summaries',
      text: indexText,
      allIds: () => deps.latestIds(),
    })
  }

  /** Indexes `row` (with its vector when already made) and drops `replacedIds`. Never throws. */
  async put(row: TopicSummaryRow, replacedIds: string[], vector?: Float32Array): Promise<boolean> {
    try {
      await this.write([row], replacedIds, vector && [vector])
      return true
    } catch (error) {
      this.deps.counters.inc('outbox.queued')
      this.deps.logger.debug('topic summary %s waits in the outbox: %s', row.id, (error as Error).message)
      await this.queue([row.id], replacedIds)
      return false
    }
  }

  /** Vector nearest neighbours within one channel. Throws when the store or the embedder is down. */
  async nearest(channel: SummaryChannel, query: string, limit: number): Promise<IndexHit[]> {
    const vector = await this.queryVector(query)
    return this.deps.index.nearest(this.table, vector, { platform: channel.platform, channelId: channel.channelId }, limit)
  }
}
