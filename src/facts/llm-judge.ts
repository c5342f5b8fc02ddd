import { z } from 'zod'
import { generateStructured } from '../providers/structured'
import type { LLM } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import { resolveRelativeDates } from '../text/dates'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { isQuestion } from '../text/questions'
import type { ExtractedFact, Extraction, ExtractOptions, KnownFact, MemoryJudge, Turn } from './judge'
import { readKnowledge } from './knowledge-answer'
import type { JudgePrompts } from './prompts'
import { fillPrompt } from './prompts'
import { drawnOnlyFromQuestions } from './question-evidence'

export interface LlmJudgeOptions {
  counters?: Counters
  logger?: Logger
}

/** Most facts kept from one dialogue: a longer list is a model listing the whole conversation. */
const MAX_FACTS = 12

const About = z.string().nullish()
/** Read leniently after parsing: a `replaces` or `since` the judge cannot use is ignored, never an error. */
const Loose = z.unknown().optional()

interface FactAnswer {
  statement: string
  about?: string
  replaces?: unknown
  since?: unknown
}

const withText = (statement: string, item: { about?: string | null; replaces?: unknown; since?: unknown }): FactAnswer => ({
  statement,
  about: item.about ?? undefined,
  replaces: item.replaces,
  since: item.since,
})

/** A fact as `{about, fact}`, as a bare string (a dialogue of one user), or as another wrapping some models use. */
const FactItem = z.union([
  z.string().transform((statement): FactAnswer => ({ statement })),
  z.object({ fact: z.string(), about: About, replaces: Loose, since: Loose }).transform((item) => withText(item.fact, item)),
  z.object({ statement: z.string(), about: About, replaces: Loose, since: Loose }).transform((item) => withText(item.statement, item)),
  z.object({ text: z.string(), about: About, replaces: Loose, since: Loose }).transform((item) => withText(item.text, item)),
])

interface Answer {
  facts: FactAnswer[]
  reason?: string | null
  entities?: unknown
  relations?: unknown
  preferences?: unknown
}

/** `{"facts": [...], "entities": [...], ...}`; a bare list is read as the facts. The knowledge parts are read by `readKnowledge`. */
const ExtractionAnswer = z.preprocess(
  (value) => (Array.isArray(value) ? { facts: value } : value),
  z.object({ facts: z.array(FactItem), reason: z.string().nullish(), entities: Loose, relations: Loose, preferences: Loose }),
) as z.ZodType<Answer>

const STRING = { type: 'string' }
const STRINGS = { type: 'array', items: STRING }

/** The same shape as JSON schema, for providers that constrain their output with one. */
const EXTRACTION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    facts: {
      type: 'array',
      items: {
        type: 'object',
        properties: { about: STRING, fact: STRING, replaces: STRING, since: STRING },
        required: ['about', 'fact'],
      },
    },
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: STRING, type: STRING, aliases: STRINGS, description: STRING },
        required: ['name', 'type'],
      },
    },
    relations: {
      type: 'array',
      items: {
        type: 'object',
        properties: { subject: STRING, predicate: STRING, object: STRING },
        required: ['subject', 'predicate', 'object'],
      },
    },
    preferences: {
      type: 'array',
      items: { type: 'object', properties: { about: STRING, key: STRING, value: STRING }, required: ['key', 'value'] },
    },
  },
  required: ['facts'],
}

/** `[k1] Alice: Alice lives in Chengdu.` lines: short keys the model can name, each standing for a fact id. */
function renderKnown(known: KnownFact[], language: Language): string {
  if (!known.length) return language === 'zh' ? '（无）' : '(none)'
  return known.map((fact, i) => `[k${i + 1}] ${fact.about}: ${fact.statement.replace(/\s*\n\s*/g, ' ')}`).join('\n')
}

const normalized = (text: string) =>
  cleanStatement(text)
    .toLowerCase()
    .replace(/[\s。.!！]+$/u, '')

/** The ids of the known facts a `replaces` names, by key (`k2`, `[k2]`) or by statement; others are dropped. */
function replacedIds(value: unknown, known: KnownFact[]): string[] | undefined {
  const names = (Array.isArray(value) ? value : [value]).filter((name): name is string => typeof name === 'string' && Boolean(name.trim()))
  if (!names.length) return undefined
  const ids = names.flatMap((name) => {
    const key = /^\[?k(\d+)\]?$/i.exec(name.trim())
    if (key) return known[Number(key[1]) - 1]?.id ?? []
    return known.find((fact) => fact.id === name.trim() || normalized(fact.statement) === normalized(name))?.id ?? []
  })
  return ids.length ? [...new Set(ids)] : undefined
}

/** A `since` date the judge gave (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`), not after the dialogue. */
function sinceDate(value: unknown, time: Date): Date | undefined {
  if (typeof value !== 'string') return undefined
  const match = /^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?$/.exec(value.trim())
  if (!match) return undefined
  const date = new Date(Number(match[1]), Number(match[2] ?? 1) - 1, Number(match[3] ?? 1))
  return Number.isNaN(date.getTime()) || date > time ? undefined : date
}

const pad = (n: number) => String(n).padStart(2, '0')
const ZH_WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六']
const EN_WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/** `2026-11-26 10:05 Thu` (`周四` in Chinese), in the server's local time. */
export function formatTime(time: Date, language: Language): string {
  const day = language === 'zh' ? `周${ZH_WEEKDAYS[time.getDay()]}` : EN_WEEKDAYS[time.getDay()]
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ${pad(time.getHours())}:${pad(time.getMinutes())} ${day}`
}

/** `[time] name: content` lines, one per turn (line breaks inside a message become spaces; no time, no brackets). */
export function renderConversation(conversation: Turn[], language: Language = 'en'): string {
  return conversation
    .map((turn) => {
      const time = turn.time ? `[${formatTime(turn.time, language)}] ` : ''
      return `${time}${turn.name?.trim() || turn.role}: ${turn.content.replace(/\s*\n\s*/g, ' ').trim()}`
    })
    .join('\n')
}

/**
 * Language of the memory: that of what the users said (the bot may answer in another language);
 * the whole conversation when the users said nothing with letters.
 */
export function conversationLanguage(conversation: Turn[]): Language {
  const userText = conversation
    .filter((t) => t.role === 'user')
    .map((t) => t.content)
    .join('\n')
  const allText = conversation.map((t) => t.content).join('\n')
  return detectLanguage(userText, detectLanguage(allText))
}

/** The time of the dialogue: its last turn with a time, else `now`. */
export function dialogueTime(conversation: Turn[], now: Date): Date {
  for (let i = conversation.length - 1; i >= 0; i--) {
    const time = conversation[i].time
    if (time) return time
  }
  return now
}

const LABEL = /^(?:fact|statement|memory|summary|事实|记忆|总结)\s*[:：]\s*/i
const LIST_MARKER = /^(?:[-*•]\s+|\d+[.)、]\s*)/
const QUOTES: [string, string][] = [
  ['"', '"'],
  ["'", "'"],
  ['“', '”'],
  ['‘', '’'],
  ['「', '」'],
  ['『', '』'],
  ['`', '`'],
]

/** One clean statement: no list marker, label, bold or wrapping quotes, one line. */
export function cleanStatement(text: string): string {
  let line = text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\*\*/g, '')
    .trim()
  line = line.replace(LIST_MARKER, '').replace(LABEL, '').trim()
  for (let changed = true; changed;) {
    changed = false
    for (const [open, close] of QUOTES) {
      if (line.length >= 2 && line.startsWith(open) && line.endsWith(close)) {
        line = line.slice(open.length, -close.length).trim()
        changed = true
      }
    }
  }
  return line
}

/**
 * The model's judge: ONE structured call per finished dialogue (`generateStructured`: JSON mode,
 * tolerant reading, one corrective retry) lists the facts, each a third-person statement in the
 * language of the conversation, with relative times made absolute by the model from each turn's time.
 * What comes back is cleaned: questions are dropped (a model sometimes keeps one), duplicates too, and
 * a relative date the model left is resolved against the dialogue's time. The same answer says which
 * known fact a new one replaces, since when it is true, and the entities, relations and preferences
 * the dialogue names.
 */
export class LlmJudge implements MemoryJudge {
  readonly id: string
  readonly readsKnownFacts = true

  constructor(
    private readonly llm: LLM,
    private readonly prompts: JudgePrompts,
    private readonly options: LlmJudgeOptions = {},
  ) {
    this.id = llm.id
  }

  async extract(conversation: Turn[], { now, known = [] }: ExtractOptions): Promise<Extraction> {
    const language = conversationLanguage(conversation)
    const time = dialogueTime(conversation, now)
    const prompt = fillPrompt(
      this.prompts.extraction[language],
      renderConversation(conversation, language),
      formatTime(time, language),
      renderKnown(known, language),
    )
    const answer = await generateStructured(this.llm, prompt, ExtractionAnswer, {
      label: 'judge.extract',
      counters: this.options.counters,
      logger: this.options.logger,
      temperature: 0,
      jsonSchema: EXTRACTION_JSON_SCHEMA,
    })
    const seen = new Set<string>()
    const facts: ExtractedFact[] = []
    let questions = 0
    for (const item of answer.facts) {
      const statement = cleanStatement(item.statement)
      if (!/[\p{L}\p{N}]/u.test(statement) || seen.has(statement)) continue
      // a fact told only by a question, a request or a hypothetical of the user is no fact, whatever the prompt said
      if (isQuestion(statement, detectLanguage(statement, language)) || drawnOnlyFromQuestions(statement, conversation)) {
        questions++
        continue
      }
      seen.add(statement)
      const about = item.about?.trim()
      const replaces = replacedIds(item.replaces, known)
      const validFrom = sinceDate(item.since, time)
      facts.push({
        statement: resolveRelativeDates(statement, time, detectLanguage(statement, language)),
        ...(about && { about }),
        ...(replaces && { replaces }),
        ...(validFrom && { validFrom }),
      })
    }
    if (questions) this.options.counters?.inc('judge.questions-dropped', questions)
    const reason =
      answer.reason?.trim() || (facts.length ? `${this.llm.id}: ${facts.length} fact(s)` : `${this.llm.id}: nothing worth keeping`)
    return { facts: facts.slice(0, MAX_FACTS), reason, ...readKnowledge(answer) }
  }
}
