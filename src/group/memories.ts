import type { Embedder } from '../providers/types'
import type { VectorSide } from '../store/index-sync'
import type { EvolutionOptions, EvolverDeps } from './evolution'
import { GroupEvolver, newGroupId } from './evolution'
import { checkGroup, groupCandidates, groupId } from './group-id'
import { GroupIndex } from './group-index'
import type { ListOptions, SearchOptions } from './queries'
import { GroupQueries } from './queries'
import type { ReviewOptions } from './review'
import { GroupReview } from './review'
import type {
  ChangesResponse,
  EvolutionMode,
  EvolutionResult,
  GroupRef,
  HistoryResponse,
  ListResponse,
  ManualResponse,
  ReviewDecision,
  ReviewQueueResponse,
  SearchResponse,
} from './types'
import type { ReviewStore } from './store'
import { GroupMemoryError } from './types'

export interface GroupMemoriesOptions extends EvolutionOptions, Partial<ReviewOptions> {
  /**
   * Default minimum similarity of `search`. Left out: 0.3 with the offline (lexical) embedder, whose
   * similarities run low, and design §6.6's 0.7 with a real embedding model.
   */
  searchThreshold?: number
}

/** The evolver's dependencies (handed on to it), and what search needs besides. */
export interface GroupMemoriesDeps extends Omit<EvolverDeps, 'index' | 'options'> {
  embedder: Embedder
  /** The review queue and per-group modes; left out, every group evolves automatically and there is no queue. */
  reviews?: ReviewStore
  /** The LanceDB side; left out, search compares the group's active memories directly. */
  vector?: VectorSide
  options?: Partial<GroupMemoriesOptions>
}

type GroupArg = GroupRef | string

/**
 * Group memory (design §6) behind one object: evolution, queries and manual edits, each scoped to one
 * group, which may be given as `{ platform, guildId }` or as `platform:guildId`. Koishi-free: the
 * service builds it from a `KoishiGroupStore` (see `createGroupMemories`).
 */
export class GroupMemories {
  readonly evolver: GroupEvolver
  readonly queries: GroupQueries
  /** The review queue of moderated groups (undefined without a `ReviewStore`). */
  readonly review?: GroupReview
  readonly index?: GroupIndex
  readonly searchThreshold: number
  private readonly now: () => Date

  constructor(private deps: GroupMemoriesDeps) {
    const now = deps.now ?? (() => new Date())
    const newId = deps.newId ?? newGroupId
    this.now = now
    this.searchThreshold = deps.options?.searchThreshold ?? (deps.embedder.lexical ? 0.3 : 0.7)
    if (deps.vector) {
      const { index, outbox, table } = deps.vector
      this.index = new GroupIndex(
        { index, outbox, embedder: deps.embedder, counters: deps.counters, logger: deps.logger },
        deps.store,
        table,
      )
    }
    if (deps.reviews) {
      this.review = new GroupReview({
        store: deps.store,
        reviews: deps.reviews,
        index: this.index,
        counters: deps.counters,
        logger: deps.logger,
        now,
        exclusive: (group, task) => this.evolver.exclusive(group, task),
        options: {
          ...(deps.options?.mode ? { mode: deps.options.mode } : {}),
          ...(deps.options?.expiryMs ? { expiryMs: deps.options.expiryMs } : {}),
        },
      })
    }
    this.evolver = new GroupEvolver({
      store: deps.store,
      index: this.index,
      sources: deps.sources,
      review: this.review,
      llm: deps.llm,
      charge: deps.charge,
      prompts: deps.prompts,
      counters: deps.counters,
      logger: deps.logger,
      now,
      newId,
      instanceId: deps.instanceId,
      options: deps.options,
    })
    this.queries = new GroupQueries({
      store: deps.store,
      index: this.index,
      embedder: deps.embedder,
      counters: deps.counters,
      logger: deps.logger,
      now,
      newId,
      searchThreshold: this.searchThreshold,
    })
  }

  /** Evolves the group's memories from its messages of the last `days` days that are newer than the last evolution. */
  async evolve(group: GroupArg, options: { days?: number } = {}): Promise<EvolutionResult> {
    return this.evolver.evolve(await this.toGroup(group), options)
  }

  async list(group: GroupArg, options?: ListOptions): Promise<ListResponse> {
    return this.queries.list(await this.toGroup(group), options)
  }

  async search(group: GroupArg, query: string, options?: SearchOptions): Promise<SearchResponse> {
    return this.queries.search(await this.toGroup(group), query, options)
  }

  async history(group: GroupArg, memoryId: string): Promise<HistoryResponse> {
    return this.queries.history(await this.toGroup(group), memoryId)
  }

  async changes(group: GroupArg, options?: { days?: number }): Promise<ChangesResponse> {
    return this.queries.changes(await this.toGroup(group), options)
  }

  async remove(group: GroupArg, memoryId: string, reason?: string): Promise<ManualResponse> {
    return this.queries.remove(await this.toGroup(group), memoryId, reason)
  }

  async restore(group: GroupArg, memoryId: string): Promise<ManualResponse> {
    return this.queries.restore(await this.toGroup(group), memoryId)
  }

  async setStrength(group: GroupArg, memoryId: string, strength: number): Promise<ManualResponse> {
    return this.queries.setStrength(await this.toGroup(group), memoryId, strength)
  }

  /**
   * For prompt building (`buildContext` / `assemblePrompt`): the group's active memories relevant to
   * `query`, best first, as plain statements with their score. Never throws: on any failure (a bad
   * group, the embedder down) it logs, counts `group.recall-failed` and returns [].
   */
  async recall(group: GroupArg, query: string, options: SearchOptions = {}): Promise<{ id: string; statement: string; score: number }[]> {
    try {
      if (!query?.trim()) return []
      const response = await this.search(group, query.slice(0, 2000), options)
      return response.results.map((hit) => ({ id: hit.memory_id, statement: hit.statement, score: hit.score }))
    } catch (error) {
      this.deps.counters.inc('group.recall-failed')
      this.deps.logger.debug('group memory recall failed: %s', (error as Error).message)
      return []
    }
  }

  /** The group's evolution mode: its own, else the configured one (`auto` without a review queue). */
  async mode(group: GroupArg): Promise<EvolutionMode> {
    const target = await this.toGroup(group)
    return this.review ? this.review.modeOf(target) : 'auto'
  }

  /** Sets the group's evolution mode; `by` is recorded with it. */
  async setMode(group: GroupArg, mode: EvolutionMode, by?: string): Promise<EvolutionMode> {
    const target = await this.toGroup(group)
    // a setting is never stored for a group that does not exist
    if (!(await this.deps.store.knows(target))) throw new GroupMemoryError(groupId(target).slice(0, 80), 'unknown-group')
    return this.reviewQueue().setMode(target, mode, by)
  }

  /** The group's mode and its pending proposals, oldest first. */
  async pendingReviews(group: GroupArg): Promise<ReviewQueueResponse> {
    return this.reviewQueue().pending(await this.toGroup(group))
  }

  /** Approves a proposal (with `statement`: the admin's own text); with `group`, only one of that group. */
  async approveReview(id: string, options: { by: string; statement?: string; group?: GroupArg }): Promise<ReviewDecision> {
    const group = options.group === undefined ? undefined : await this.toGroup(options.group)
    return this.reviewQueue().approve(id, { ...options, group })
  }

  /** Rejects a proposal; with `group`, only one of that group. */
  async rejectReview(id: string, options: { by: string; reason?: string; group?: GroupArg }): Promise<ReviewDecision> {
    const group = options.group === undefined ? undefined : await this.toGroup(options.group)
    return this.reviewQueue().reject(id, { ...options, group })
  }

  /** Closes the proposals older than the expiry; returns how many (0 without a review queue). */
  async expireReviews(): Promise<number> {
    return this.review ? this.review.expire() : 0
  }

  private reviewQueue(): GroupReview {
    if (!this.review) throw new GroupMemoryError('this group memory has no review queue', 'bad-request')
    return this.review
  }

  /** The group a memory id belongs to, for callers allowed to act on any group (the HTTP API's token holder). */
  async locate(memoryId: string): Promise<GroupRef | undefined> {
    if (typeof memoryId !== 'string' || !memoryId.trim()) return undefined
    const [row] = await this.deps.store.getMemories([memoryId.trim()])
    return row ? { platform: row.platform, guildId: row.guildId } : undefined
  }

  /** A group given as `{ platform, guildId }` is taken as it is; as `platform:guildId`, it must exist (`resolve`). */
  private async toGroup(group: GroupArg): Promise<GroupRef> {
    return typeof group === 'string' ? this.resolve(group) : checkGroup(group)
  }

  /**
   * The group `name` (`platform:guildId`) stands for: of the ways to split it, the first that names a
   * group something was said in or that has memories. Throws 'unknown-group' for a group that does not
   * exist, so nothing is created for it.
   */
  async resolve(name: string, preferPlatform?: string): Promise<GroupRef> {
    for (const group of groupCandidates(name, preferPlatform)) {
      if (await this.deps.store.knows(group)) return group
    }
    throw new GroupMemoryError(name.slice(0, 80), 'unknown-group')
  }

  /**
   * Groups with at least `minMessages` messages of members in the last `days` days newer than their
   * last evolution: what a daily timer evolves. Private chats are never groups.
   */
  async groupsWithNewMessages(days = this.evolver.options.defaultDays, minMessages = 1): Promise<GroupRef[]> {
    const since = new Date(this.now().getTime() - days * 86_400_000)
    const [groups, leases] = await Promise.all([this.deps.store.activeGroups(since), this.deps.store.leases()])
    const watermarks = new Map(leases.map((lease) => [lease.id, lease.watermark.getTime()]))
    const due: GroupRef[] = []
    for (const { platform, guildId, newest } of groups) {
      const watermark = watermarks.get(`${platform}:${guildId}`) ?? 0
      if (newest.getTime() <= watermark) continue
      const after = new Date(Math.max(watermark, since.getTime()))
      if (minMessages <= 1 || (await this.deps.store.countMessages({ platform, guildId }, after)) >= minMessages)
        due.push({ platform, guildId })
    }
    return due
  }
}
