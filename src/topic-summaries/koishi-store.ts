import { Context } from 'koishi'
import { TopicSummaries, TopicSummariesDeps } from './summaries'
import type { SummaryChannel, TopicSummaryRow, TopicSummaryStore } from './types'
import { dbWhere } from '../scope'
import { KoishiOutbox } from '../store/outbox'
import { defineTopicSummaryTable } from './table'
import type { TopicRow } from '../topics/table'
import type { VectorIndex } from '../store/vector-index'

/** Largest `$in` list sent in one query. */
const CHUNK = 500

/**
 * `TopicSummaryStore` on the Koishi table `memory_summary` (declare it with `defineTopicSummaryTable`), plus
 * `activeTopics` over `memory_topic` for the scheduled summary pass.
 */
export class KoishiTopicSummaryStore implements TopicSummaryStore {
  constructor(private ctx: Context) {}

  async insert(row: TopicSummaryRow) {
    // `create` fails on an existing id: two writers of the same version cannot both succeed
    await this.ctx.database.create('memory_summary', row)
  }

  async get(ids: string[]) {
    const unique = [...new Set(ids)]
    const rows: TopicSummaryRow[] = []
    for (let i = 0; i < unique.length; i += CHUNK) {
      rows.push(...await this.ctx.database.get('memory_summary', { id: { $in: unique.slice(i, i + CHUNK) } }))
    }
    return rows
  }

  async latest(topicId: string) {
    if (!topicId) return undefined
    const [row] = await this.ctx.database.get('memory_summary', { topicId }, { limit: 1, sort: { version: 'desc' } })
    return row
  }

  async versions(topicId: string) {
    if (!topicId) return []
    return this.ctx.database.get('memory_summary', { topicId }, { sort: { version: 'asc' } })
  }

  async latestInChannel(channel: SummaryChannel, limit: number) {
    if (limit <= 0) return []
    const where = dbWhere({ platform: channel.platform, channelId: channel.channelId })
    // every version of the channel's summaries, newest first; old versions are few (one per regeneration)
    const rows = await this.ctx.database.get('memory_summary', where, { sort: { lastMessageAt: 'desc', version: 'desc' }, limit: limit * 4 })
    return newestPerTopic(rows).slice(0, limit)
  }

  async latestIds() {
    const rows = await this.ctx.database.get('memory_summary', {}, ['id', 'topicId', 'version'])
    return newestPerTopic(rows as TopicSummaryRow[]).map((row) => row.id)
  }

  /** Active, unarchived topics of every channel, most recently active first. */
  async activeTopics(limit: number): Promise<TopicRow[]> {
    if (limit <= 0) return []
    return this.ctx.database.get('memory_topic', { active: true, archived: false }, { limit, sort: { lastMessageAt: 'desc' } })
  }
}

function newestPerTopic<T extends Pick<TopicSummaryRow, 'topicId' | 'version'>>(rows: T[]): T[] {
  const best = new Map<string, T>()
  for (const row of rows) {
    const seen = best.get(row.topicId)
    if (!seen || row.version > seen.version) best.set(row.topicId, row)
  }
  return [...best.values()]
}

export interface CreateTopicSummariesOptions extends Omit<TopicSummariesDeps, 'store' | 'vector' | 'activeTopics'> {
  /** The LanceDB index; left out, search has only its keyword leg. */
  index?: VectorIndex
  /** LanceDB table name. Default `topic_summaries`. */
  table?: string
}

/**
 * Declares `memory_summary` and builds `TopicSummaries` on the Koishi database (call after
 * `defineTopicTable` and `defineTables`): summaries in `memory_summary`, index work in
 * `memory_outbox`, the scheduled pass over `memory_topic`.
 */
export function createTopicSummaries(ctx: Context, options: CreateTopicSummariesOptions): TopicSummaries {
  defineTopicSummaryTable(ctx)
  const { index, table, ...rest } = options
  const store = new KoishiTopicSummaryStore(ctx)
  return new TopicSummaries({
    ...rest,
    store,
    activeTopics: (limit) => store.activeTopics(limit),
    vector: index ? { index, outbox: new KoishiOutbox(ctx), table } : undefined,
  })
}
