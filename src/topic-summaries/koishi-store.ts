import type { Context } from 'koishi'
import type { TopicSummariesDeps } from './summaries'
import { TopicSummaries } from './summaries'
import type { SummaryChannel, TopicSummaryRow } from './types'
import type { TopicSummaryStore } from './store'
import type { GuildRef } from '../scope'
import { cleanId, dbWhere } from '../scope'
import type { Outbox } from '../store/outbox'
import { KoishiOutbox } from '../store/outbox'
import type { TopicRow, TopicStore } from '../topics'
import type { VectorIndex } from '../store/vector-index'
import { chunks } from '../core/chunks'

/**
 * `TopicSummaryStore` on the Koishi table `memory_summary` (declare it with `defineTopicSummaryTable`).
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
    for (const part of chunks(unique)) rows.push(...(await this.ctx.database.get('memory_summary', { id: { $in: part } })))
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
    const rows = await this.ctx.database.get('memory_summary', where, {
      sort: { lastMessageAt: 'desc', version: 'desc' },
      limit: limit * 4,
    })
    return newestPerTopic(rows).slice(0, limit)
  }

  async busiest(minTopicMessages: number, limit: number) {
    if (limit <= 0) return []
    const rows = await this.ctx.database.get(
      'memory_summary',
      { topicMessageCount: { $gte: minTopicMessages }, guildId: { $ne: '' } },
      { sort: { lastMessageAt: 'desc', version: 'desc' }, limit: limit * 4 },
    )
    // a version read here may have a newer one: the newest stands for its topic
    const newest = await Promise.all(newestPerTopic(rows).map(async (row) => (await this.latest(row.topicId)) ?? row))
    return newest.slice(0, limit)
  }

  async latestIds() {
    const rows = await this.ctx.database.get('memory_summary', {}, ['id', 'topicId', 'version'])
    return newestPerTopic(rows as TopicSummaryRow[]).map((row) => row.id)
  }

  /** Every version of every summary of a guild's topics, or of every topic (an export). */
  inGuild(guild?: GuildRef): Promise<TopicSummaryRow[]> {
    return this.ctx.database.get('memory_summary', guild ? { platform: cleanId(guild.platform), guildId: cleanId(guild.guildId) } : {})
  }

  async removeTopics(topicIds: string[]) {
    const ids: string[] = []
    for (const part of chunks([...new Set(topicIds)])) {
      ids.push(...(await this.ctx.database.get('memory_summary', { topicId: { $in: part } }, ['id'])).map((row) => row.id))
      await this.ctx.database.remove('memory_summary', { topicId: { $in: part } })
    }
    return ids
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

export interface CreateTopicSummariesOptions extends Omit<TopicSummariesDeps, 'store' | 'vector' | 'activeTopics' | 'topics'> {
  /** The topic store; its active topics feed the scheduled pass. */
  topics: Pick<TopicStore, 'get'> & { activeAnywhere(limit: number): Promise<TopicRow[]> }
  /** The LanceDB index; left out, search has only its keyword leg. */
  index?: VectorIndex
  /** LanceDB table name. Default `topic_summaries`. */
  table?: string
  /** Where index work waits; default: the outbox of an instance with no name. */
  outbox?: Outbox
}

/**
 * Builds `TopicSummaries` on the Koishi database (declare `memory_summary` first, with
 * `defineTopicSummaryTable`; declared twice, its unique key is created twice on MySQL): summaries in
 * `memory_summary`, index work in `memory_outbox`, the scheduled pass over the topic store's active topics.
 */
export function createTopicSummaries(ctx: Context, options: CreateTopicSummariesOptions): TopicSummaries {
  const { index, table, outbox, ...rest } = options
  const store = new KoishiTopicSummaryStore(ctx)
  return new TopicSummaries({
    ...rest,
    store,
    activeTopics: (limit) => options.topics.activeAnywhere(limit),
    vector: index ? { index, outbox: outbox ?? new KoishiOutbox(ctx), table } : undefined,
  })
}
