/** What the offline judge (rule-judge.ts) asks of each language it reads, and what the languages share. */

export type FactCategory =
  | 'request'
  | 'identity'
  | 'job'
  | 'school'
  | 'home'
  | 'family'
  | 'pet'
  | 'learning'
  | 'hobby'
  | 'preference'
  | 'health'
  | 'possession'
  | 'birthday'
  | 'plan'
  /** Anything else the speaker says of their own life: what they did, do, plan, own or feel about something of theirs. */
  | 'life'

export const CATEGORY_ORDER: FactCategory[] = [
  'request',
  'identity',
  'job',
  'school',
  'home',
  'family',
  'pet',
  'learning',
  'hobby',
  'preference',
  'health',
  'possession',
  'birthday',
  'plan',
  'life',
]

/** A test per kind of fact: does the statement state one of that kind. */
export type Rules = Partial<Record<FactCategory, (statement: string) => boolean>>

/** The kinds of fact `rules` find in a statement, in `CATEGORY_ORDER`. */
export function categoriesBy(rules: Rules, statement: string): FactCategory[] {
  return CATEGORY_ORDER.filter((category) => rules[category]?.(statement))
}

export interface Statement {
  text: string
  categories: FactCategory[]
}

/** The rules of one language: how its sentences are cut into statements, judged and told in the third person. */
export interface LanguageRules {
  /** What the speaker is called when the turn gives no name. */
  unnamed: string
  /** Whether a statement starts with a capital letter, also when a date resolved at its head starts it. */
  capitalised: boolean
  /** Whether a sentence asks to remember what it says. */
  asksToRemember(sentence: string): boolean
  /** Whether anything is left to remember once a request is taken off ("记住哦", "remember this" leave nothing). */
  hasContentBeyondRequest(text: string): boolean
  /** A statement about the speaker that asks nothing, for a request to remember it. */
  isRequestable(statement: string): boolean
  /** The statements of one sentence, each with the kinds of fact it states (none for what is not worth keeping). */
  statements(sentence: string): Statement[]
  /** A sentence that goes on about what the sentence before said without naming it again, and joins that fact. */
  continues?(sentence: string): boolean
  /**
   * Whether a sentence of an answer to a question about the speaker says something of substance of
   * their own ("It was amazing, exploring the city was the best part"): no question, no request, no
   * advice or plan for the listener, no reaction or small talk.
   */
  tellsInAnswer(sentence: string): boolean
  /** A question to the listener ("How was your trip?", "What kind are they?", "你新工作怎么样？"), which the next speaker answers of their own. */
  asksAboutListener(sentence: string): boolean
  /** The answer kept in the speaker's words, with the question it answers: `Alice, asked "…", said: …`. */
  answered(question: string, answer: string, name: string): string
  /**
   * The statement in the third person with the speaker's name; empty when nothing is left of it. Where
   * the third person would change the speaker's words (said to someone: "you"; a verb it cannot
   * conjugate for sure), the words are kept, named: "Alice said: …", "Alice told Bob: …" (`addressee`).
   */
  rewrite(statement: string, name: string, addressee?: string): string
}

export function stripTrailingEmoji(text: string): string {
  return text.replace(/[\s\p{Extended_Pictographic}\u{FE0F}\u{200D}]+$/u, '').replace(/[\s，,。.！!？?~～…]+$/u, '')
}
