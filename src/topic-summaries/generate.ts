import { z } from 'zod'
import { generateStructured } from '../providers/structured'
import type { LLM } from '../providers/types'
import { BudgetSpentError } from '../providers/types'
import type { Counters, Logger } from '../core/observability'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import type { MessageRow } from '../messages'
import { summaryKeywords } from './keywords'
import { offlineSummary } from './offline'
import type { SummaryPrompts } from './prompts'
import { DEFAULT_SUMMARY_PROMPTS, fillPrompt } from './prompts'
import { computeQuality } from './quality'
import { cutToTokens, segmentLines, speaker, transcriptLine } from './segment'
import type { SummaryQuality } from './types'

export interface GenerateOptions {
  /** Tokens of transcript per segment (per LLM call). Default 3000. */
  segmentTokens: number
  /** Longest stored summary, in characters (a longer answer is cut). Default 1200. */
  maxSummaryChars: number
  /** Ask the LLM to rate the summary (one more call). Default true. */
  llmScore: boolean
}

export const DEFAULT_GENERATE_OPTIONS: GenerateOptions = { segmentTokens: 3000, maxSummaryChars: 1200, llmScore: true }

export interface GenerateDeps {
  /** Undefined: the offline summary is made (and marked `fallback`). */
  llm?: LLM
  prompts?: SummaryPrompts
  counters: Counters
  logger: Logger
  options?: Partial<GenerateOptions>
}

/** A summary before it is stored: text, metadata and quality. */
export interface SummaryDraft {
  summary: string
  fallback: boolean
  /** Why the fallback was used: `no-llm` or the error. */
  fallbackReason?: string
  segments: number
  language: Language
  model: string
  participants: string[]
  firstMessageAt: Date
  lastMessageAt: Date
  messageCount: number
  keywords: Record<string, number>
  quality: SummaryQuality
}

const SummaryAnswer = z.object({ summary: z.string().trim().min(1) })
const ScoreAnswer = z.object({ score: z.coerce.number().min(0).max(10) })
const SUMMARY_SCHEMA = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] }
const SCORE_SCHEMA = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] }

/** Speakers, most messages first (users before the bot; the bot only when nobody else spoke). */
export function participantsOf(messages: MessageRow[]): string[] {
  const counts = new Map<string, { n: number; bot: boolean; first: number }>()
  messages.forEach((m, i) => {
    const name = speaker(m)
    const entry = counts.get(name) ?? { n: 0, bot: m.role === 'assistant', first: i }
    entry.n++
    counts.set(name, entry)
  })
  const all = [...counts].sort((a, b) => b[1].n - a[1].n || a[1].first - b[1].first)
  const users = all.filter(([, e]) => !e.bot)
  return (users.length ? users : all).map(([name]) => name)
}

function cap(text: string, chars: number): string {
  const s = text.trim()
  return [...s].length > chars ? [...s].slice(0, chars).join('') + '…' : s
}

/**
 * Makes a topic's summary (design §3.3): the messages (oldest first) become `name: content` lines,
 * cut into segments of `segmentTokens`; each segment is summarised by the LLM and, when there was
 * more than one, the segment summaries are merged by one more call. Any failure of the model (a
 * provider error, or an answer that stays malformed after the structured helper's retry) — or no
 * model at all — gives the offline extractive summary instead, marked `fallback`. Metadata
 * (participants, time span, count), weighted keywords and the quality scores (with the LLM's rating
 * when a model is configured and the summary is its own; a failed rating is left out) are added.
 * Throws only when `messages` is empty.
 */
export async function generateSummary(title: string, messages: MessageRow[], deps: GenerateDeps): Promise<SummaryDraft> {
  const usable = messages.filter((m) => m.content.trim())
  if (!usable.length) throw new Error('a topic without messages has nothing to summarise')
  const options = { ...DEFAULT_GENERATE_OPTIONS, ...deps.options }
  const prompts = deps.prompts ?? DEFAULT_SUMMARY_PROMPTS
  const language = detectLanguage(
    `${title}\n${usable
      .slice(0, 50)
      .map((m) => m.content)
      .join('\n')}`,
  )
  const participants = participantsOf(usable)
  const lines = usable.map(transcriptLine)
  const segments = segmentLines(lines, options.segmentTokens)

  let summary = ''
  let fallback = true
  let fallbackReason = 'no-llm'
  let llmScore: number | undefined
  const llm = deps.llm
  if (llm) {
    try {
      const set = prompts[language]
      const parts: string[] = []
      for (let i = 0; i < segments.length; i++) {
        const prompt = fillPrompt(set.segment, { title, part: `${i + 1}/${segments.length}`, transcript: segments[i].join('\n') })
        const answer = await generateStructured(llm, prompt, SummaryAnswer, {
          label: 'summary.segment',
          counters: deps.counters,
          logger: deps.logger,
          jsonSchema: SUMMARY_SCHEMA,
        })
        parts.push(answer.summary)
      }
      if (parts.length === 1) {
        summary = parts[0]
      } else {
        const prompt = fillPrompt(set.merge, {
          title,
          summaries: parts.map((p, i) => `${i + 1}. ${p.replace(/\s*\n\s*/g, ' ')}`).join('\n'),
        })
        summary = (
          await generateStructured(llm, prompt, SummaryAnswer, {
            label: 'summary.merge',
            counters: deps.counters,
            logger: deps.logger,
            jsonSchema: SUMMARY_SCHEMA,
          })
        ).summary
      }
      summary = cap(summary, options.maxSummaryChars)
      fallback = false
      fallbackReason = ''
    } catch (error) {
      fallbackReason = (error as Error).message
      // a group whose calls of the day are spent is summarised offline by design, not for a failure
      if (error instanceof BudgetSpentError) deps.logger.debug('topic summary: %s; using the offline summary', fallbackReason)
      else {
        deps.counters.inc('summary.llm_failed')
        deps.logger.warn('topic summary: the model failed (%s); using the offline summary', fallbackReason)
      }
    }
    if (!fallback && options.llmScore) {
      try {
        const prompt = fillPrompt(prompts[language].score, {
          title,
          summary,
          transcript: cutToTokens(lines.join('\n'), options.segmentTokens),
        })
        const answer = await generateStructured(llm, prompt, ScoreAnswer, {
          label: 'summary.score',
          counters: deps.counters,
          logger: deps.logger,
          jsonSchema: SCORE_SCHEMA,
        })
        llmScore = answer.score / 10
      } catch (error) {
        deps.counters.inc('summary.score_failed')
        deps.logger.debug('topic summary: no LLM score (%s)', (error as Error).message)
      }
    }
  }
  if (fallback) {
    summary = cap(offlineSummary(title, usable, participants, language), options.maxSummaryChars)
    deps.counters.inc('summary.fallback')
  }

  const keywords = summaryKeywords(usable, summary)
  return {
    summary,
    fallback,
    fallbackReason: fallback ? fallbackReason : undefined,
    segments: fallback ? 0 : segments.length,
    language,
    model: fallback ? 'offline' : llm!.id,
    participants,
    firstMessageAt: usable[0].createdAt,
    lastMessageAt: usable[usable.length - 1].createdAt,
    messageCount: usable.length,
    keywords,
    quality: computeQuality(summary, title, keywords, llmScore),
  }
}
