import { withTimeout } from '../core/timeout'
import type { RetrievedMemory } from '../facts'
import type { MessageRow } from '../messages'
import { countTokens } from '../text/token-count'
import { fitLines, fitMessages, fitRecent, windowTokens } from './budget'
import type { ContextBuilderConfig, ContextBuilderDeps } from './builder-config'
import { DEFAULT_CONTEXT_CONFIG } from './builder-config'
import type { Scored } from './candidate-scoring'
import { scoreCandidates, termStatsFor } from './candidate-scoring'
import { CandidateSimilarity } from './candidate-similarity'
import type { Candidate, CandidatePool } from './candidates'
import { addAdjacent, gatherCandidates, semanticNeighbours } from './candidates'
import { RelevanceScorer } from './scorer'
import { summaryExcerpt } from './summary-excerpt'
import { TextFeatureCache } from './text-features'
import type { BuiltContext, ContextOptions, ContextTarget } from './types'

/**
 * The context builder (design §2.3, §5.3): the messages a reply to `target` should see,
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
  private readonly texts: TextFeatureCache
  private readonly similarity: CandidateSimilarity
  private readonly clock: () => number

  constructor(
    private deps: ContextBuilderDeps,
    config: Partial<ContextBuilderConfig> = {},
  ) {
    this.config = Object.freeze({ ...DEFAULT_CONTEXT_CONFIG, ...config })
    this.scorer = deps.scorer ?? new RelevanceScorer()
    this.texts = new TextFeatureCache(deps.cacheBytes?.features)
    this.similarity = new CandidateSimilarity(deps, deps.cacheBytes?.vectors)
    this.clock = deps.clock ?? (() => performance.now())
  }

  /** What the caches kept across builds take (estimated). */
  held(): { features: { bytes: number; entries: number }; vectors: { bytes: number; entries: number } } {
    return { features: this.texts.held(), vectors: this.similarity.held() }
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
    const recent = fitRecent(rows, target, settings.tokenBudget, this.texts)
    return {
      longTerm: [],
      summary: '',
      messages: recent.messages,
      tokens: recent.tokens,
      windowTokens: recent.windowTokens,
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
    const memories = fitLines(await longTerm, Math.floor(settings.tokenBudget * settings.longTermShare), (memory) => memory.content)
    const group = fitLines(await groupMemories, Math.floor(settings.tokenBudget * settings.groupShare), (memory) => memory.statement)
    const summaryText = summaryExcerpt(
      target,
      (await summary) ?? '',
      Math.floor(settings.tokenBudget * settings.summaryShare) - 1,
      settings.summaryCoverage,
      pool.list(),
      this.deps.termStats,
      this.texts,
    )
    let used = memories.tokens + group.tokens
    if (summaryText) used += countTokens(summaryText) + 1
    const chosen = fitMessages(scored, used, settings.tokenBudget, this.scorer, this.texts)

    const built: BuiltContext = {
      longTerm: memories.kept,
      summary: summaryText,
      messages: chosen.messages,
      tokens: chosen.used,
      windowTokens: windowTokens(windowRows, target, this.texts),
      fallback: false,
      buildMs: this.clock() - started,
    }
    if (group.kept.length) built.group = group.kept
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
    const stats = termStatsFor(this.deps.termStats, target, pool, this.texts)
    return scoreCandidates(target, topicId, pool, stats, this.texts, this.scorer, settings)
  }
}
