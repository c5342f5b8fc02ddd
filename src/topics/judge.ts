import { z } from 'zod'
import { generateStructured } from '../providers/structured'
import type { LLM } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { MessageRow } from '../messages'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { cleanTitle } from './keywords'
import type { TopicPrompts } from './prompts'
import { DEFAULT_TOPIC_PROMPTS, fillTopicPrompt } from './prompts'

/** A topic as the judge sees it: its title and its most recent messages (oldest first). */
export interface TopicCandidate {
  title: string
  messages: Pick<MessageRow, 'userName' | 'userId' | 'content'>[]
}

/** The judge's answer: the index of a candidate (0-based), or a new topic with its title if it gave one. */
export type TopicChoice = { kind: 'topic'; index: number } | { kind: 'new'; title: string }

/** LLM-assisted attribution (design §2.2). Both methods throw when no usable answer came. */
export interface TopicJudge {
  readonly id: string
  choose(message: Pick<MessageRow, 'userName' | 'userId' | 'content'>, candidates: TopicCandidate[]): Promise<TopicChoice>
  title(message: Pick<MessageRow, 'userName' | 'userId' | 'content'>): Promise<string>
}

/** Longest message text shown to the model, in characters. */
const MAX_LINE = 200

/** `name: content` on one line, clipped. */
export function renderLine(message: Pick<MessageRow, 'userName' | 'userId' | 'content'>): string {
  const text = message.content.replace(/\s*\n\s*/g, ' ').trim()
  const chars = [...text]
  const clipped = chars.length > MAX_LINE ? `${chars.slice(0, MAX_LINE).join('')}…` : text
  return `${message.userName?.trim() || message.userId}: ${clipped}`
}

/** Numbered candidates (from 1) with their titles and recent messages. */
export function renderCandidates(candidates: TopicCandidate[], language: Language): string {
  const [topicLabel, recentLabel, none] = language === 'zh' ? ['话题', '最近的消息', '（无）'] : ['Topic', 'Recent messages', '(none)']
  return candidates
    .map((candidate, i) => {
      const lines = candidate.messages.length ? candidate.messages.map((m) => `   - ${renderLine(m)}`) : [`   ${none}`]
      return [`${i + 1}. ${topicLabel}: ${candidate.title}`, `   ${recentLabel}:`, ...lines].join('\n')
    })
    .join('\n')
}

const NEW_WORDS = /^(?:new|new topic|none|新|新话题|新主题|无)$/i

/** A candidate number (1…count), `'new'`, or undefined when the answer is neither. `null` counts as new. */
function readChoice(value: number | string | null, count: number): number | 'new' | undefined {
  if (value === null) return 'new'
  if (typeof value === 'string') {
    const text = value.trim()
    if (NEW_WORDS.test(text)) return 'new'
    if (!/^\d+$/.test(text)) return undefined
    value = Number(text)
  }
  return Number.isInteger(value) && value >= 1 && value <= count ? value : undefined
}

/** `{"topic": 2}` / `{"topic": "2"}` / `{"topic": "new", "title": …}`. */
function choiceSchema(count: number) {
  return z.object({
    topic: z.union([z.number(), z.string(), z.null()]).superRefine((value, ctx) => {
      if (readChoice(value, count) === undefined) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be a topic number from 1 to ${count}, or "new"` })
      }
    }),
    title: z.string().nullish(),
  })
}

function choiceJsonSchema(count: number) {
  return {
    type: 'object',
    properties: {
      topic: {
        anyOf: [
          { type: 'integer', minimum: 1, maximum: count },
          { type: 'string', enum: ['new'] },
        ],
      },
      title: { type: 'string' },
    },
    required: ['topic'],
  }
}

const TitleAnswer = z.object({ title: z.string() })
const TITLE_JSON_SCHEMA = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }

export interface LlmTopicJudgeOptions {
  prompts?: TopicPrompts
  counters?: Counters
  logger?: Logger
}

/**
 * The judge on an LLM. Candidates are shown numbered 1…n and the answer is mapped back to them by
 * index, so the model can only pick a topic it was shown. Calls go through `generateStructured`
 * (JSON mode, repair, one corrective retry); the prompt follows the language of the message.
 */
export class LlmTopicJudge implements TopicJudge {
  readonly id: string
  private prompts: TopicPrompts

  constructor(
    private llm: LLM,
    private options: LlmTopicJudgeOptions = {},
  ) {
    this.id = llm.id
    this.prompts = options.prompts ?? DEFAULT_TOPIC_PROMPTS
  }

  async choose(message: Pick<MessageRow, 'userName' | 'userId' | 'content'>, candidates: TopicCandidate[]): Promise<TopicChoice> {
    if (!candidates.length) throw new RangeError('topic.choose: no candidates')
    const language = detectLanguage(message.content, detectLanguage(candidates.map((c) => c.title).join(' ')))
    const prompt = fillTopicPrompt(this.prompts.choose[language], {
      message: renderLine(message),
      candidates: renderCandidates(candidates, language),
    })
    const answer = await generateStructured(this.llm, prompt, choiceSchema(candidates.length), {
      label: 'topic.choose',
      counters: this.options.counters,
      logger: this.options.logger,
      temperature: 0,
      jsonSchema: choiceJsonSchema(candidates.length),
    })
    const topic = readChoice(answer.topic, candidates.length)!
    if (topic === 'new') return { kind: 'new', title: cleanTitle(answer.title ?? '') }
    return { kind: 'topic', index: topic - 1 }
  }

  async title(message: Pick<MessageRow, 'userName' | 'userId' | 'content'>): Promise<string> {
    const language = detectLanguage(message.content)
    const prompt = fillTopicPrompt(this.prompts.title[language], { message: renderLine(message) })
    const answer = await generateStructured(this.llm, prompt, TitleAnswer, {
      label: 'topic.title',
      counters: this.options.counters,
      logger: this.options.logger,
      temperature: 0.2,
      jsonSchema: TITLE_JSON_SCHEMA,
    })
    const title = cleanTitle(answer.title)
    if (!title) throw new Error('topic.title: empty title')
    return title
  }
}
