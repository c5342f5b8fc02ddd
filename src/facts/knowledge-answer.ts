import { z } from 'zod'
import type { EntityType, ExtractedEntity, ExtractedPreference, ExtractedRelation } from './judge'

/**
 * The knowledge parts of the extraction answer (entities, relations, preferences), read leniently:
 * an item that does not fit is dropped on its own, and a part that is no list is no part, so a
 * malformed or partial answer never costs the facts beside it.
 */

const ENTITY_TYPES: EntityType[] = ['PERSON', 'LOCATION', 'ORGANIZATION', 'PRODUCT', 'EVENT', 'OTHER']
/** Most items of each kind kept from one dialogue. */
const MAX_ITEMS = 30

const Text = z
  .string()
  .transform((value) => value.replace(/\s+/g, ' ').trim())
  .pipe(z.string().min(1).max(200))
const OptionalText = z.unknown().transform((value) => {
  const parsed = Text.safeParse(value)
  return parsed.success ? parsed.data : undefined
})

const Entity = z.object({
  name: Text,
  type: z.unknown().transform((value): EntityType => {
    const upper = typeof value === 'string' ? value.trim().toUpperCase() : ''
    return ENTITY_TYPES.includes(upper as EntityType) ? (upper as EntityType) : 'OTHER'
  }),
  aliases: z
    .unknown()
    .transform((value) =>
      Array.isArray(value) ? value.flatMap((alias) => (Text.safeParse(alias).success ? [Text.parse(alias)] : [])) : [],
    ),
  description: OptionalText,
})

const Relation = z.object({ subject: Text, predicate: Text, object: Text })

const Preference = z.object({ about: OptionalText, key: Text, value: Text })

function items<S extends z.ZodTypeAny>(value: unknown, schema: S): z.output<S>[] | undefined {
  if (!Array.isArray(value)) return undefined
  return value
    .flatMap((item) => {
      const parsed = schema.safeParse(item)
      return parsed.success ? [parsed.data] : []
    })
    .slice(0, MAX_ITEMS)
}

const withoutBlanks = <T extends object>(item: T): T =>
  Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined && !(Array.isArray(value) && !value.length))) as T

export interface KnowledgeParts {
  entities?: ExtractedEntity[]
  relations?: ExtractedRelation[]
  preferences?: ExtractedPreference[]
}

/** The parts the answer gives, each a list of the items that fit; a part absent or not a list is left out. */
export function readKnowledge(answer: { entities?: unknown; relations?: unknown; preferences?: unknown }): KnowledgeParts {
  const entities = items(answer.entities, Entity)?.map(withoutBlanks)
  const relations = items(answer.relations, Relation)
  const preferences = items(answer.preferences, Preference)?.map(withoutBlanks)
  return { ...(entities && { entities }), ...(relations && { relations }), ...(preferences && { preferences }) }
}
