import { z } from 'zod'
import { generateStructured } from '../providers/structured'
import type { LLM } from '../providers/types'
import { ProviderError } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { stripThinking } from '../text/json'
import type { Decision, MemoryJudge, Turn } from './judge'
import type { JudgePrompts } from './prompts'
import { fillPrompt } from './prompts'

export interface LlmJudgeOptions {
  counters?: Counters
  logger?: Logger
}

/** The decision answer, in the snake_case the prompt asks for. */
const DecisionAnswer = z.object({
  should_remember: z.boolean(),
  reason: z.string().nullish(),
})

/** The same shape as JSON schema, for providers that constrain their output with one. */
const DECISION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    should_remember: { type: 'boolean' },
    reason: { type: 'string' },
  },
  required: ['should_remember'],
}

/** `name: content` lines, one per turn (line breaks inside a message become spaces). */
export function renderConversation(conversation: Turn[]): string {
  return conversation.map((turn) => `${turn.name?.trim() || turn.role}: ${turn.content.replace(/\s*\n\s*/g, ' ').trim()}`).join('\n')
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

/** Labels models put before the statement, in both languages. */
const SUMMARY_LABEL = /^(?:summary|statement|memory|answer|总结|摘要|概括|记忆|回答)\s*[:：]\s*/i
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

/** One clean line from a summariser answer: no reasoning, fences, labels, list markers, bold or wrapping quotes. */
export function cleanSummary(answer: string): string {
  const lines = stripThinking(answer)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !/^(?:```|~~~)/.test(line))
  for (let line of lines) {
    line = line.replace(/\*\*/g, '').replace(LIST_MARKER, '').replace(SUMMARY_LABEL, '').trim()
    for (let changed = true; changed;) {
      changed = false
      for (const [open, close] of QUOTES) {
        if (line.length >= 2 && line.startsWith(open) && line.endsWith(close)) {
          line = line.slice(open.length, -close.length).trim()
          changed = true
        }
      }
    }
    if (line) return line
  }
  return ''
}

/**
 * The seed's decide → summarise chain on an LLM. The prompt is picked by the language of the
 * conversation, so a Chinese conversation is judged and summarised in Chinese. `decide` goes through
 * `generateStructured` (JSON mode, repair, one corrective retry); `summarize` is a plain-text call
 * reduced to one clean line.
 */
export class LlmJudge implements MemoryJudge {
  readonly id: string

  constructor(
    private readonly llm: LLM,
    private readonly prompts: JudgePrompts,
    private readonly options: LlmJudgeOptions = {},
  ) {
    this.id = llm.id
  }

  async decide(conversation: Turn[]): Promise<Decision> {
    const language = conversationLanguage(conversation)
    const prompt = fillPrompt(this.prompts.decision[language], renderConversation(conversation))
    const answer = await generateStructured(this.llm, prompt, DecisionAnswer, {
      label: 'judge.decide',
      counters: this.options.counters,
      logger: this.options.logger,
      temperature: 0,
      jsonSchema: DECISION_JSON_SCHEMA,
    })
    return { shouldRemember: answer.should_remember, reason: answer.reason?.trim() ?? '' }
  }

  async summarize(conversation: Turn[]): Promise<string> {
    const language = conversationLanguage(conversation)
    const prompt = fillPrompt(this.prompts.summarizer[language], renderConversation(conversation))
    let answer: string
    try {
      answer = await this.llm.generate(prompt, { temperature: 0.2 })
    } catch (error) {
      this.options.counters?.inc('llm.error')
      const status = error instanceof ProviderError && error.status !== undefined ? ` (HTTP ${error.status})` : ''
      this.options.logger?.warn('judge.summarize: %s call failed%s: %s', this.llm.id, status, (error as Error).message)
      throw error
    }
    const summary = cleanSummary(answer)
    if (!summary) {
      this.options.counters?.inc('llm.invalid')
      throw new Error(`judge.summarize: ${this.llm.id} returned an empty summary`)
    }
    return summary
  }
}
