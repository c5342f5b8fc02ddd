import type { Counters, Logger } from '../core/observability'
import type { Dialogue, Extraction } from '../facts'
import type { EntityIndex } from './entity-index'
import type { Draft, DraftEntity, KnowledgeExtractor } from './extractor'
import type { KnowledgeStore } from './store'
import { combine, nameKey } from './names'
import { isSingleValued } from './predicates'
import type { ProfileBook } from './profiles'
import type { EntityRow, KnowledgeScope, RelationRow } from './types'
import { knowledgeScope } from './types'
import type { UserRef } from '../scope'

export interface LearnerDeps {
  store: KnowledgeStore
  entityIndex: Pick<EntityIndex, 'put'> & Partial<Pick<EntityIndex, 'nearest'>>
  /**
   * Merge a new name into the scope's nearest entity of the same type when their embeddings are at
   * least this similar. Leave it out with a lexical embedder (the offline one makes 上海 and 上海交大
   * close): names and aliases alone merge then.
   */
  mergeSimilarity?: number
  extractor: KnowledgeExtractor
  profiles: Pick<ProfileBook, 'learn'>
  counters: Counters
  logger: Logger
  newId(): string
  now(): Date
  /** When a user was last forgotten: what they said before is not learnt. */
  forgottenAt?(owner: UserRef): Date | undefined
}

/** Names → entities of one scope, by normalised name and alias. */
class EntityBook {
  private readonly byKey = new Map<string, EntityRow>()
  readonly touched = new Set<EntityRow>()

  constructor(rows: EntityRow[]) {
    for (const row of rows) this.remember(row)
  }

  remember(row: EntityRow): void {
    for (const key of [row.key, ...row.aliases.map(nameKey)]) if (key && !this.byKey.has(key)) this.byKey.set(key, row)
  }

  byId(id: string): EntityRow | undefined {
    for (const row of this.byKey.values()) if (row.id === id) return row
    return undefined
  }

  find(name: string): EntityRow | undefined {
    return this.byKey.get(nameKey(name))
  }

  findAny(names: string[]): EntityRow | undefined {
    for (const name of names) {
      const row = this.find(name)
      if (row) return row
    }
    return undefined
  }
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])]

/**
 * Learns the structured knowledge of each memorised dialogue (design §4.5, §4.3): entities merged into
 * the scope's by name and alias (a second mention adds a mention, never a row), relations between
 * entities of the scope (a single-valued predicate's newer object closes the older relation), and the
 * speakers' preferences and traits for their profiles. Adds no model call; never throws.
 */
export class KnowledgeLearner {
  constructor(private readonly deps: LearnerDeps) {}

  /** `extraction`: the facts judge's answer when it carries knowledge (the rules read the dialogue otherwise). */
  async learn(dialogue: Dialogue, extraction?: Extraction): Promise<void> {
    try {
      await this.learnNow(dialogue, extraction)
    } catch (error) {
      this.deps.counters.inc('knowledge.failed')
      this.deps.logger.warn('could not learn knowledge from a dialogue: %s', (error as Error).message)
    }
  }

  private async learnNow(dialogue: Dialogue, extraction?: Extraction): Promise<void> {
    const { owner } = dialogue
    const heard = this.heardTurns(dialogue)
    if (!heard.turns.length) return
    const draft = this.deps.extractor.extract(heard.turns, extraction, owner.userId || undefined)
    if (!draft.entities.length && !draft.preferences.length && !draft.traits.length) return
    const sourcesOf = (turns: number[]) =>
      heard.sourceIds.length === heard.turns.length && turns.length ? turns.map((i) => heard.sourceIds[i]) : heard.sourceIds
    const timeOf = (turns: number[]) => heard.turns[turns[0]]?.time ?? this.deps.now()
    await this.store(knowledgeScope(owner), draft, sourcesOf, timeOf)
    await this.deps.profiles.learn(owner, draft, sourcesOf, timeOf)
  }

  /**
   * Learns the entities and relations of a text no one in particular says (a hot topic's summary) into
   * a scope, each drawn from `sourceIds`; no preferences or traits. Returns the entities and relations
   * touched; throws when the store does.
   */
  async learnText(scope: KnowledgeScope, text: string, sourceIds: string[], at: Date): Promise<{ entities: number; relations: number }> {
    const draft = this.deps.extractor.extractText(text)
    if (!draft.entities.length) return { entities: 0, relations: 0 }
    return this.store(
      scope,
      draft,
      () => sourceIds,
      () => at,
    )
  }

  /** Merges the draft's entities into the scope's and stores its relations between them. */
  private async store(
    scope: KnowledgeScope,
    draft: Draft,
    sourcesOf: (turns: number[]) => string[],
    timeOf: (turns: number[]) => Date,
  ): Promise<{ entities: number; relations: number }> {
    const book = new EntityBook(await this.deps.store.entitiesOf(scope))
    for (const entity of draft.entities) {
      const known = book.find(entity.name) ?? book.findAny(entity.aliases)
      const similar = known ? undefined : await this.similarEntity(book, scope, entity)
      this.mergeEntity(book, scope, entity, sourcesOf(entity.turns), timeOf(entity.turns), similar)
    }
    const entities = [...book.touched]
    await this.deps.store.upsertEntities(entities)
    await this.deps.entityIndex.put(entities)
    const relations = await this.relate(book, scope, draft, sourcesOf, timeOf)
    this.deps.counters.inc('knowledge.entities', entities.length)
    this.deps.counters.inc('knowledge.relations', relations)
    return { entities: entities.length, relations }
  }

  /** The dialogue without the turns of users forgotten since they were said. */
  private heardTurns(dialogue: Dialogue) {
    const { forgottenAt } = this.deps
    const keep = dialogue.turns.map((turn) => {
      const userId = turn.userId ?? dialogue.owner.userId
      const since = userId && forgottenAt?.({ platform: dialogue.owner.platform, userId })
      return !since || (turn.time !== undefined && turn.time > since)
    })
    const aligned = dialogue.sourceIds.length === dialogue.turns.length
    return {
      turns: dialogue.turns.filter((_, i) => keep[i]),
      sourceIds: aligned ? dialogue.sourceIds.filter((_, i) => keep[i]) : keep.every(Boolean) ? dialogue.sourceIds : [],
    }
  }

  /**
   * The scope's entity of the same type whose embedding is nearest the new name, when it passes
   * `mergeSimilarity` (NYC → New York City). Speakers are not merged so: two users are two people.
   */
  private async similarEntity(book: EntityBook, scope: KnowledgeScope, entity: DraftEntity): Promise<EntityRow | undefined> {
    const { mergeSimilarity, entityIndex } = this.deps
    if (mergeSimilarity === undefined || !entityIndex.nearest || entity.userId) return undefined
    try {
      const hits = await entityIndex.nearest(entity.name, scope, 3)
      for (const hit of hits) {
        if (hit.similarity < mergeSimilarity) continue
        const row = book.byId(hit.id)
        if (row && row.type === entity.type) {
          this.deps.counters.inc('knowledge.merged_by_similarity')
          return row
        }
      }
    } catch (error) {
      this.deps.logger.debug('entity merge by name only: %s', (error as Error).message)
    }
    return undefined
  }

  private mergeEntity(
    book: EntityBook,
    scope: KnowledgeScope,
    entity: DraftEntity,
    sourceIds: string[],
    at: Date,
    similar?: EntityRow,
  ): void {
    const row = book.find(entity.name) ?? book.findAny(entity.aliases) ?? similar
    if (row) {
      if (!book.touched.has(row)) row.mentions++
      row.aliases = union(row.aliases, [entity.name, ...entity.aliases]).filter((alias) => nameKey(alias) !== row.key)
      row.confidence = combine(row.confidence, entity.confidence)
      row.description ||= entity.description
      if (row.type === 'OTHER') row.type = entity.type
      row.sourceIds = union(row.sourceIds, sourceIds)
      if (at > row.lastSeen) row.lastSeen = at
      if (at < row.firstSeen) row.firstSeen = at
      book.remember(row)
      book.touched.add(row)
      return
    }
    const created: EntityRow = {
      ...scope,
      id: this.deps.newId(),
      name: entity.name,
      key: nameKey(entity.name),
      type: entity.type,
      aliases: entity.aliases.filter((alias) => nameKey(alias) !== nameKey(entity.name)),
      description: entity.description,
      confidence: entity.confidence,
      mentions: 1,
      firstSeen: at,
      lastSeen: at,
      sourceIds,
    }
    if (!created.key) return
    book.remember(created)
    book.touched.add(created)
  }

  /** Stores the draft's relations between entities of the scope; returns how many are new. */
  private async relate(
    book: EntityBook,
    scope: KnowledgeScope,
    draft: Draft,
    sourcesOf: (turns: number[]) => string[],
    timeOf: (turns: number[]) => Date,
  ): Promise<number> {
    const wanted = draft.relations
      .map((relation) => ({ relation, subject: book.find(relation.subject), object: book.find(relation.object) }))
      .filter((one) => one.subject && one.object && one.subject !== one.object)
    if (!wanted.length) return 0
    const existing = await this.deps.store.relationsTouching(scope, [...new Set(wanted.map((one) => one.subject!.id))])
    const changed = new Map<string, RelationRow>()
    let added = 0
    for (const { relation, subject, object } of wanted) {
      const at = timeOf(relation.turns)
      const sourceIds = sourcesOf(relation.turns)
      const current = existing.filter((row) => row.subjectId === subject!.id && row.predicate === relation.predicate && !row.validTo)
      const same = current.find((row) => row.objectId === object!.id)
      if (same) {
        same.confidence = combine(same.confidence, relation.confidence)
        same.sourceIds = union(same.sourceIds, sourceIds)
        changed.set(same.id, same)
        continue
      }
      if (isSingleValued(relation.predicate)) {
        for (const older of current) {
          older.validTo = at
          changed.set(older.id, older)
        }
      }
      const row: RelationRow = {
        ...scope,
        id: this.deps.newId(),
        subjectId: subject!.id,
        predicate: relation.predicate,
        objectId: object!.id,
        confidence: relation.confidence,
        sourceIds,
        validFrom: at,
        validTo: null,
        createdAt: this.deps.now(),
      }
      existing.push(row)
      changed.set(row.id, row)
      added++
    }
    await this.deps.store.upsertRelations([...changed.values()])
    return added
  }
}
