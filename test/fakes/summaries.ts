import type { SummaryChannel, TopicSummaryRow } from '../../src/topic-summaries/types'
import type { TopicSummaryStore } from '../../src/topic-summaries/store'
import { at } from './clock'

/** An in-memory `TopicSummaryStore`; `insert` refuses an existing id like the database does. */
export class MemorySummaries implements TopicSummaryStore {
  rows = new Map<string, TopicSummaryRow>()
  async insert(row: TopicSummaryRow) {
    if (this.rows.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    this.rows.set(row.id, structuredClone(row))
  }
  async get(ids: string[]) {
    return ids.flatMap((id) => this.rows.get(id) ?? [])
  }
  async latest(topicId: string) {
    return this.ofTopic(topicId).at(-1)
  }
  async versions(topicId: string) {
    return this.ofTopic(topicId)
  }
  async latestInChannel(channel: SummaryChannel, limit: number) {
    const newest = new Map<string, TopicSummaryRow>()
    for (const row of this.rows.values()) {
      if (row.platform !== channel.platform || row.channelId !== channel.channelId) continue
      const seen = newest.get(row.topicId)
      if (!seen || row.version > seen.version) newest.set(row.topicId, row)
    }
    return [...newest.values()].sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime()).slice(0, limit)
  }
  async busiest(minTopicMessages: number, limit: number) {
    const topics = new Set([...this.rows.values()].map((r) => r.topicId))
    return [...topics]
      .map((t) => this.ofTopic(t).at(-1)!)
      .filter((r) => r.guildId && r.topicMessageCount >= minTopicMessages)
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime())
      .slice(0, limit)
  }
  async latestIds() {
    const topics = new Set([...this.rows.values()].map((r) => r.topicId))
    return [...topics].map((t) => this.ofTopic(t).at(-1)!.id)
  }
  async removeTopics(topicIds: string[]) {
    const gone = [...this.rows.values()].filter((r) => topicIds.includes(r.topicId)).map((r) => r.id)
    for (const id of gone) this.rows.delete(id)
    return gone
  }
  private ofTopic(topicId: string) {
    return [...this.rows.values()].filter((r) => r.topicId === topicId).sort((a, b) => a.version - b.version)
  }
}

/** A summary row of a topic of channel qq/g1 with defaults; `id` is `topicId#version`. */
export function summaryRow(fields: Partial<TopicSummaryRow> & { topicId: string }): TopicSummaryRow {
  const version = fields.version ?? 1
  return {
    id: `${fields.topicId}#${version}`,
    platform: 'qq',
    guildId: 'g1',
    channelId: 'g1',
    version,
    title: fields.topicId,
    summary: '',
    participants: [],
    firstMessageAt: at(0),
    lastMessageAt: at(60),
    messageCount: 3,
    topicMessageCount: 3,
    keywords: {},
    quality: { coverage: 1, coherence: 1, relevance: 1, overall: 1 },
    fallback: false,
    segments: 1,
    language: 'zh',
    trigger: 'manual',
    model: 'scripted',
    embedder: 'rules-v1',
    createdAt: at(100),
    ...fields,
  }
}
