import type { LLM } from '../providers/types'
import { contentTerms } from '../text/keywords'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { splitSentences } from '../text/sentences'
import { countTokens, truncateToTokens } from '../text/token-count'

/**
 * Conversation summarisers for the rolling summary: one over an LLM, one extractive that needs
 * nothing (the offline default). Both are incremental: they get the previous summary and the
 * messages said since, and return the new summary in the conversation's language.
 */

export interface SummaryLine {
  name: string
  content: string
}

export interface SummarizeInput {
  /** The summary so far ('' for the first). */
  previous: string
  /** Messages that left the recent window since the previous summary, oldest first. */
  messages: SummaryLine[]
  /** Most tokens of the result. */
  maxTokens: number
}

export interface ConversationSummarizer {
  readonly id: string
  /** Throws when the summary could not be made. */
  summarize(input: SummarizeInput): Promise<string>
}

const PROMPTS: Record<Language, (input: SummarizeInput) => string> = {
  zh: (input) =>
    [
      '你在为群聊/私聊维护一份滚动摘要，供聊天机器人回复时参考。',
      `请把"已有摘要"和"新消息"合并成一份新的摘要：简洁、客观、用第三人称，保留人名、事实、计划、偏好、时间和未解决的问题，去掉寒暄和重复；不超过 ${input.maxTokens} 个 token。只输出摘要正文。`,
      '',
      `已有摘要：${input.previous || '（无）'}`,
      '',
      '新消息：',
      ...input.messages.map((line) => `${line.name}: ${line.content}`),
    ].join('\n'),
  en: (input) =>
    [
      'You maintain a rolling summary of a chat, which a chatbot reads before it replies.',
      `Merge the "summary so far" and the "new messages" into one new summary: concise, factual, third person; keep names, facts, plans, preferences, dates and open questions; drop greetings and repetition; at most ${input.maxTokens} tokens. Output only the summary text.`,
      '',
      `Summary so far: ${input.previous || '(none)'}`,
      '',
      'New messages:',
      ...input.messages.map((line) => `${line.name}: ${line.content}`),
    ].join('\n'),
}

/** A summariser over a chat model, prompted in the conversation's language. */
export class LlmSummarizer implements ConversationSummarizer {
  readonly id: string
  constructor(
    private llm: LLM,
    private options: { temperature?: number } = {},
  ) {
    this.id = `llm:${llm.id}`
  }

  async summarize(input: SummarizeInput): Promise<string> {
    const language = detectLanguage(input.messages.map((line) => line.content).join('\n') || input.previous)
    const answer = await this.llm.generate(PROMPTS[language](input), { temperature: this.options.temperature ?? 0.2 })
    const text = cleanAnswer(answer)
    if (!text) throw new Error('the model returned an empty summary')
    return truncateToTokens(text, input.maxTokens)
  }
}

/** Strips reasoning blocks, code fences and a leading "Summary:" label from a model's answer. */
export function cleanAnswer(answer: string): string {
  return answer
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/^```[a-z]*\s*|```\s*$/gim, '')
    .replace(/^\s*(?:summary|new summary|摘要|新摘要)\s*[:：]\s*/i, '')
    .trim()
}

/**
 * The offline summariser: keeps the most telling sentences of the conversation. A sentence is worth
 * the summed weight of its content terms, each term weighted by how often the conversation uses it
 * (what a chat keeps coming back to) and how rare it is across sentences; very short sentences and
 * greetings weigh nothing. Sentences of the previous summary compete with the new ones, newer
 * sentences win ties, and the chosen ones are kept in their order, each with its speaker
 * (`name: sentence`), within the token limit.
 */
export class ExtractiveSummarizer implements ConversationSummarizer {
  readonly id = 'extractive'

  async summarize(input: SummarizeInput): Promise<string> {
    const sentences: { text: string; terms: string[]; order: number }[] = []
    let order = 0
    for (const line of splitSummary(input.previous)) sentences.push({ text: line, terms: contentTerms(line), order: order++ })
    for (const message of input.messages) {
      for (const sentence of splitSentences(message.content)) {
        const terms = contentTerms(sentence)
        if (terms.length < 2) continue
        sentences.push({ text: `${message.name}: ${sentence}`, terms, order: order++ })
      }
    }
    if (!sentences.length) return input.previous
    const tf = new Map<string, number>()
    const df = new Map<string, number>()
    for (const sentence of sentences) {
      for (const term of sentence.terms) tf.set(term, (tf.get(term) ?? 0) + 1)
      for (const term of new Set(sentence.terms)) df.set(term, (df.get(term) ?? 0) + 1)
    }
    const n = sentences.length
    const weight = (term: string) => Math.log(1 + (tf.get(term) ?? 0)) * Math.log(1 + n / (df.get(term) ?? 1))
    const ranked = sentences
      .map((sentence) => ({
        ...sentence,
        // mean term weight times a gentle length reward: long sentences should not win on length alone
        score: (sentence.terms.reduce((sum, term) => sum + weight(term), 0) / sentence.terms.length) * Math.log(1 + sentence.terms.length),
      }))
      .sort((a, b) => b.score - a.score || b.order - a.order)
    const chosen: typeof ranked = []
    let used = 0
    for (const sentence of ranked) {
      const cost = countTokens(sentence.text) + 1
      if (used + cost > input.maxTokens) continue
      chosen.push(sentence)
      used += cost
    }
    return chosen
      .sort((a, b) => a.order - b.order)
      .map((sentence) => sentence.text)
      .join('\n')
  }
}

function splitSummary(summary: string): string[] {
  return summary
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
}
