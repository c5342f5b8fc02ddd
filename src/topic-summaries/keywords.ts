import { contentWords } from '../text/topic-words'
import { normalizeText } from '../text/tokens'
import type { MessageRow } from '../messages'

/** Most keywords a summary keeps. */
export const SUMMARY_KEYWORDS = 20

/**
 * Weighted keywords of a topic (design §3.1), CJK-aware through `contentWords`: a word's weight is the
 * number of messages that use it (a message repeating a word counts once), plus one half when the
 * summary uses it too, divided by the heaviest, so weights are in (0, 1]. A word used only once in
 * a topic of more than three messages is left out (noise). Heaviest first, at most `limit`.
 */
export function summaryKeywords(messages: Pick<MessageRow, 'content'>[], summary = '', limit = SUMMARY_KEYWORDS): Record<string, number> {
  const counts = new Map<string, number>()
  for (const message of messages) {
    for (const word of new Set(contentWords(message.content))) counts.set(word, (counts.get(word) ?? 0) + 1)
  }
  const inSummary = new Set(contentWords(summary))
  const minUses = messages.length > 3 ? 2 : 1
  const scored = [...counts]
    .filter(([word, n]) => n >= minUses || inSummary.has(word))
    .map(([word, n]) => [word, n + (inSummary.has(word) ? 0.5 : 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
  const top = scored[0]?.[1] ?? 1
  return Object.fromEntries(scored.map(([word, weight]) => [word, Math.round((weight / top) * 1000) / 1000]))
}

/** Lower-cased, width-folded text for substring tests. */
export function folded(text: string): string {
  return normalizeText(text).toLowerCase()
}
