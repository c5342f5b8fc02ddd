/** One line of a finished dialogue, oldest first. */
export interface Turn {
  role: 'user' | 'assistant'
  name: string
  content: string
  /** When it was said: relative dates in it ("明天", "next Monday") are resolved against it. */
  time?: Date
  /** Who said it (a user turn); a group dialogue has several speakers. */
  userId?: string
}

/** One atomic fact: a self-contained third-person statement that names the user. */
export interface ExtractedFact {
  statement: string
  /** Indexes in the conversation of the turns it was drawn from; absent when the judge cannot tell. */
  turns?: number[]
  /** The name (as shown in the conversation) of the person the fact is about, when the judge says it. */
  about?: string
  /** Ids of the known facts (`ExtractOptions.known`) this one contradicts; absent when the judge says nothing. */
  replaces?: string[]
  /** When it became true, when the statement gives a date; else the time it was said. */
  validFrom?: Date
  /** Why this fact was kept, when the judge can say it of each fact; else the extraction's reason stands. */
  reason?: string
}

/** A current fact of a speaker, shown to the judge so it can tell which of them a new fact replaces. */
export interface KnownFact {
  id: string
  /** The speaker's name as shown in the conversation. */
  about: string
  statement: string
}

export type EntityType = 'PERSON' | 'LOCATION' | 'ORGANIZATION' | 'PRODUCT' | 'EVENT' | 'OTHER'

/** Something the dialogue names (design §4.5): a person, a place, an organisation, a product, an event. */
export interface ExtractedEntity {
  name: string
  type: EntityType
  aliases?: string[]
  description?: string
  /** Indexes of the turns it was drawn from. */
  turns?: number[]
}

/** `subject —predicate→ object` between two entities the dialogue names (design §4.5), predicate in the language spoken. */
export interface ExtractedRelation {
  subject: string
  predicate: string
  object: string
  turns?: number[]
}

/** A preference of a speaker (design §4.6): `key` (食物, music) → `value` (火锅, jazz). */
export interface ExtractedPreference {
  /** The speaker's name as shown in the conversation; absent with one speaker. */
  about?: string
  key: string
  value: string
  turns?: number[]
}

export interface Extraction {
  /** Empty when nothing is worth keeping. */
  facts: ExtractedFact[]
  reason: string
  /** Structured knowledge read in the same call (absent when the judge gives none). */
  entities?: ExtractedEntity[]
  relations?: ExtractedRelation[]
  preferences?: ExtractedPreference[]
}

export interface ExtractOptions {
  /** The dialogue's time, for turns that carry none. */
  now: Date
  /** The speakers' current facts nearest to what they said (a judge that `readsKnownFacts`). */
  known?: KnownFact[]
}

/** Reads a finished dialogue and states each fact worth keeping about its users, one statement per fact. */
export interface MemoryJudge {
  readonly id: string
  /** Whether `extract` reads `known`: only then are a speaker's current facts looked up before the call. */
  readonly readsKnownFacts?: boolean
  /** Throws when the extraction could not be made (provider down, answer invalid after the retry). */
  extract(conversation: Turn[], options: ExtractOptions): Promise<Extraction>
}
