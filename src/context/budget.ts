import type { MessageRow } from '../messages'
import { countTokens } from '../text/token-count'
import { normalizeText } from '../text/tokens'
import type { Scored } from './candidate-scoring'
import { isTarget } from './candidates'
import type { RelevanceScorer } from './scorer'
import type { TextFeatureCache } from './text-features'
import type { CandidateSource, ContextMessage, ContextTarget } from './types'

/** The items whose lines (`- text`, and a line break) fit in `cap` tokens, in their order, and the tokens they take. */
export function fitLines<T>(items: T[], cap: number, text: (item: T) => string): { kept: T[]; tokens: number } {
  const kept: T[] = []
  let tokens = 0
  for (const item of items) {
    const cost = countTokens(`- ${text(item)}`) + 1
    if (tokens + cost > cap) continue
    kept.push(item)
    tokens += cost
  }
  return { kept, tokens }
}

/**
 * The best candidates above the scorer's threshold that fit in `budget` with the `used` tokens
 * before them, oldest first, the same words of one person once; and the tokens used then.
 */
export function fitMessages(
  scored: Scored[],
  used: number,
  budget: number,
  scorer: RelevanceScorer,
  texts: TextFeatureCache,
): { messages: ContextMessage[]; used: number } {
  const chosen: ContextMessage[] = []
  const said = new Set<string>()
  for (const item of scored) {
    if (!scorer.passes(item.score)) break
    const message = toContextMessage(item.candidate.row, item.score, [...item.candidate.sources], item.signals, texts)
    const cost = message.tokens + 1
    if (used + cost > budget) continue
    const fingerprint = `${message.userId}\u0000${normalizeText(message.content).replace(/\s+/g, ' ').trim()}`
    if (said.has(fingerprint)) continue
    said.add(fingerprint)
    chosen.push(message)
    used += cost
  }
  chosen.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
  return { messages: chosen, used }
}

/** The newest messages of the window that fit `budget`, contiguous from the end: what a plain window is. */
export function fitRecent(
  rows: MessageRow[],
  target: ContextTarget,
  budget: number,
  texts: TextFeatureCache,
): { messages: ContextMessage[]; tokens: number; windowTokens: number } {
  const messages: ContextMessage[] = []
  let total = 0
  let windowTokens = 0
  let full = false
  for (let i = rows.length - 1; i >= 0; i--) {
    if (isTarget(rows[i], target) || rows[i].isCommand) continue
    const message = toContextMessage(rows[i], 0, ['time-window'], {}, texts)
    windowTokens += message.tokens + 1
    if (full || total + message.tokens + 1 > budget) {
      full = true
      continue
    }
    messages.push(message)
    total += message.tokens + 1
  }
  return { messages: messages.reverse(), tokens: total, windowTokens }
}

/** What the whole recent window would cost as context lines. */
export function windowTokens(rows: MessageRow[], target: ContextTarget, texts: TextFeatureCache): number {
  let tokens = 0
  for (const row of rows) if (!isTarget(row, target) && !row.isCommand) tokens += texts.tokensOf(row) + 1
  return tokens
}

function toContextMessage(
  row: MessageRow,
  score: number,
  sources: CandidateSource[],
  signals: Record<string, number>,
  texts: TextFeatureCache,
): ContextMessage {
  return {
    id: row.id,
    messageId: row.messageId,
    userId: row.userId,
    userName: row.userName,
    role: row.role,
    content: row.content,
    createdAt: row.createdAt,
    score,
    tokens: texts.tokensOf(row),
    sources,
    signals: { ...signals },
  }
}
