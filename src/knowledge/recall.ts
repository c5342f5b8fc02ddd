import { bm25, countTerms, termStatsOf } from '../text/bm25'
import { matchTerms } from '../text/keywords'
import type { KnowledgeStore } from './store'
import type { FoundEntity } from './search'
import { nameKey } from './names'
import type { EntityRow, EntityType, KnowledgeScope, ProfileRow } from './types'

/** One item a knowledge-aware recall returns: a fact or a line of the user, a preference of theirs, or a relation. */
export interface RecalledItem {
  kind: 'fact' | 'message' | 'preference' | 'relation'
  text: string
  /** The messages it was drawn from. */
  sourceIds: string[]
  /** Reciprocal-rank fusion over the kinds' own rankings (higher is better). */
  score: number
}

export interface RecallInput {
  /** The user's memories for the query, best first (from `retrieve`: facts and their own lines). */
  facts: { kind?: 'fact' | 'message'; text: string; sourceIds: string[] }[]
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
 * fact out. What answers the kind of question asked (where the asker lives for "where", who their
 * people are for "who", what they like for "what do I like") weighs as a fact does, its best `AIMED`.
 */
const KNOWLEDGE_WEIGHT = 0.5
const AIMED = 2

/** What a question asks for, by its question words: the types of entity that answer it, and whether it asks what one likes. */
export interface QuestionAim {
  types: EntityType[]
  likes: boolean
  /** It asks about the asker (我, my, I). */
  firstPerson: boolean
}

const AIMS: { pattern: RegExp; types: EntityType[] }[] = [
  {
    pattern: /哪里|哪儿|在哪|哪个(?:城市|地方|国家|省)|\bwhere\b|\bwhich (?:city|country|town|place|state)\b/iu,
    types: ['LOCATION', 'ORGANIZATION'],
  },
  {
    pattern: /哪(?:家|个)?(?:公司|单位|学校|大学)|\b(?:which|what) (?:company|school|university|college|firm)\b/iu,
    types: ['ORGANIZATION'],
  },
  { pattern: /谁|叫什么|名字|\bwho(?:m|se|'s)?\b|\bname\b/iu, types: ['PERSON', 'OTHER'] },
]
const LIKES =
  /喜欢|爱吃|爱喝|爱好|讨厌|口味|\b(?:like|likes|love|loves|enjoy|enjoys|favou?rite|prefer|prefers|hobby|hobbies|hate|hates|dislike)\b/iu
const FIRST_PERSON = /我(?!们)|\b(?:I|my|me|mine)\b/u

export function questionAim(query: string): QuestionAim {
  return {
    types: [...new Set(AIMS.filter((aim) => aim.pattern.test(query)).flatMap((aim) => aim.types))],
    likes: LIKES.test(query),
    firstPerson: FIRST_PERSON.test(query),
  }
}

/**
 * Facts, the user's current preferences, the current relations of the entities the query names (and
 * of the asker, when the question is about them) and those entities, fused by weighted reciprocal
 * rank: each kind ranked on its own (facts as `retrieve` ranked them, preferences and relations by BM25
 * against the query, entities as the search ranked them), an item scored Σ weight / (k + rank) over the
 * lists it is in. Preferences and relations that share no term with the query are left out, unless
 * they answer the kind of question asked.
 */
export async function recallKnowledge(
  store: Pick<KnowledgeStore, 'relationsTouching' | 'entities' | 'entitiesOf'>,
  scope: KnowledgeScope,
  query: string,
  input: RecallInput,
  limit: number,
): Promise<RecalledItem[]> {
  const aim = questionAim(query)
  const lists: { items: RecalledItem[]; weight: number }[] = []
  const add = (items: RecalledItem[], weight: number) => lists.push({ items, weight })
  add(
    input.facts.map((fact) => ({ kind: fact.kind ?? ('fact' as const), text: fact.text, sourceIds: fact.sourceIds, score: 0 })),
    1,
  )

  const preferences = (input.profile?.preferences ?? [])
    .filter((preference) => preference.validTo === null)
    .map((preference) => ({
      kind: 'preference' as const,
      text: `${input.profile!.userName} ${preference.key} ${preference.value}`,
      sourceIds: preference.sourceIds,
      score: 0,
    }))
  addAimed(add, lexicalOrder(query, preferences), aim.likes && aim.firstPerson ? preferences : [])

  const asker = aim.firstPerson && input.profile ? await askerEntity(store, scope, input.profile) : undefined
  const ids = [...new Set([...input.entities.map((found) => found.entity.id), ...(asker ? [asker.id] : [])])]
  const relations = ids.length ? (await store.relationsTouching(scope, ids)).filter((row) => row.validTo === null) : []
  const rows = new Map(input.entities.map((found) => [found.entity.id, found.entity]))
  if (asker) rows.set(asker.id, asker)
  for (const row of await store.entities(relations.flatMap((row) => [row.subjectId, row.objectId]).filter((id) => !rows.has(id))))
    rows.set(row.id, row)
  const relationItems = relations.map((row) => ({
    kind: 'relation' as const,
    text: `${rows.get(row.subjectId)?.name ?? '?'} ${row.predicate} ${rows.get(row.objectId)?.name ?? '?'}`,
    sourceIds: row.sourceIds,
    score: 0,
  }))
  // "where do I live", "where did Caroline move from": the relations of the asker (or of a person the
  // question names) to an entity of the type asked for
  const askedAbout = new Set([
    ...(asker ? [asker.id] : []),
    ...input.entities.filter((found) => found.named && found.entity.type === 'PERSON').map((found) => found.entity.id),
  ])
  const answering = relationItems.filter((_, i) => {
    const row = relations[i]
    return askedAbout.has(row.subjectId) && aim.types.includes(rows.get(row.objectId)?.type ?? 'OTHER')
  })
  addAimed(add, lexicalOrder(query, relationItems), lexicalFirst(query, answering))
  const fused = new Map<string, RecalledItem>()
  for (const { items, weight } of lists) {
    items.forEach((item, rank) => {
      const key = `${item.kind}\u0000${item.text}`
      const seen = fused.get(key)
      if (seen) seen.score += weight / (RRF_K + rank)
      else fused.set(key, { ...item, score: weight / (RRF_K + rank) })
    })
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit)
}

/** The lexical list at the knowledge weight, and the best `AIMED` of what answers the question at a fact's. */
function addAimed(add: (items: RecalledItem[], weight: number) => void, lexical: RecalledItem[], aimed: RecalledItem[]): void {
  const top = lexicalFirstOf(lexical, aimed).slice(0, AIMED)
  if (top.length) add(top, 1)
  add(lexical, KNOWLEDGE_WEIGHT)
}

/** `aimed` with what `lexical` ranks first ahead, in its order. */
function lexicalFirstOf(lexical: RecalledItem[], aimed: RecalledItem[]): RecalledItem[] {
  const order = new Map(lexical.map((item, i) => [item, i]))
  return [...aimed].sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity))
}

function lexicalFirst(query: string, items: RecalledItem[]): RecalledItem[] {
  return lexicalFirstOf(lexicalOrder(query, items), items)
}

/** The asker's own entity in the scope: the one under their profile's name. */
async function askerEntity(
  store: Pick<KnowledgeStore, 'entitiesOf'>,
  scope: KnowledgeScope,
  profile: ProfileRow,
): Promise<EntityRow | undefined> {
  const keys = new Set([profile.userName, profile.userId].map(nameKey).filter(Boolean))
  return (await store.entitiesOf(scope)).find((row) => keys.has(row.key) || row.aliases.some((alias) => keys.has(nameKey(alias))))
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
