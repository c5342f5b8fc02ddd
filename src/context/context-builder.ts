import { analyzeMessage } from './analyzer'
import type { RetrievedMemory } from '../facts'
import { withTimeout } from '../core/timeout'
import type { ChannelRef, MessageRow } from '../messages'
import { contentTerms, matchTerms } from '../text/keywords'
import { countTokens, truncateToTokens } from '../text/token-count'
import { normalizeText } from '../text/tokens'
import { splitSentences } from '../text/sentences'
import type { CandidateRelation, ScoredSignals, ScoringFeatures } from './scorer'
import { RelevanceScorer } from './scorer'
import type { TermStatsView } from '../text/bm25'
import { bm25 } from '../text/bm25'
import { hashedStats, HashedQuery } from '../text/term-hashes'
import type { BuiltContext, CandidateSource, ContextMessage, ContextOptions, ContextTarget } from './types'
import type { ContextBuilderConfig, ContextBuilderDeps } from './builder-config'
import { DEFAULT_CONTEXT_CONFIG } from './builder-config'
import { CandidateSimilarity } from './candidate-similarity'
import type { Candidate, CandidatePool } from './candidates'
import { addAdjacent, featuresOf, gatherCandidates, isTarget, semanticNeighbours } from './candidates'
import { TextFeatureCache } from './text-features'

interface Scored {
  candidate: Candidate
  score: number
  content: number
  signals: ScoredSignals
}

/** Least spread between the floor and the best embedding similarity that calibrates to 0…1. */
const MIN_SPREAD = 0.2
/** Share of the target's keyword weight the best lexical match must cover to count as a full match. */
const FULL_COVERAGE = 0.3

/**
 * The context builder (seed 000 §2.4, seed 001 §3.3): the messages a reply to `target` should see,
 * chosen by relevance within a token budget instead of "the last N messages".
 *
 * 1. Candidates come from five sources: the reply chain of the target (up to `replyDepth` links), the
 *    thread its chain started from, the target's topic (when the attribution has set one), semantic
 *    neighbours (a hybrid search of the channel's indexed messages) and the recent time window
 *    (`timeWindowHours`, at most `maxMessages` messages).
 * 2. Every candidate is scored by the `RelevanceScorer`. The keyword signal is a BM25 match with
 *    the channel's term statistics; the semantic signal blends the embedding similarity with the
 *    lexical match (`lexicalShare`), both relative to the best candidate.
 *    Recency counts less when the recent window matches the target much worse than older
 *    candidates do (the target asks about something said earlier; `recencyFloor`).
 * 3. The turns around the best-scoring candidates (`adjacentHits`, `adjacentTurns` on each side)
 *    join the pool and inherit part of their neighbour's content relevance (`adjacentDecay` per
 *    turn): the question before an answer, the answer after a question.
 * 4. The best candidates above the scorer's threshold are taken while they fit: long-term memories,
 *    the group's memories and the rolling summary take at most their share of the budget (of the
 *    summary, only the sentences that bear on the target, when it has keywords), the messages the rest; a message
 *    costs the tokens of its rendered line (`name: content`) plus one for the line break. The total
 *    never exceeds `tokenBudget`. Duplicates (one message from two sources, or the same words said
 *    twice by one person) are merged. The result is oldest first, each message with its sources and
 *    signals.
 *
 * `build` never throws. When the build fails or takes longer than `timeoutMs`, it returns the plain
 * recent window that fits the budget, marked `fallback: true` and counted (`context.fallback`).
 */
export class ContextBuilder {
  readonly config: Readonly<ContextBuilderConfig>
  readonly scorer: RelevanceScorer
  private readonly texts = new TextFeatureCache()
  private readonly similarity: CandidateSimilarity
  private readonly clock: () => number

  constructor(
    private deps: ContextBuilderDeps,
    config: Partial<ContextBuilderConfig> = {},
  ) {
    this.config = Object.freeze({ ...DEFAULT_CONTEXT_CONFIG, ...config })
    this.scorer = deps.scorer ?? new RelevanceScorer()
    this.similarity = new CandidateSimilarity(deps)
    this.clock = deps.clock ?? (() => performance.now())
  }

  /** The context for `target`. Never throws. */
  async build(target: ContextTarget, options: ContextOptions = {}): Promise<BuiltContext> {
    const started = this.clock()
    const settings = this.settings(options)
    const { counters, logger } = this.deps
    let built: BuiltContext
    try {
      built = await withTimeout(this.select(target, settings, started), settings.timeoutMs)
      counters.inc('context.built')
    } catch (error) {
      counters.inc('context.fallback')
      logger.warn('context for %s:%s fell back to the recent window: %s', target.platform, target.channelId, (error as Error).message)
      built = await this.fallback(target, settings, started)
    }
    try {
      this.deps.onBuilt?.(target, built)
    } catch {
      // the log must never break the reply
    }
    return built
  }

  private settings(options: ContextOptions): ContextBuilderConfig {
    const config = { ...this.config }
    if (options.tokenBudget !== undefined) config.tokenBudget = options.tokenBudget
    if (options.maxMessages !== undefined) config.maxMessages = options.maxMessages
    if (options.timeWindowHours !== undefined) config.timeWindowHours = options.timeWindowHours
    if (options.longTerm === false) config.longTermShare = 0
    if (options.summary === false) config.summaryShare = 0
    if (options.group === false) config.groupShare = 0
    config.tokenBudget = Math.max(0, Math.floor(Number(config.tokenBudget) || 0))
    config.maxMessages = Math.max(0, Math.floor(Number(config.maxMessages) || 0))
    config.timeWindowHours = Math.max(0, Number(config.timeWindowHours) || 0)
    return config
  }

  /** The plain recent window that fits the budget. Never throws. */
  private async fallback(target: ContextTarget, settings: ContextBuilderConfig, started: number): Promise<BuiltContext> {
    let rows: MessageRow[] = []
    try {
      rows = await withTimeout(
        this.deps.store.window(target, {
          since: new Date(target.time.getTime() - settings.timeWindowHours * 3_600_000),
          before: target.time,
          limit: settings.maxMessages,
        }),
        Math.min(settings.timeoutMs, 2000),
      )
    } catch (error) {
      this.deps.counters.inc('context.fallback-empty')
      this.deps.logger.debug('recent window unavailable: %s', (error as Error).message)
    }
    // the newest messages that fit, contiguous from the end: what a plain window is
    const messages: ContextMessage[] = []
    let total = 0
    let windowTokens = 0
    let full = false
    for (let i = rows.length - 1; i >= 0; i--) {
      if (isTarget(rows[i], target) || rows[i].isCommand) continue
      const message = this.toContextMessage(rows[i], 0, ['time-window'], {})
      windowTokens += message.tokens + 1
      if (full || total + message.tokens + 1 > settings.tokenBudget) {
        full = true
        continue
      }
      messages.push(message)
      total += message.tokens + 1
    }
    return {
      longTerm: [],
      summary: '',
      messages: messages.reverse(),
      tokens: total,
      windowTokens,
      fallback: true,
      buildMs: this.clock() - started,
    }
  }

  private async select(target: ContextTarget, settings: ContextBuilderConfig, started: number): Promise<BuiltContext> {
    const targetVector = this.similarity.embedTarget(target)
    // the search first, so that it runs while the window and the reply structure are read
    const semantic = targetVector.then((vector) => semanticNeighbours(this.deps, target, settings.semanticLimit, vector))

    const longTerm =
      this.deps.longTerm && settings.longTermShare > 0
        ? this.deps.longTerm(target, settings.longTermTopK).catch(() => [] as RetrievedMemory[])
        : Promise.resolve([] as RetrievedMemory[])
    const summary =
      this.deps.summary && settings.summaryShare > 0 ? this.deps.summary(target).catch(() => undefined) : Promise.resolve(undefined)
    const groupMemories =
      this.deps.group && target.guildId && settings.groupShare > 0 ? this.deps.group(target).catch(() => []) : Promise.resolve([])

    const { pool, topicId, windowRows } = await gatherCandidates(this.deps, target, settings, semantic)
    const scored = await this.rank(target, topicId, pool, windowRows, await targetVector, settings)

    // sections: long-term, group memories and summary first, within their shares; messages get the rest
    let used = 0
    const memories: RetrievedMemory[] = []
    const longTermCap = Math.floor(settings.tokenBudget * settings.longTermShare)
    for (const memory of await longTerm) {
      const cost = countTokens(`- ${memory.content}`) + 1
      if (used + cost > longTermCap) continue
      memories.push(memory)
      used += cost
    }
    const group: NonNullable<BuiltContext['group']> = []
    const groupCap = Math.floor(settings.tokenBudget * settings.groupShare)
    let groupTokens = 0
    for (const memory of await groupMemories) {
      const cost = countTokens(`- ${memory.statement}`) + 1
      if (groupTokens + cost > groupCap) continue
      group.push(memory)
      groupTokens += cost
    }
    used += groupTokens
    const summaryText = this.summaryFor(
      target,
      (await summary) ?? '',
      pool.list(),
      Math.floor(settings.tokenBudget * settings.summaryShare) - 1,
      settings,
    )
    if (summaryText) used += countTokens(summaryText) + 1

    const chosen: ContextMessage[] = []
    const said = new Set<string>()
    for (const item of scored) {
      if (!this.scorer.passes(item.score)) break
      const message = this.toContextMessage(item.candidate.row, item.score, [...item.candidate.sources], item.signals)
      const cost = message.tokens + 1
      if (used + cost > settings.tokenBudget) continue
      const fingerprint = `${message.userId}\u0000${normalizeText(message.content).replace(/\s+/g, ' ').trim()}`
      if (said.has(fingerprint)) continue
      said.add(fingerprint)
      chosen.push(message)
      used += cost
    }
    chosen.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))

    let windowTokens = 0
    for (const row of windowRows) if (!isTarget(row, target) && !row.isCommand) windowTokens += this.texts.tokensOf(row) + 1
    const built: BuiltContext = {
      longTerm: memories,
      summary: summaryText,
      messages: chosen,
      tokens: used,
      windowTokens,
      fallback: false,
      buildMs: this.clock() - started,
    }
    if (group.length) built.group = group
    return built
  }

  /** The pool scored, then the turns around its best candidates brought in and the pool scored again. */
  private async rank(
    target: ContextTarget,
    topicId: string,
    pool: CandidatePool,
    windowRows: MessageRow[],
    vector: Float32Array | undefined,
    settings: ContextBuilderConfig,
  ): Promise<Scored[]> {
    await this.similarity.fill(target, pool.list(), vector, settings)
    let scored = this.score(target, topicId, pool.list(), settings)
    if (settings.adjacentTurns > 0 && settings.adjacentHits > 0 && scored.length) {
      const best = scored
        .filter((item) => item.content > 0)
        .slice(0, settings.adjacentHits)
        .map((item) => item.candidate.row)
      await addAdjacent(this.deps.store, target, pool, best, settings.adjacentTurns, windowRows)
      await this.similarity.fill(target, pool.list(), vector, settings)
      scored = this.score(target, topicId, pool.list(), settings)
    }
    return scored
  }

  private score(target: ContextTarget, topicId: string, pool: Candidate[], settings: ContextBuilderConfig): Scored[] {
    const stats = this.stats(target, pool)
    const participants = new Set(pool.map((candidate) => candidate.row.userName))
    const targetFeatures = analyzeMessage(target)
    const people = namesIn(target.content, [...participants])
    const mentions = new Set([...targetFeatures.mentions, ...people])
    // a name that stands for a participant is a mention, not a keyword: "what did Caroline say"
    // should not favour every message that greets Caroline
    const nameTerms = new Set(people.flatMap((name) => contentTerms(name)))
    const query = queryTerms(target.content, nameTerms)
    const ideal = query.reduce((sum, term) => sum + stats.idf(term), 0)
    const targetScoring: ScoringFeatures = { ...targetFeatures, mentions: [...mentions], time: target.time }

    const lexical = new Map<string, number>()
    let bestLexical = 0
    const matcher = new HashedQuery(query, stats)
    for (const candidate of pool) {
      const value = matcher.score(featuresOf(candidate, this.texts).terms)
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
    const similarities = pool
      .flatMap((candidate) => (candidate.similarity === undefined ? [] : [candidate.similarity]))
      .sort((a, b) => a - b)
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
      const features = featuresOf(candidate, this.texts)
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
      const signals = this.scorer.signals(targetScoring, candidateScoring, relation)
      first.set(row.id, { candidate, score: this.scorer.combine(signals), content: this.scorer.content(signals), signals })
    }
    // recency speaks for the recent window only as far as the target carries on what is being said:
    // when the best match of the recent window is much weaker than the best match further back (the
    // target asks about something said earlier), recency counts that much less
    const recencyFloor = Math.min(1, Math.max(0, settings.recencyFloor))
    if (recencyFloor < 1) {
      let best = 0
      let recent = 0
      for (const item of first.values()) {
        best = Math.max(best, item.content)
        if (item.candidate.sources.has('time-window')) recent = Math.max(recent, item.content)
      }
      const factor = best > 0 ? Math.max(recencyFloor, Math.min(1, recent / best)) : 1
      if (factor < 1) {
        for (const item of first.values()) {
          item.signals.timeDecay *= factor
          item.score = this.scorer.combine(item.signals)
        }
      }
    }
    // turns next to a strong candidate inherit part of its content relevance; the recent window's
    // messages do not (their recency speaks for them, and in a busy chat the next line is often
    // about something else)
    const decay = Math.min(1, Math.max(0, settings.adjacentDecay))
    for (const item of first.values()) {
      if (!item.candidate.near || item.candidate.sources.has('time-window')) continue
      let carried = 0
      for (const { id, distance, factor } of item.candidate.near)
        carried = Math.max(carried, (first.get(id)?.content ?? 0) * Math.pow(decay, distance) * factor)
      if (carried <= item.content) continue
      item.signals.adjacent = carried
      item.score = this.scorer.combine(item.signals)
    }
    return [...first.values()].sort(
      (a, b) => b.score - a.score || b.candidate.row.createdAt.getTime() - a.candidate.row.createdAt.getTime(),
    )
  }

  /**
   * The part of the rolling summary that bears on the target, within `cap` tokens: its sentences
   * that cover at least `summaryCoverage` of the target's keyword weight, best first, shown in their
   * order. A target without keywords ("so what do you all think?") gets the summary as it is; one
   * whose keywords the summary does not touch gets none, and its share goes to the messages.
   */
  private summaryFor(target: ContextTarget, summary: string, pool: Candidate[], cap: number, settings: ContextBuilderConfig): string {
    if (!summary.trim() || cap <= 0) return ''
    const whole = truncateToTokens(summary, cap)
    if (settings.summaryCoverage <= 0) return whole
    const participants = [...new Set(pool.map((candidate) => candidate.row.userName))]
    const nameTerms = new Set(namesIn(target.content, participants).flatMap((name) => contentTerms(name)))
    const query = queryTerms(target.content, nameTerms)
    const stats = this.stats(target, pool)
    const ideal = query.reduce((sum, term) => sum + stats.idf(term), 0)
    if (!(ideal > 0)) return whole
    const sentences = summary
      .split('\n')
      .flatMap((line) => splitSentences(line))
      .map((text, order) => {
        const list = matchTerms(text)
        const terms = new Map<string, number>()
        for (const term of list) terms.set(term, (terms.get(term) ?? 0) + 1)
        return { text, order, coverage: bm25(query, { terms, length: list.length }, stats) / ideal, tokens: countTokens(text) + 1 }
      })
      .filter((sentence) => sentence.coverage >= settings.summaryCoverage)
      .sort((a, b) => b.coverage - a.coverage || b.order - a.order)
    const kept: typeof sentences = []
    let used = 0
    for (const sentence of sentences) {
      if (used + sentence.tokens > cap + 1) continue
      kept.push(sentence)
      used += sentence.tokens
    }
    return truncateToTokens(
      kept
        .sort((a, b) => a.order - b.order)
        .map((sentence) => sentence.text)
        .join('\n'),
      cap,
    )
  }

  private stats(channel: ChannelRef, pool: Candidate[]): TermStatsView {
    return this.deps.termStats?.view(channel) ?? hashedStats(pool.map((candidate) => featuresOf(candidate, this.texts).terms))
  }

  private toContextMessage(row: MessageRow, score: number, sources: CandidateSource[], signals: Record<string, number>): ContextMessage {
    return {
      id: row.id,
      messageId: row.messageId,
      userId: row.userId,
      userName: row.userName,
      role: row.role,
      content: row.content,
      createdAt: row.createdAt,
      score,
      tokens: this.texts.tokensOf(row),
      sources,
      signals: { ...signals },
    }
  }
}

/** The target's terms for lexical matching, without the names of the people it refers to. */
function queryTerms(content: string, nameTerms: Set<string>): string[] {
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
