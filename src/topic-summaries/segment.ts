import type { MessageRow } from '../messages'
import { countTokens, cutLength } from '../text/token-count'

/**
 * Transcripts and segmentation of a topic for the summary LLM (design §3.3). Tokens are
 * counted with the plugin's one token count (`text/token-count`, an estimate of o200k_base).
 */

/** Tokens of `text` (special-token markers in chat text count as plain text). */
export const tokens = countTokens

/** Who said a message, as the transcript and the participants list name them. */
export function speaker(message: Pick<MessageRow, 'userName' | 'userId' | 'role'>): string {
  return message.userName || message.userId || (message.role === 'assistant' ? 'bot' : '?')
}

/** A message as one transcript line, `name: content` with line breaks folded. */
export function transcriptLine(message: MessageRow): string {
  return `${speaker(message)}: ${message.content.replace(/\s*\n\s*/g, ' ').trim()}`
}

/** Cuts `text` to at most `maxTokens` tokens (by characters, binary search), adding "…" when cut. */
export function cutToTokens(text: string, maxTokens: number): string {
  if (tokens(text) <= maxTokens) return text
  return text.slice(0, cutLength(text, maxTokens)) + '…'
}

/**
 * Splits transcript lines, in order, into segments of at most `maxTokens` tokens each (a line counts
 * its tokens + 1 for the line break). A single line longer than the budget is cut to fit and stands
 * alone. Segments are balanced: a topic of 1.2 budgets becomes two segments of 0.6, not 1 + 0.2, so
 * no segment summary is made from a handful of trailing lines.
 */
export function segmentLines(lines: string[], maxTokens: number): string[][] {
  const budget = Math.max(16, maxTokens)
  const fitted = lines.map((line) => cutToTokens(line, budget - 1))
  const costs = fitted.map((line) => tokens(line) + 1)
  const total = costs.reduce((a, b) => a + b, 0)
  if (total <= budget) return fitted.length ? [fitted] : []
  const target = Math.min(budget, Math.ceil(total / Math.ceil(total / budget)))
  const segments: string[][] = []
  let current: string[] = []
  let used = 0
  fitted.forEach((line, i) => {
    if (current.length && (used + costs[i] > budget || used >= target)) {
      segments.push(current)
      current = []
      used = 0
    }
    current.push(line)
    used += costs[i]
  })
  if (current.length) segments.push(current)
  return segments
}
