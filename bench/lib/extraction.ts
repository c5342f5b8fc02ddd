import type { Turn } from '../../src/facts'

/** One labelled line of test/fixtures/extraction.jsonl: what a careful reader would store of it. */
export interface LabelledLine {
  id: string
  lang: 'zh' | 'en'
  chat: 'private' | 'group'
  speaker: string
  /** Local time the line was said, `YYYY-MM-DDTHH:mm`. */
  time: string
  text: string
  split: 'dev' | 'heldout'
  /** question, request, hypothetical, negated-wish, said-to, smalltalk, reported, event, pet, job… */
  kind: string
  /** The line before it in a group chat, by someone else. */
  prev?: { speaker: string; text: string }
  expect: 'none' | 'self' | 'other' | 'event'
  /** Who the fact is about, as the fact should name them ("Alice's brother", "小明的妹妹"); the speaker when absent. */
  about?: string
  /** An event's absolute date: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (the first day of a week or weekend). */
  date?: string
  /** Words the fact must keep as said. */
  keep?: string
}

/** Lines that ask, request or suppose: nothing of them may be stored. */
export const NOT_MEMORY_KINDS = new Set(['question', 'request', 'hypothetical', 'negated-wish'])

export function localTime(time: string): Date {
  const [date, clock = '00:00'] = time.split('T')
  const [y, m, d] = date.split('-').map(Number)
  const [hh, mm] = clock.split(':').map(Number)
  return new Date(y, m - 1, d, hh, mm)
}

/** The line as a dialogue: the line before it (group chat) and the line itself, the last turn. */
export function dialogueOf(line: LabelledLine): Turn[] {
  const time = localTime(line.time)
  const turns: Turn[] = []
  if (line.prev) turns.push({ role: 'user', name: line.prev.speaker, content: line.prev.text, time: new Date(time.getTime() - 60_000) })
  turns.push({ role: 'user', name: line.speaker, content: line.text, time })
  return turns
}

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** Whether a fact writes the labelled date: the day ("March 16" / "3月16日") or the month or year, with its year. */
export function writesDate(fact: string, date: string, lang: 'zh' | 'en'): boolean {
  const [y, m, d] = date.split('-').map(Number)
  if (!m) return fact.includes(String(y))
  if (lang === 'zh') return fact.includes(d ? `${y}年${m}月${d}日` : `${y}年${m}月`)
  if (!d) return fact.includes(`${EN_MONTHS[m - 1]} ${y}`)
  return fact.includes(`${EN_MONTHS[m - 1]} ${d}`) && fact.includes(String(y))
}

/** Verbs ending in -ly whose third person ends in -lies: not an adverb conjugated ("completelies"). */
const LY_VERBS = new Set(['fly', 'apply', 'rely', 'reply', 'supply', 'ally', 'rally', 'bully', 'tally', 'multiply', 'comply', 'imply', 'sully'])
const ADVERBS_CONJUGATED =
  /\b(?:onces|alreadys|alsos|justs|evens|stills|nevers|alwayss|oftens|reallys|actuallys|kindas|sometimeses|almosts|finallys|totallys)\b/i

/** The parts of a fact in the speaker's own voice are quoted or follow "said:" / "说：": they keep the first person. */
function ownVoiceRemoved(fact: string): string {
  return fact
    .replace(/"[^"]*"|\u201c[^\u201d]*\u201d|「[^」]*」/g, ' ')
    .replace(/\b(?:said|told [^:]{1,40}):.*$/s, ' ')
    .replace(/说[：:].*$/s, ' ')
}

/**
 * Why a stored fact's third-person form is garbled, or undefined: an adverb conjugated as a verb
 * ("completelies", "onces"), the first person left in the third-person form ("Alice and others …
 * ourselves"), a date glued to a possessive ("…, 2023's conversation"), a name with a plural verb
 * ("Alice are"), or the name doubled.
 */
export function garbledBy(fact: string, name: string): string | undefined {
  for (const word of fact.match(/\b[a-z]{4,}lies\b/gi) ?? []) {
    if (!LY_VERBS.has(`${word.slice(0, -3).toLowerCase()}y`)) return `adverb conjugated: ${word}`
  }
  if (ADVERBS_CONJUGATED.test(fact)) return 'adverb conjugated'
  const third = ownVoiceRemoved(fact)
  if (/\b(?:I|me|my|mine|myself|we|us|our|ourselves)\b/.test(third.replace(/\bI\.?$/, ''))) return 'first person left in the third-person form'
  if (/[我咱]/.test(third)) return '第一人称留在第三人称的事实里'
  if (/\d{4}['\u2019]s\b|\b(?:morning|afternoon|evening|night) of [^.]{0,40}\d{4}['\u2019]s/.test(fact)) return 'date glued to a possessive'
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  // "Mike's wife and Mike are…" is a compound subject
  if (new RegExp(`(?<!\\band )(?:^|(?<=[^\\w']))${escaped} (?:am|are|were|have|do|don't|haven't)\\b`).test(third)) return 'name with a first-person verb'
  if (fact.includes(`${name}${name}`) || fact.includes(`${name} ${name}`)) return 'name doubled'
  return undefined
}

export interface LineResult {
  line: LabelledLine
  facts: string[]
}

export interface ExtractionScores {
  lines: number
  precision: number
  recall: number
  event_kept: number
  subject_correct: number
  garbled: number
  words_lost: number
  questions_stored: number
}

const ratio = (n: number, d: number) => (d ? Math.round((n / d) * 10_000) / 10_000 : 1)

/** Whether the facts name who the line is about (the speaker, or the person labelled). */
export function namesSubject(result: LineResult): boolean {
  const who = result.line.about ?? result.line.speaker
  return result.facts.some((fact) => fact.includes(who))
}

export function scoreLines(results: LineResult[]): ExtractionScores {
  const kept = results.filter((r) => r.facts.length)
  const worth = results.filter((r) => r.line.expect !== 'none')
  const keptWorth = kept.filter((r) => r.line.expect !== 'none')
  const events = results.filter((r) => r.line.expect === 'event')
  const eventsKept = events.filter((r) => r.facts.some((fact) => writesDate(fact, r.line.date!, r.line.lang)))
  const garbled = kept.reduce((n, r) => n + r.facts.filter((fact) => garbledBy(fact, r.line.speaker)).length, 0)
  const wordsLost = keptWorth.filter((r) => r.line.keep && !r.facts.some((fact) => fact.includes(r.line.keep!))).length
  return {
    lines: results.length,
    precision: ratio(keptWorth.length, kept.length),
    recall: ratio(keptWorth.length, worth.length),
    event_kept: ratio(eventsKept.length, events.length),
    subject_correct: ratio(keptWorth.filter(namesSubject).length, keptWorth.length),
    garbled: garbled + wordsLost,
    words_lost: wordsLost,
    questions_stored: kept.filter((r) => NOT_MEMORY_KINDS.has(r.line.kind)).length,
  }
}
