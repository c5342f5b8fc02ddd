import { bm25, countTerms, termStatsOf } from '../text/bm25'
import { matchTerms } from '../text/keywords'
import type { KnowledgeStore } from './store'
import type { FoundEntity } from './search'
import type { KnowledgeScope, ProfileRow } from './types'

/** One item a knowledge-aware recall returns: a fact, a preference of the user, a relation or an entity. */
export interface RecalledItem {
  kind: 'fact' | 'preference' | 'relation' | 'entity'
  text: string
  /** The messages it was drawn from. */
  sourceIds: string[]
  /** Reciprocal-rank fusion over the kinds' own rankings (higher is better). */
  score: number
}

export interface RecallInput {
  /** The user's facts for the query, best first (from `retrieve`). */
  facts: { text: string; sourceIds: string[] }[]
  /** The scope's entities for the query, best first. */
  entities: FoundEntity[]
  /** The user's profile in the scope, when there is one. */
  profile?: ProfileRow
}

/** The k of reciprocal rank fusion, as everywhere else in the plugin. */
const RRF_K = 60
/**
 * Weight of the knowledge lists against the facts' in the fusion: the facts are the distilled memory
 * and lead; preferences, relations and entities (mostly the same statements in structured form, read
 * by rules offline) fill in where the facts are few or agree with them, and never push a better-ranked
 * fact out.
 */
const KNOWLEDGE_WEIGHT = 0.5

/**
 * Facts, the user's current preferences, the current relations of the entities the query names and
 * those entities, fused by weighted reciprocal rank: each kind ranked on its own (facts as `retrieve`
 * ranked them, preferences and relations by BM25 against the query, entities as the search ranked
 * them), an item scored Σ weight / (k + rank) over the lists it is in. Preferences and relations that
 * share no term with the query are left out.
 */
export async function recallKnowledge(
  store: Pick<KnowledgeStore, 'relationsTouching' | 'entities'>,
  scope: KnowledgeScope,
  query: string,
  input: RecallInput,
  limit: number,
): Promise<RecalledItem[]> {
  const lists: RecalledItem[][] = []
  lists.push(input.facts.map((fact) => ({ kind: 'fact' as const, text: fact.text, sourceIds: fact.sourceIds, score: 0 })))

  const preferences = (input.profile?.preferences ?? [])
    .filter((preference) => preference.validTo === null)
    .map((preference) => ({
      kind: 'preference' as const,
      text: `${input.profile!.userName} ${preference.key} ${preference.value}`,
      sourceIds: preference.sourceIds,
      score: 0,
    }))
  lists.push(lexicalOrder(query, preferences))

  const ids = input.entities.map((found) => found.entity.id)
  const relations = ids.length ? (await store.relationsTouching(scope, ids)).filter((row) => row.validTo === null) : []
  const names = new Map(input.entities.map((found) => [found.entity.id, found.entity.name]))
  for (const row of await store.entities(relations.flatMap((row) => [row.subjectId, row.objectId]).filter((id) => !names.has(id)))) {
    names.set(row.id, row.name)
  }
  lists.push(
    lexicalOrder(
      query,
      relations.map((row) => ({
        kind: 'relation' as const,
        text: `${names.get(row.subjectId) ?? '?'} ${row.predicate} ${names.get(row.objectId) ?? '?'}`,
        sourceIds: row.sourceIds,
        score: 0,
      })),
    ),
  )
  lists.push(
    // only entities the query names: a neighbour by vector alone says little about the question
    input.entities
      .filter((found) => found.named)
      .map(({ entity }) => ({
        kind: 'entity' as const,
        text: entity.description ? `${entity.name}: ${entity.description}` : entity.name,
        sourceIds: entity.sourceIds,
        score: 0,
      })),
  )

  const fused = new Map<string, RecalledItem>()
  for (const [i, list] of lists.entries()) {
    const weight = i === 0 ? 1 : KNOWLEDGE_WEIGHT
    list.forEach((item, rank) => {
      const key = `${item.kind}\u0000${item.text}`
      const seen = fused.get(key)
      if (seen) seen.score += weight / (RRF_K + rank)
      else fused.set(key, { ...item, score: weight / (RRF_K + rank) })
    })
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit)
}

/** Items that share a term with the query, by BM25 among themselves. */
function lexicalOrder<T extends { text: string }>(query: string, items: T[]): T[] {
  if (!items.length) return []
  const terms = items.map((item) => matchTerms(item.text))
  const stats = termStatsOf(terms)
  const wanted = matchTerms(query)
  return items
    .map((item, i) => ({ item, score: bm25(wanted, countTerms(terms[i]), stats) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score)
    .map(({ item }) => item)
}
