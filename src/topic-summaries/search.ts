import type { Counters, Logger } from '../core/observability'
import { contentWords } from '../text/topic-words'
import type { Scope } from '../scope'
import { folded } from './keywords'
import type { SummaryIndex } from './summary-index'
import type { SummaryChannel, TopicSummaryRow } from './types'
import type { TopicSummaryStore } from './store'

/**
 * Search over topic summaries (design §3.5), always inside one channel:
 *
 * - **keyword** (design §3.5): the query's content words (CJK-aware) against each newest summary's
 *   weighted keywords and text. A query word scores the weight of a keyword it equals or contains
 *   (or that contains it), else 0.5 when the summary or title text contains it, else 0; the
 *   summary's keyword score is the mean over the query words, in [0, 1].
 * - **vector** (design §3.5): nearest neighbours in the LanceDB table `topic_summaries`; the score is the
 *   cosine similarity, floored at 0.
 * - **hybrid** (design §3.5): both legs, fused by weight: `score = wk · keyword + wv · vector`, default
 *   wk = 0.4, wv = 0.6 (design §3.5), a summary missing from one leg scoring 0 there. The first sketch
 *   of the keyword leg scored by rank (1 / rank, design §3.5); here it is the score above, so a weak keyword match does
 *   not outrank a strong vector match merely by being first.
 *
 * When the vector store or the embedder is down, hybrid search answers from the keyword leg alone
 * (counted as `summary.search_degraded`); it never throws for that.
 */

export type SummarySearchMode = 'keyword' | 'vector' | 'hybrid'

export interface SummarySearchOptions {
  /** Most hits. Default 5. */
  limit?: number
  /** Default `hybrid`. */
  mode?: SummarySearchMode
  /** Fusion weights. Default `{ keyword: 0.4, vector: 0.6 }`. */
  weights?: { keyword: number; vector: number }
  /** Hits scoring below this are dropped. Default 0 (anything with a positive score). */
  minScore?: number
}

export const DEFAULT_SEARCH_WEIGHTS = { keyword: 0.4, vector: 0.6 }

export interface SummaryHit {
  row: TopicSummaryRow
  /** The fused score the hits are ordered by. */
  score: number
  keywordScore: number
  vectorScore: number
  /** Query words found in the summary's keywords or text. */
  matched: string[]
}

export interface SummarySearchDeps {
  store: TopicSummaryStore
  index?: SummaryIndex
  counters: Counters
  logger: Logger
  /** Newest summaries of a channel the keyword leg scores. Default 500. */
  keywordCandidates?: number
}

export type SearchSummaries = (query: string, scope: Scope, options?: SummarySearchOptions) => Promise<SummaryHit[]>

/** The channel a scope names. Throws unless it names a platform and a channel. */
export function channelOf(scope: Scope): SummaryChannel {
  if (!scope.platform || !scope.channelId) throw new TypeError('summary search needs a scope with a platform and a channel')
  return { platform: scope.platform, channelId: scope.channelId }
}

const inChannel = (row: TopicSummaryRow, channel: SummaryChannel) =>
  row.platform === channel.platform && row.channelId === channel.channelId

/** Query words: content words, or the trimmed query itself when it has none (a short name, a code). */
export function queryTerms(query: string): string[] {
  const words = [...new Set(contentWords(query).map(folded))]
  if (words.length) return words
  const q = folded(query).trim()
  return q && [...q].length <= 20 ? [q] : []
}

/** The keyword score of one summary for the query terms, and the terms it matched. */
export function keywordScore(
  row: Pick<TopicSummaryRow, 'keywords' | 'summary' | 'title'>,
  terms: string[],
): { score: number; matched: string[] } {
  if (!terms.length) return { score: 0, matched: [] }
  const keywords = Object.entries(row.keywords).map(([word, weight]) => [folded(word), weight] as const)
  const text = folded(`${row.title}\n${row.summary}`)
  let sum = 0
  const matched: string[] = []
  for (const term of terms) {
    let best = 0
    for (const [word, weight] of keywords) {
      if (word === term || (word.length >= 2 && term.includes(word)) || (term.length >= 2 && word.includes(term)))
        best = Math.max(best, weight)
    }
    if (text.includes(term)) best = Math.max(best, 0.5)
    if (best > 0) matched.push(term)
    sum += best
  }
  return { score: Math.round((sum / terms.length) * 1000) / 1000, matched }
}

/** Fuses the two legs by weight and orders the hits (ties: the more recent topic first). */
export function fuse(
  keyword: Map<string, { row: TopicSummaryRow; score: number; matched: string[] }>,
  vector: Map<string, { row: TopicSummaryRow; score: number }>,
  weights: { keyword: number; vector: number },
): SummaryHit[] {
  const ids = new Set([...keyword.keys(), ...vector.keys()])
  const hits: SummaryHit[] = []
  for (const id of ids) {
    const k = keyword.get(id)
    const v = vector.get(id)
    const row = (k?.row ?? v?.row)!
    const keywordScore = k?.score ?? 0
    const vectorScore = v?.score ?? 0
    hits.push({
      row,
      keywordScore,
      vectorScore,
      matched: k?.matched ?? [],
      score: weights.keyword * keywordScore + weights.vector * vectorScore,
    })
  }
  return hits.sort((a, b) => b.score - a.score || b.row.lastMessageAt.getTime() - a.row.lastMessageAt.getTime())
}

/**
 * Searches one channel's topic summaries (the newest version of each). `scope` must name the
 * channel; it comes from the session, never from a model or a caller's metadata. Another channel's
 * summaries are never returned, whatever an index answers.
 */
export async function searchSummaries(
  deps: SummarySearchDeps,
  query: string,
  scope: Scope,
  options: SummarySearchOptions = {},
): Promise<SummaryHit[]> {
  const channel = channelOf(scope)
  const limit = options.limit ?? 5
  const mode = options.mode ?? 'hybrid'
  const weights = options.weights ?? DEFAULT_SEARCH_WEIGHTS
  if (weights.keyword < 0 || weights.vector < 0) throw new RangeError('search weights must not be negative')
  if (limit <= 0 || !query.trim()) return []

  const latest = new Map<string, TopicSummaryRow>()
  const keyword = new Map<string, { row: TopicSummaryRow; score: number; matched: string[] }>()
  const candidates = (await deps.store.latestInChannel(channel, deps.keywordCandidates ?? 500)).filter((row) => inChannel(row, channel))
  for (const row of candidates) latest.set(row.topicId, row)
  if (mode !== 'vector') {
    const terms = queryTerms(query)
    for (const row of candidates) {
      const { score, matched } = keywordScore(row, terms)
      if (score > 0) keyword.set(row.id, { row, score, matched })
    }
  }

  const vector = new Map<string, { row: TopicSummaryRow; score: number }>()
  if (mode !== 'keyword') {
    try {
      if (!deps.index) throw new Error('no vector index')
      const hits = await deps.index.nearest(channel, query, Math.max(limit * 2, 10))
      const wanted = hits.filter((hit) => hit.platform === channel.platform && hit.channel_id === channel.channelId)
      const rows = new Map((await deps.store.get(wanted.map((hit) => hit.id))).map((row) => [row.id, row]))
      for (const hit of wanted) {
        const row = rows.get(hit.id)
        if (!row || !inChannel(row, channel)) continue
        const newest = latest.get(row.topicId) ?? (await deps.store.latest(row.topicId))
        if (newest && newest.version !== row.version) continue
        vector.set(row.id, { row, score: Math.max(0, Math.round(hit.similarity * 1000) / 1000) })
      }
    } catch (error) {
      deps.counters.inc('summary.search_degraded')
      deps.logger.debug('summary search: vector leg unavailable (%s)', (error as Error).message)
    }
  }

  const effective = mode === 'keyword' ? { keyword: 1, vector: 0 } : mode === 'vector' ? { keyword: 0, vector: 1 } : weights
  const minScore = options.minScore ?? 0
  return fuse(keyword, vector, effective)
    .filter((hit) => hit.score > 0 && hit.score >= minScore)
    .slice(0, limit)
}
