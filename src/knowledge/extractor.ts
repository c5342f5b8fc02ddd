import type { Extraction, Turn } from '../facts'
import type { Logger } from '../core/observability'
import { statementsOf } from '../text/non-statements'
import { isEntityName, isVagueValue } from './entity-names'
import { namedEntities } from './named-entities'
import { cleanName, nameKey } from './names'
import { canonicalPredicate } from './predicates'
import type { Party } from './rules'
import { ruleFindings, SPEAKER } from './rules'
import type { EntityType } from './types'
import { ENTITY_TYPES } from './types'

/** How sure each source is of what it found. */
const CONFIDENCE = { model: 0.8, intro: 0.9, rule: 0.6, nlp: 0.5 }

export interface DraftEntity {
  name: string
  type: EntityType
  aliases: string[]
  description: string
  confidence: number
  /** Indexes of the turns it came from. */
  turns: number[]
  /** The user this entity is, when it is a speaker of the dialogue. */
  userId?: string
}

export interface DraftRelation {
  subject: string
  predicate: string
  object: string
  confidence: number
  turns: number[]
}

/** A preference or a trait of one speaker, from their own turns. */
export interface DraftPreference {
  userId: string
  userName: string
  key: string
  value: string
  stopped?: boolean
  confidence: number
  turns: number[]
}

export interface DraftTrait {
  userId: string
  userName: string
  name: string
  confidence: number
  turns: number[]
}

export interface Draft {
  entities: DraftEntity[]
  relations: DraftRelation[]
  preferences: DraftPreference[]
  traits: DraftTrait[]
}

const empty = (): Draft => ({ entities: [], relations: [], preferences: [], traits: [] })

/**
 * Reads the knowledge of a dialogue: what the model extracted when it gave entities, relations or
 * preferences; otherwise the offline NLP (jieba, compromise) and rule patterns. Never throws.
 */
export class KnowledgeExtractor {
  constructor(private readonly logger: Logger) {}

  extract(turns: Turn[], extraction?: Extraction, defaultUserId?: string): Draft {
    try {
      const given = extraction && (extraction.entities?.length || extraction.relations?.length || extraction.preferences?.length)
      return realNames(given ? fromModel(turns, extraction, defaultUserId) : offline(turns, defaultUserId))
    } catch (error) {
      this.logger.warn('could not read knowledge from a dialogue: %s', (error as Error).message)
      return empty()
    }
  }

  /** The entities and relations of a text no one in particular says (`textKnowledge`). Never throws. */
  extractText(text: string): Draft {
    try {
      return realNames(textKnowledge(text))
    } catch (error) {
      this.logger.warn('could not read knowledge from a text: %s', (error as Error).message)
      return empty()
    }
  }
}

/**
 * The knowledge of a text no one in particular says (a topic's summary): its named entities and the
 * relations the rules find between named parties. What a rule gives its speaker is left out (a summary
 * has none), and so are preferences and traits (a profile is built from the user's own words).
 */
export function textKnowledge(text: string): Draft {
  const draft = empty()
  const entity = (name: string, type: EntityType, confidence: number) => {
    if (!draft.entities.some((one) => one.name === name))
      draft.entities.push({ name, type, aliases: [], description: '', confidence, turns: [0] })
  }
  for (const named of namedEntities(statementsOf(text))) entity(named.name, named.type, CONFIDENCE.nlp)
  for (const relation of ruleFindings(text).relations) {
    const { subject, object } = relation
    if (subject === SPEAKER || object === SPEAKER || subject === object) continue
    entity(subject, 'PERSON', CONFIDENCE.rule)
    entity(object, relation.objectType, CONFIDENCE.rule)
    draft.relations.push({ subject, predicate: canonicalPredicate(relation.predicate), object, confidence: CONFIDENCE.rule, turns: [0] })
  }
  return draft
}

/** The speakers of a dialogue, each once: user id and the name shown. */
function speakers(turns: Turn[], defaultUserId?: string): Map<number, { userId: string; name: string }> {
  const byTurn = new Map<number, { userId: string; name: string }>()
  turns.forEach((turn, i) => {
    const userId = turn.userId ?? defaultUserId
    if (turn.role === 'user' && userId) byTurn.set(i, { userId, name: cleanName(turn.name) || userId })
  })
  return byTurn
}

function offline(turns: Turn[], defaultUserId?: string): Draft {
  const draft = empty()
  const bySpeaker = speakers(turns, defaultUserId)
  const speakerEntity = new Map<string, DraftEntity>()
  const speakerOf = (i: number) => {
    const speaker = bySpeaker.get(i)!
    let entity = speakerEntity.get(speaker.userId)
    if (!entity) {
      entity = {
        name: speaker.name,
        type: 'PERSON',
        aliases: [],
        description: '',
        confidence: CONFIDENCE.intro,
        turns: [],
        userId: speaker.userId,
      }
      speakerEntity.set(speaker.userId, entity)
      draft.entities.push(entity)
    }
    if (!entity.turns.includes(i)) entity.turns.push(i)
    return entity
  }
  for (const [i, speaker] of bySpeaker) {
    const text = turns[i].content
    const found = ruleFindings(text)
    for (const named of namedEntities(statementsOf(text))) {
      // the speaker is their own entity, under the name shown, with the one they introduced as an alias
      if (named.name === speaker.name || named.name === found.selfName) continue
      draft.entities.push({ ...named, aliases: [], description: '', confidence: CONFIDENCE.nlp, turns: [i] })
    }
    if (found.selfName && found.selfName !== speaker.name) speakerOf(i).aliases.push(found.selfName)
    const party = (value: Party, type: EntityType): string => {
      if (value === SPEAKER) return speakerOf(i).name
      draft.entities.push({ name: value, type, aliases: [], description: '', confidence: CONFIDENCE.rule, turns: [i] })
      return value
    }
    for (const relation of found.relations) {
      // what a rule types (住在 X is a place) wins over the tagger's guess for the same name
      draft.entities = draft.entities.filter((one) => one.userId || one.name !== relation.object || !one.turns.includes(i))
      const subject = party(relation.subject, 'PERSON')
      const object = party(relation.object, relation.objectType)
      draft.relations.push({ subject, predicate: canonicalPredicate(relation.predicate), object, confidence: CONFIDENCE.rule, turns: [i] })
    }
    for (const preference of found.preferences)
      draft.preferences.push({ ...preference, userId: speaker.userId, userName: speaker.name, confidence: CONFIDENCE.rule, turns: [i] })
    for (const name of found.traits)
      draft.traits.push({ userId: speaker.userId, userName: speaker.name, name, confidence: CONFIDENCE.rule, turns: [i] })
  }
  return draft
}

/** The model's entities, relations and preferences, kept only when they are well formed. */
function fromModel(turns: Turn[], extraction: Extraction, defaultUserId?: string): Draft {
  const draft = empty()
  const bySpeaker = speakers(turns, defaultUserId)
  const validTurns = (list: number[] | undefined) => (list ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < turns.length)
  const stated = statedBy(turns)
  const speakerNames = new Set([...bySpeaker.values()].map((one) => one.name))
  // every name the model gives must be one the dialogue states, not one it only asks about
  const said = (cited: number[] | undefined, ...names: string[]) =>
    stated(validTurns(cited)) && names.every((name) => speakerNames.has(name) || stated(validTurns(cited), name))
  const speakerNamed = (name: string | undefined) => {
    const wanted = name && cleanName(name)
    for (const [i, speaker] of bySpeaker) if (!wanted || speaker.name === wanted) return { ...speaker, turn: i }
    return undefined
  }
  for (const entity of extraction.entities ?? []) {
    const name = cleanName(String(entity.name ?? ''))
    if (!name || !said(entity.turns, name)) continue
    const speaker = entity.type === 'PERSON' ? [...bySpeaker.values()].find((one) => one.name === name) : undefined
    draft.entities.push({
      name,
      type: ENTITY_TYPES.includes(entity.type) ? entity.type : 'OTHER',
      aliases: (entity.aliases ?? []).map((alias) => cleanName(String(alias))).filter(Boolean),
      description: String(entity.description ?? '').trim(),
      confidence: CONFIDENCE.model,
      turns: validTurns(entity.turns),
      userId: speaker?.userId,
    })
  }
  for (const relation of extraction.relations ?? []) {
    const [subject, object] = [cleanName(String(relation.subject ?? '')), cleanName(String(relation.object ?? ''))]
    const predicate = String(relation.predicate ?? '').trim()
    if (!subject || !object || !predicate || subject === object || !said(relation.turns, subject, object)) continue
    // a speaker named as an end is an entity even when the model did not list them
    for (const end of [subject, object]) {
      const speaker = speakerNamed(end)
      if (speaker && speaker.name === end && !draft.entities.some((entity) => entity.name === end))
        draft.entities.push({
          name: end,
          type: 'PERSON',
          aliases: [],
          description: '',
          confidence: CONFIDENCE.model,
          turns: [speaker.turn],
          userId: speaker.userId,
        })
    }
    draft.relations.push({
      subject,
      predicate: canonicalPredicate(predicate),
      object,
      confidence: CONFIDENCE.model,
      turns: validTurns(relation.turns),
    })
  }
  for (const preference of extraction.preferences ?? []) {
    const [key, value] = [String(preference.key ?? '').trim(), String(preference.value ?? '').trim()]
    const speaker = preference.about || bySpeaker.size <= 1 ? speakerNamed(preference.about) : undefined
    if (!key || !value || !speaker || isVagueValue(value) || !said(preference.turns, value)) continue
    // a profile is built from the user's own words: turns cited must be theirs
    const own = validTurns(preference.turns).filter((i) => bySpeaker.get(i)?.userId === speaker.userId)
    if (preference.turns?.length && !own.length) continue
    draft.preferences.push({ userId: speaker.userId, userName: speaker.name, key, value, confidence: CONFIDENCE.model, turns: own })
  }
  return draft
}

/**
 * Whether the cited turns (all turns when none are cited) state anything, and, with a name, whether
 * they state it: a name the dialogue says only in a question, a request, a hypothetical or a wish is
 * refused; one it does not say word for word (a translation, a fuller name) is taken from a statement.
 */
function statedBy(turns: Turn[]): (cited: number[], name?: string) => boolean {
  const statements = turns.map((turn) => nameKey(statementsOf(turn.content)))
  const raw = turns.map((turn) => nameKey(turn.content))
  return (cited, name) => {
    const which = cited.length ? cited : turns.map((_, i) => i)
    if (!which.some((i) => statements[i])) return false
    if (name === undefined) return true
    const key = nameKey(name)
    return which.some((i) => statements[i].includes(key)) || !turns.some((_, i) => raw[i].includes(key))
  }
}

/** The draft without what names nothing (哪里, this, 吉他 taken for a place): the speakers stay. */
function realNames(draft: Draft): Draft {
  const speakerNames = new Set(draft.entities.filter((entity) => entity.userId).map((entity) => entity.name))
  const real = (name: string) => speakerNames.has(name) || isEntityName(name)
  return {
    ...draft,
    entities: draft.entities.filter((entity) => entity.userId || isEntityName(entity.name)),
    relations: draft.relations.filter((relation) => real(relation.subject) && real(relation.object)),
    preferences: draft.preferences.filter((preference) => !isVagueValue(preference.value)),
  }
}
