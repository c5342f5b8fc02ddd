import type { SearchSummaries } from '../topic-summaries'
import { extractKeywords } from '../text/keywords'
import type { Scope } from '../scope'
import { channelOf } from '../scope'
import type { ChannelRef, MessageHit, MessageIndex, MessageRow, MessageStore } from '../messages'
import { keywordOverlap } from './scorer'
import type { ToolDefinition } from '../providers/types'

/**
 * Search over a channel's past for the context builder and for the model (design §1.1):
 * - `quickSearch` is the fast path `buildContext` uses by default: one hybrid (vector + full-text)
 *   query over the channel's indexed messages;
 * - `topicSearch` is the deep search a model can call as a tool: more message hits, each with the
 *   turns around it, plus the channel's topics whose titles match the query.
 */

/** The search the context builder takes its semantic neighbours from. */
export type QuickSearch = (channel: ChannelRef, query: string, options: { limit: number; vector?: Float32Array }) => Promise<MessageHit[]>

/** `quickSearch` over a message index. Throws when the index or the embedder is down (the builder copes). */
export function quickSearch(index: Pick<MessageIndex, 'search'>): QuickSearch {
  return (channel, query, options) => index.search(channel, query, options)
}

/** A topic as the deep search shows it. Topics are kept by the topic attribution (another module). */
export interface TopicInfo {
  id: string
  title: string
  updatedAt: Date
  /** Whether the topic is still open. */
  active?: boolean
}

/** Reads a channel's topics (implemented over the topic table by the topic attribution module). */
export interface TopicTitles {
  list(channel: ChannelRef, options: { limit: number }): Promise<TopicInfo[]>
}

export interface TopicSearchDeps {
  search: QuickSearch
  store: MessageStore
  topics?: TopicTitles
  /** Hybrid keyword + vector search over the channel's topic summaries (mid-term memory). */
  summaries?: SearchSummaries
}

export interface TopicSearchOptions {
  /** Most message hits. Default 8. */
  limit?: number
  /** Turns shown before and after each hit. Default 1. */
  around?: number
  /** Most topics. Default 5. */
  topicLimit?: number
}

export interface FoundMessage {
  id: string
  /** The platform's id of the message. */
  messageId: string
  userName: string
  content: string
  createdAt: Date
  /** True for the hit itself, false for a turn shown around it. */
  hit: boolean
  similarity?: number
}

export interface TopicSearchResult {
  topics: { id: string; title: string; updatedAt: Date; score: number }[]
  /** Summaries of the channel's topics that match, best first. */
  summaries: { topicId: string; title: string; summary: string; score: number }[]
  /** Groups of consecutive messages around each hit, oldest group first. */
  excerpts: FoundMessage[][]
}

/**
 * Deep search of one channel. `scope` must name the channel (platform and channel id): it is set by
 * the code that calls this for a session, never by the model. Throws only on a bad scope; a failing
 * index or database yields what could still be found.
 */
export async function topicSearch(
  deps: TopicSearchDeps,
  query: string,
  scope: Scope,
  options: TopicSearchOptions = {},
): Promise<TopicSearchResult> {
  const { platform, channelId } = scope
  if (!platform || !channelId) throw new TypeError('topicSearch needs a scope with a platform and a channel')
  const channel = channelOf({ platform, guildId: scope.guildId, channelId })
  const limit = options.limit ?? 8
  const around = options.around ?? 1
  const [topics, excerpts, summaries] = await Promise.all([
    matchTopics(deps.topics, channel, query, options.topicLimit ?? 5).catch(() => []),
    findExcerpts(deps, channel, query, limit, around).catch(() => []),
    deps.summaries
      ? deps
          .summaries(query, { platform: channel.platform, channelId: channel.channelId }, { limit: options.topicLimit ?? 5 })
          .then((hits) =>
            hits.map((hit) => ({ topicId: hit.row.topicId, title: hit.row.title, summary: hit.row.summary, score: hit.score })),
          )
          .catch(() => [])
      : [],
  ])
  return { topics, excerpts, summaries }
}

async function matchTopics(topics: TopicTitles | undefined, channel: ChannelRef, query: string, limit: number) {
  if (!topics) return []
  const wanted = extractKeywords(query)
  if (!wanted.length) return []
  const listed = await topics.list(channel, { limit: 200 })
  return listed
    .map((topic) => ({
      id: topic.id,
      title: topic.title,
      updatedAt: topic.updatedAt,
      score: keywordOverlap(wanted, extractKeywords(topic.title)),
    }))
    .filter((topic) => topic.score > 0)
    .sort((a, b) => b.score - a.score || b.updatedAt.getTime() - a.updatedAt.getTime())
    .slice(0, limit)
}

async function findExcerpts(
  deps: TopicSearchDeps,
  channel: ChannelRef,
  query: string,
  limit: number,
  around: number,
): Promise<FoundMessage[][]> {
  const hits = await deps.search(channel, query, { limit })
  if (!hits.length) return []
  const similarity = new Map(hits.map((hit) => [hit.id, hit.similarity]))
  const rows = (await deps.store.byIds(hits.map((hit) => hit.id))).filter(
    (row) => row.platform === channel.platform && row.channelId === channel.channelId,
  )
  const neighbours = await deps.store.around(
    channel,
    rows.map((row) => row.createdAt),
    around,
    rows,
  )
  const seen = new Set<string>()
  const groups: MessageRow[][] = []
  for (const [i, row] of rows.entries()) {
    if (seen.has(row.id)) continue
    const group = [...neighbours[i].before, row, ...neighbours[i].after].filter((item) => !seen.has(item.id))
    for (const item of group) seen.add(item.id)
    groups.push(group)
  }
  return groups.map((group) =>
    group.map((row) => ({
      id: row.id,
      messageId: row.messageId,
      userName: row.userName,
      content: row.content,
      createdAt: row.createdAt,
      hit: similarity.has(row.id),
      similarity: similarity.get(row.id),
    })),
  )
}

export interface TopicSearchToolResult {
  /** The excerpts as plain lines the model reads, `[time] name: content`. */
  text: string
  result: TopicSearchResult
}

/**
 * `topicSearch` as a tool a reply plugin or ChatLuna can register for the model. The scope is bound
 * here, from the session the tool is created for; the model only chooses the query.
 */
export function topicSearchTool(
  deps: TopicSearchDeps,
  scope: Scope,
  options: TopicSearchOptions = {},
): ToolDefinition<{ query: string; limit?: number }, TopicSearchToolResult> {
  return {
    name: 'search_chat_history',
    description:
      'Search earlier messages of this chat (and its discussion topics) for what was said about something. ' +
      'Use it when the conversation refers to something said before that is not in the context. ' +
      '搜索本群/本聊天较早的消息和话题，找回之前聊过的内容。',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for, in the words the chat would use / 要找的内容' },
        limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Most messages to return (default 8)' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async handler(args) {
      const query = typeof args?.query === 'string' ? args.query : ''
      const limit = Math.min(20, Math.max(1, Math.floor(Number(args?.limit) || options.limit || 8)))
      const result = query.trim()
        ? await topicSearch(deps, query, scope, { ...options, limit })
        : { topics: [], excerpts: [], summaries: [] }
      return { text: renderResult(result), result }
    },
  }
}

function renderResult(result: TopicSearchResult): string {
  const lines: string[] = []
  if (result.topics.length) lines.push(`Topics: ${result.topics.map((topic) => topic.title).join(' | ')}`)
  for (const summary of result.summaries) lines.push(`Topic summary (${summary.title}): ${summary.summary}`)
  for (const group of result.excerpts) {
    lines.push('---')
    for (const message of group)
      lines.push(`[${message.createdAt.toISOString().slice(0, 16).replace('T', ' ')}] ${message.userName}: ${message.content}`)
  }
  return lines.length ? lines.join('\n') : 'No earlier messages match.'
}
