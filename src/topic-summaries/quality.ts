import { contentWords } from '../text/topic-words'
import { folded } from './keywords'
import type { SummaryQuality } from './types'

/**
 * Computed summary quality (design §3.4), each score in [0, 1], all lexical and cheap:
 *
 * - **coverage**: how much of what the chat was about the summary mentions: the weight of the
 *   topic's keywords (`summaryKeywords` over the messages, top 10) found in the summary text,
 *   divided by their total weight. 1 when the chat had no keywords.
 * - **coherence**: the summary reads as one account rather than a heap of repeats: the share of its
 *   sentences that are not near-duplicates of an earlier sentence (character-bigram Jaccard ≥ 0.8)
 *   and that share a content word with the rest of the summary or with the topic's keywords. A
 *   one-sentence summary only needs to be non-empty.
 * - **relevance**: the summary is about the topic: the share of the title's content words found in
 *   the summary (when the title has none, its character bigrams; when it is empty, the top five
 *   keywords).
 * - **overall**: design §3.4's weights 0.3 coverage + 0.2 coherence + 0.2 relevance + 0.3 LLM score,
 *   divided by the weights present (0.7 without an LLM score).
 */

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[。！？!?；;])|\n+|(?<=\.)\s+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s))
}

function bigrams(text: string): Set<string> {
  const chars = [...folded(text).replace(/[^\p{L}\p{N}]/gu, '')]
  const out = new Set<string>()
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1])
  if (chars.length === 1) out.add(chars[0])
  return out
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1
  let inter = 0
  for (const x of a) if (b.has(x)) inter++
  return inter / (a.size + b.size - inter)
}

const round = (x: number) => Math.round(Math.max(0, Math.min(1, x)) * 1000) / 1000

export function coverage(summary: string, keywords: Record<string, number>): number {
  const top = Object.entries(keywords)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
  const total = top.reduce((sum, [, w]) => sum + w, 0)
  if (!total) return 1
  const text = folded(summary)
  return round(top.reduce((sum, [word, w]) => sum + (text.includes(folded(word)) ? w : 0), 0) / total)
}

export function coherence(summary: string, keywords: Record<string, number>): number {
  const parts = sentences(summary)
  if (parts.length === 0) return 0
  if (parts.length === 1) return 1
  const grams = parts.map(bigrams)
  const words = parts.map((s) => new Set(contentWords(s)))
  const topic = new Set(Object.keys(keywords).map(folded))
  let good = 0
  parts.forEach((_, i) => {
    const repeat = grams.slice(0, i).some((g) => jaccard(g, grams[i]) >= 0.8)
    if (repeat) return
    const linked = [...words[i]].some((w) => topic.has(folded(w)) || words.some((other, j) => j !== i && other.has(w)))
    if (linked) good++
  })
  return round(good / parts.length)
}

export function relevance(summary: string, title: string, keywords: Record<string, number>): number {
  const text = folded(summary)
  let terms = contentWords(title)
  if (!terms.length && title.trim()) {
    const grams = [...bigrams(title)]
    if (grams.length) return round(grams.filter((g) => bigrams(summary).has(g)).length / grams.length)
  }
  if (!terms.length)
    terms = Object.entries(keywords)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([w]) => w)
  if (!terms.length) return 1
  const unique = [...new Set(terms.map(folded))]
  return round(unique.filter((t) => text.includes(t)).length / unique.length)
}

export function overall(q: Omit<SummaryQuality, 'overall'>): number {
  let sum = 0.3 * q.coverage + 0.2 * q.coherence + 0.2 * q.relevance
  let weights = 0.7
  if (q.llmScore !== undefined) {
    sum += 0.3 * q.llmScore
    weights += 0.3
  }
  return round(sum / weights)
}

/** The computed scores of a summary; `llmScore` is added by the generator when a model rated it. */
export function computeQuality(summary: string, title: string, keywords: Record<string, number>, llmScore?: number): SummaryQuality {
  const q: Omit<SummaryQuality, 'overall'> = {
    coverage: coverage(summary, keywords),
    coherence: coherence(summary, keywords),
    relevance: relevance(summary, title, keywords),
  }
  if (llmScore !== undefined) q.llmScore = round(llmScore)
  return { ...q, overall: overall(q) }
}
