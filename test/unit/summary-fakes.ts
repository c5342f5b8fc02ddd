import type { SummaryChannel, TopicSummaryRow, TopicSummaryStore } from '../../src/topic-summaries/types'
import type { Embedder, GenerateOptions, LLM } from '../../src/providers/types'
import type { TopicRow } from '../../src/topics/table'
import { MemoryTopics } from './topic-fakes'

/** An in-memory `TopicSummaryStore`; `insert` refuses an existing id like the database does. */
export class MemorySummaries implements TopicSummaryStore {
  rows = new Map<string, TopicSummaryRow>()
  async insert(row: TopicSummaryRow) {
    if (this.rows.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    this.rows.set(row.id, structuredClone(row))
  }
  async get(ids: string[]) { return ids.flatMap((id) => this.rows.get(id) ?? []) }
  async latest(topicId: string) { return this.ofTopic(topicId).at(-1) }
  async versions(topicId: string) { return this.ofTopic(topicId) }
  async latestInChannel(channel: SummaryChannel, limit: number) {
    const newest = new Map<string, TopicSummaryRow>()
    for (const row of this.rows.values()) {
      if (row.platform !== channel.platform || row.channelId !== channel.channelId) continue
      const seen = newest.get(row.topicId)
      if (!seen || row.version > seen.version) newest.set(row.topicId, row)
    }
    return [...newest.values()].sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime()).slice(0, limit)
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

/** MemoryTopics with the cross-channel active list the scheduled pass reads. */
export class SummaryTopics extends MemoryTopics {
  async activeTopics(limit: number) {
    return [...this.rows.values()].filter((r) => r.active && !r.archived)
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime()).slice(0, limit).map((r) => ({ ...r }))
  }
}

export interface TextCall { prompt: string; options?: GenerateOptions }
export type TextAnswer = string | Error | ((call: TextCall) => string)

/** An LLM that answers from a script (plain prompts, unlike the group module's JSON-input one). */
export class TextLLM implements LLM {
  readonly id = 'scripted'
  calls: TextCall[] = []
  constructor(private answers: TextAnswer[] | ((call: TextCall) => string)) {}
  async generate(prompt: string, options?: GenerateOptions) {
    const call = { prompt, options }
    this.calls.push(call)
    if (typeof this.answers === 'function') return this.answers(call)
    const answer = this.answers.shift()
    if (answer === undefined) throw new Error('the script has no more answers')
    if (answer instanceof Error) throw answer
    return typeof answer === 'function' ? answer(call) : answer
  }
}

/** An embedder whose vectors come from the first rule whose substring the text contains. */
export class RuleEmbedder implements Embedder {
  readonly id = 'rules-v1'
  readonly dims = 3
  constructor(private rules: [string, number[]][], private fallback = [0, 0, 1]) {}
  async embed(texts: string[]) {
    return texts.map((text) => {
      const v = this.rules.find(([needle]) => text.includes(needle))?.[1] ?? this.fallback
      const n = Math.hypot(...v) || 1
      return Float32Array.from(v.map((x) => x / n))
    })
  }
}

const T0 = Date.UTC(2025, 0, 1, 12)
export const at = (seconds: number) => new Date(T0 + seconds * 1000)

export function topicRow(id: string, fields: Partial<TopicRow> = {}): TopicRow {
  return {
    id, platform: 'qq', guildId: 'g1', channelId: 'g1', title: id, keywords: {}, centroid: [], centroidNorm: 0, vectorCount: 0,
    embedder: 'e', messageCount: 0, creatorId: 'u1', createdAt: at(0), updatedAt: at(0), lastMessageAt: at(0),
    active: true, archived: false, ...fields,
  }
}

export function summaryRow(fields: Partial<TopicSummaryRow> & { topicId: string }): TopicSummaryRow {
  const version = fields.version ?? 1
  return {
    id: `${fields.topicId}#${version}`, platform: 'qq', guildId: 'g1', channelId: 'g1', version, title: fields.topicId, summary: '',
    participants: [], firstMessageAt: at(0), lastMessageAt: at(60), messageCount: 3, topicMessageCount: 3, keywords: {},
    quality: { coverage: 1, coherence: 1, relevance: 1, overall: 1 }, fallback: false, segments: 1, language: 'zh',
    trigger: 'manual', model: 'scripted', embedder: 'rules-v1', createdAt: at(100), ...fields,
  }
}
