import { classifyTurn } from '../text/chat-noise'
import { detectLanguage } from '../text/language'
import { contentWords } from '../text/topic-words'

/** A topic's weighted keywords, its offline title, and the "is there anything to go on" test. */

/**
 * True when a message carries too little to place by its words: empty, only emoji or media, a
 * bare acknowledgement (好的 / 哈哈哈 / ok / 666, the long-term prefilter's list) or nothing but
 * function words and reactions (我也是 / 真的吗 / same here).
 */
export function isLowSignal(text: string): boolean {
  if (classifyTurn(text, []) !== 'content') return true
  return contentWords(text).length === 0
}

/** Most keywords a topic keeps. */
export const MAX_KEYWORDS = 30
/** Each new message scales older weights by this, so keywords follow a drifting conversation. */
const DECAY = 0.97
/** Lighter weights are dropped. */
const MIN_WEIGHT = 0.05

/**
 * Adds the content words of one message to a topic's keywords: older weights decay a little, each
 * distinct word of the message adds 1 (a word said five times in one line counts once), and only
 * the `MAX_KEYWORDS` heaviest are kept. Returns a new object.
 */
export function mergeKeywords(keywords: Record<string, number>, text: string): Record<string, number> {
  const terms = new Set(contentWords(text))
  if (!terms.size) return { ...keywords }
  const merged = new Map<string, number>()
  for (const [word, weight] of Object.entries(keywords)) merged.set(word, weight * DECAY)
  for (const term of terms) merged.set(term, (merged.get(term) ?? 0) + 1)
  const kept = [...merged].filter(([, weight]) => weight >= MIN_WEIGHT)
  kept.sort((a, b) => b[1] - a[1])
  return Object.fromEntries(kept.slice(0, MAX_KEYWORDS).map(([word, weight]) => [word, Math.round(weight * 1000) / 1000]))
}

/** Keywords heaviest first (on a tie, in the order they were stored). */
export function topKeywords(keywords: Record<string, number>, limit = 5): string[] {
  return Object.entries(keywords)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([word]) => word)
}

/**
 * A topic's keywords and offline title made again from the messages it still holds, oldest first
 * (after a user asked to be forgotten: nothing of what they said may stay in the topic's words).
 */
export function rebuildTopicWords(messages: { content: string }[]): { keywords: Record<string, number>; title: string } {
  const keywords = messages.reduce((words, message) => mergeKeywords(words, message.content), {} as Record<string, number>)
  return { keywords, title: keywordTitle(keywords, messages[0]?.content ?? '') }
}

/** Longest title kept, in characters. */
export const MAX_TITLE = 40

/**
 * The offline title: the three heaviest keywords ("周末、爬山、香山" / "hiking, weekend"). With no
 * keywords, the start of the first message.
 */
export function keywordTitle(keywords: Record<string, number>, fallbackText: string): string {
  const top = topKeywords(keywords, 3)
  if (top.length) {
    const joined = top.join(detectLanguage(top.join(' ')) === 'zh' ? '、' : ', ')
    return clip(joined, MAX_TITLE)
  }
  return clip(fallbackText.replace(/\s+/g, ' ').trim(), 20)
}

/** A title from a model: one line, no wrapping quotes or label, at most `MAX_TITLE` characters. */
export function cleanTitle(title: string): string {
  let line =
    title
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  line = line.replace(/^(?:title|标题|话题|主题)\s*[:：]\s*/i, '').replace(/\*\*/g, '')
  line = line.replace(/^["'“”‘’「」『』《》`]+|["'“”‘’「」『』《》`。.]+$/g, '').trim()
  return clip(line, MAX_TITLE)
}

function clip(text: string, max: number) {
  const chars = [...text]
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text
}
