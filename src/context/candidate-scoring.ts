import type { ChannelRef } from '../messages'
import type { TermStatsView } from '../text/bm25'
import { contentTerms, matchTerms } from '../text/keywords'
import { nameTerms } from '../text/names'
import { hashedStats, HashedQuery } from '../text/term-hashes'
import { normalizeText } from '../text/tokens'
import { analyzeMessage } from './analyzer'
import type { ContextBuilderConfig } from './builder-config'
import type { Candidate } from './candidates'
import { featuresOf } from './candidates'
import type { CandidateRelation, RelevanceScorer, ScoredSignals, ScoringFeatures } from './scorer'
import type { TermStats } from './term-stats'
import type { TextFeatureCache } from './text-features'
import type { ContextTarget } from './types'

export interface Scored {
  candidate: Candidate
  score: number
  content: number
  signals: ScoredSignals
}

/** Least spread between the floor and the best embedding similarity that calibrates to 0…1. */
const MIN_SPREAD = 0.2
/** Share of the target's keyword weight the best lexical match must cover to count as a full match. */
const FULL_COVERAGE = 0.3

/** The pool scored against the target by `scorer`, best first (the newer first among equals). */
export function scoreCandidates(
  target: ContextTarget,
  topicId: string,
  pool: Candidate[],
  stats: TermStatsView,
  texts: TextFeatureCache,
  scorer: RelevanceScorer,
  settings: Pick<ContextBuilderConfig, 'similarityFloor' | 'lexicalShare' | 'recencyFloor' | 'adjacentDecay'>,
): Scored[] {
  const participants = new Set(pool.map((candidate) => candidate.row.userName))
  const targetFeatures = analyzeMessage(target)
  const people = namesIn(target.content, [...participants])
  const mentions = new Set([...targetFeatures.mentions, ...people])
  // a name that stands for a participant is a mention, not a keyword: "what did Caroline say"
  // should not favour every message that greets Caroline
  const participantTerms = new Set(people.flatMap((name) => matchTerms(name)))
  const query = queryTerms(target.content, participantTerms)
  const ideal = query.reduce((sum, term) => sum + stats.idf(term), 0)
  const targetScoring: ScoringFeatures = { ...targetFeatures, mentions: [...mentions], time: target.time }

  const lexical = new Map<string, number>()
  let bestLexical = 0
  const match = lexicalMatch(query, nameTerms(target.content), stats)
  for (const candidate of pool) {
    const value = match(featuresOf(candidate, texts).terms)
    lexical.set(candidate.row.id, value)
    bestLexical = Math.max(bestLexical, value)
  }
  // Both parts of the semantic signal are calibrated on the pool, so that they mean the same with
  // any embedder: raw cosines of different embedders live on different scales (lexical vectors
  // rarely pass 0.5, dense ones rarely fall under it), and even unrelated texts share some. The
  // `similarityFloor` quantile counts as unrelated (0) and the best as 1, unless the best is
  // barely above the floor (`MIN_SPREAD`): then no candidate stands out and none gets much.
  // Likewise the best lexical match counts as 1 only when it covers `FULL_COVERAGE` of the target's
  // keyword weight (Chinese is segmented differently from one sentence to the next, so even a good
  // match shares only part of the words, characters and bigrams).
  const similarities = pool.flatMap((candidate) => (candidate.similarity === undefined ? [] : [candidate.similarity])).sort((a, b) => a - b)
  const bestSimilarity = similarities.length ? similarities[similarities.length - 1] : 0
  const quantile = Math.min(1, Math.max(0, settings.similarityFloor))
  const floor = similarities.length > 1 ? Math.max(0, similarities[Math.floor((similarities.length - 1) * quantile)]) : 0
  const spread = Math.max(bestSimilarity - floor, MIN_SPREAD)
  const calibrate = (similarity: number | undefined) => (similarity === undefined ? 0 : Math.max(0, (similarity - floor) / spread))
  const lexicalScale = Math.max(bestLexical, ideal * FULL_COVERAGE)
  const share = Math.min(1, Math.max(0, settings.lexicalShare))
  const byMessageId = new Map(pool.map((candidate) => [candidate.row.messageId, candidate.row]))

  const first = new Map<string, Scored>()
  for (const candidate of pool) {
    const { row } = candidate
    const features = featuresOf(candidate, texts)
    const replied = row.replyMessageId ? byMessageId.get(row.replyMessageId) : undefined
    const bm = lexical.get(row.id) ?? 0
    // both parts relative to the best candidate: raw cosines of different embedders live on
    // different scales (lexical vectors rarely pass 0.5, dense ones rarely fall under it)
    const embedding = calibrate(candidate.similarity)
    const lexicalPart = lexicalScale > 0 ? bm / lexicalScale : 0
    const relation: CandidateRelation = {
      replyDepth: candidate.replyDepth,
      sameThread: candidate.sameThread,
      answersTargetAuthor: replied ? replied.userId === target.userId : false,
      botAddressed: row.role === 'assistant' && Boolean(target.isMentionBot),
      keywordOverlap: ideal > 0 ? bm / ideal : 0,
      semantic: similarities.length ? (1 - share) * embedding + share * lexicalPart : lexicalPart,
      topic: topicId && row.topicId ? (row.topicId === topicId ? 'same' : 'other') : undefined,
    }
    const candidateScoring: ScoringFeatures = {
      userId: row.userId,
      userName: row.userName,
      mentions: features.mentions,
      keywords: [],
      time: row.createdAt,
    }
    const signals = scorer.signals(targetScoring, candidateScoring, relation)
    first.set(row.id, { candidate, score: scorer.combine(signals), content: scorer.content(signals), signals })
  }
  weighRecency(first, settings.recencyFloor, scorer)
  inheritFromNeighbours(first, settings.adjacentDecay, scorer)
  return [...first.values()].sort((a, b) => b.score - a.score || b.candidate.row.createdAt.getTime() - a.candidate.row.createdAt.getTime())
}

/**
 * Recency speaks for the recent window only as far as the target carries on what is being said:
 * when the best match of the recent window is much weaker than the best match further back (the
 * target asks about something said earlier), recency counts that much less.
 */
function weighRecency(scored: Map<string, Scored>, floor: number, scorer: RelevanceScorer) {
  const recencyFloor = Math.min(1, Math.max(0, floor))
  if (recencyFloor < 1) {
    let best = 0
    let recent = 0
    for (const item of scored.values()) {
      best = Math.max(best, item.content)
      if (item.candidate.sources.has('time-window')) recent = Math.max(recent, item.content)
    }
    const factor = best > 0 ? Math.max(recencyFloor, Math.min(1, recent / best)) : 1
    if (factor < 1) {
      for (const item of scored.values()) {
        item.signals.timeDecay *= factor
        item.score = scorer.combine(item.signals)
      }
    }
  }
}

/**
 * Turns next to a strong candidate inherit part of its content relevance; the recent window's
 * messages do not (their recency speaks for them, and in a busy chat the next line is often about
 * something else).
 */
function inheritFromNeighbours(scored: Map<string, Scored>, adjacentDecay: number, scorer: RelevanceScorer) {
  const decay = Math.min(1, Math.max(0, adjacentDecay))
  for (const item of scored.values()) {
    if (!item.candidate.near || item.candidate.sources.has('time-window')) continue
    let carried = 0
    for (const { id, distance, factor } of item.candidate.near)
      carried = Math.max(carried, (scored.get(id)?.content ?? 0) * Math.pow(decay, distance) * factor)
    if (carried <= item.content) continue
    item.signals.adjacent = carried
    item.score = scorer.combine(item.signals)
  }
}

/** The channel's term statistics, or the pool's when the channel has none to give. */
export function termStatsFor(
  termStats: TermStats | undefined,
  channel: ChannelRef,
  pool: Candidate[],
  texts: TextFeatureCache,
): TermStatsView {
  return termStats?.view(channel) ?? hashedStats(pool.map((candidate) => featuresOf(candidate, texts).terms))
}

/** Share of the BM25 of the names of people in the target that counts for a candidate matching nothing else of it. */
const NAME_ONLY = 0.3

/**
 * BM25 of a candidate's terms for the query, where the names of other people than the participants
 * (`names`) count fully only beside a match of another query term: "What did Jean go through?" should
 * favour what is said about what Jean went through, not every line that names Jean.
 */
function lexicalMatch(query: string[], names: Set<string>, stats: TermStatsView): (doc: Int32Array) => number {
  const words = new HashedQuery(
    query.filter((term) => !names.has(term)),
    stats,
  )
  const named = query.filter((term) => names.has(term))
  if (!named.length) return (doc) => words.score(doc)
  const byName = new HashedQuery(named, stats)
  return (doc) => {
    const score = words.score(doc)
    return score + (score > 0 ? 1 : NAME_ONLY) * byName.score(doc)
  }
}

/** The target's terms for lexical matching, without the names of the people it refers to. */
export function queryTerms(content: string, nameTerms: Set<string>): string[] {
  return [...new Set(matchTerms(content))].filter((term) => !nameTerms.has(term))
}

/** Names of `people` the text refers to by name (whole words, any case), e.g. "what did Caroline say". */
export function namesIn(text: string, people: string[]): string[] {
  const terms = new Set(contentTerms(text))
  const out: string[] = []
  for (const name of people) {
    const parts = contentTerms(name)
    if (parts.length && parts.every((part) => terms.has(part))) out.push(normalizeText(name))
  }
  return out
}
