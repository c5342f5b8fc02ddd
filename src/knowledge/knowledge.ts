import type { Logger } from '../core/observability'
import type { EntityIndex } from './entity-index'
import type { ForgottenKnowledge } from './forget'
import { forgetKnowledge, forgetLines } from './forget'
import type { Graph, GraphOptions } from './graph'
import { findEntity, queryGraph } from './graph'
import type { KnowledgeStore } from './store'
import type { KnowledgeLearner } from './learner'
import type { ProfileBook } from './profiles'
import type { HotTopic } from './promote'
import { promoteTopics } from './promote'
import { Counters } from '../core/observability'
import type { EntitySearchOptions, FoundEntity } from './search'
import { searchEntities } from './search'
import type { EntityRow, KnowledgeScope, ProfileRow, RelationRow } from './types'
import type { PersonRef, UserRef } from '../scope'

/** An entity with the relations it takes part in (current first) and the entities at their other ends. */
export interface EntityDetails {
  entity: EntityRow
  relations: RelationRow[]
  others: Map<string, EntityRow>
}

/** The structured-knowledge domain as the rest of the plugin uses it. */
export class Knowledge {
  constructor(
    private readonly deps: {
      store: KnowledgeStore
      index: EntityIndex
      learner: KnowledgeLearner
      profiles: ProfileBook
      logger: Logger
      counters?: Counters
      now?: () => Date
    },
  ) {}

  get learner(): KnowledgeLearner {
    return this.deps.learner
  }

  get profiles(): ProfileBook {
    return this.deps.profiles
  }

  searchEntities(scope: KnowledgeScope, query: string, options?: EntitySearchOptions): Promise<FoundEntity[]> {
    return searchEntities({ store: this.deps.store, index: this.deps.index, logger: this.deps.logger }, scope, query, options)
  }

  queryGraph(scope: KnowledgeScope, name: string, options?: GraphOptions): Promise<Graph> {
    return queryGraph(this.deps.store, scope, name, options)
  }

  getUserProfile(ref: PersonRef): Promise<ProfileRow | undefined> {
    return this.deps.profiles.get(ref)
  }

  async entity(scope: KnowledgeScope, name: string): Promise<EntityDetails | undefined> {
    const entity = await findEntity(this.deps.store, scope, name)
    if (!entity) return undefined
    const relations = (await this.deps.store.relationsTouching(scope, [entity.id])).sort(
      (a, b) => Number(Boolean(a.validTo)) - Number(Boolean(b.validTo)) || (b.validFrom?.getTime() ?? 0) - (a.validFrom?.getTime() ?? 0),
    )
    const ids = [...new Set(relations.flatMap((row) => [row.subjectId, row.objectId]))]
    const others = new Map((await this.deps.store.entities(ids)).map((row) => [row.id, row]))
    return { entity, relations, others }
  }

  /** Learns hot topics' summaries into their groups' knowledge, each topic once, at most `limit` (`promoteTopics`). */
  promoteTopics(topics: HotTopic[], limit: number): Promise<number> {
    const { store, learner, logger } = this.deps
    const counters = this.deps.counters ?? new Counters()
    return promoteTopics({ store, learner, logger, counters, now: this.deps.now ?? (() => new Date()) }, topics, limit)
  }

  /** Erases a user's profiles and the knowledge only their messages (`messageIds`) support. */
  forgetUser(owner: UserRef, messageIds: string[]): Promise<ForgottenKnowledge> {
    return forgetKnowledge({ store: this.deps.store, entityIndex: this.deps.index }, owner, messageIds)
  }

  /** Erases what only these messages of a user support, and rewrites their profiles without them. */
  forgetMessages(owner: UserRef, messageIds: string[]): Promise<Omit<ForgottenKnowledge, 'profiles'>> {
    const rewrite = (profile: ProfileRow) => this.deps.profiles.rewrite(profile)
    return forgetLines({ store: this.deps.store, entityIndex: this.deps.index, rewrite }, owner, messageIds)
  }
}
