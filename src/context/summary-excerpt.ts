import { bm25 } from '../text/bm25'
import { contentTerms, matchTerms } from '../text/keywords'
import { splitSentences } from '../text/sentences'
import { countTokens, truncateToTokens } from '../text/token-count'
import { namesIn, queryTerms, termStatsFor } from './candidate-scoring'
import type { Candidate } from './candidates'
import type { TermStats } from './term-stats'
import type { TextFeatureCache } from './text-features'
import type { ContextTarget } from './types'

/**
 * The part of the rolling summary that bears on the target, within `cap` tokens: its sentences
 * that cover at least `coverage` of the target's keyword weight, best first, shown in their
 * order. A target without keywords ("so what do you all think?") gets the summary as it is; one
 * whose keywords the summary does not touch gets none, and its share goes to the messages.
 */
export function summaryExcerpt(
  target: ContextTarget,
  summary: string,
  cap: number,
  coverage: number,
  pool: Candidate[],
  termStats: TermStats | undefined,
  texts: TextFeatureCache,
): string {
  if (!summary.trim() || cap <= 0) return ''
  const whole = truncateToTokens(summary, cap)
  if (coverage <= 0) return whole
  const participants = [...new Set(pool.map((candidate) => candidate.row.userName))]
  const nameTerms = new Set(namesIn(target.content, participants).flatMap((name) => contentTerms(name)))
  const query = queryTerms(target.content, nameTerms)
  const stats = termStatsFor(termStats, target, pool, texts)
  const ideal = query.reduce((sum, term) => sum + stats.idf(term), 0)
  if (!(ideal > 0)) return whole
  const sentences = summary
    .split('\n')
    .flatMap((line) => splitSentences(line))
    .map((text, order) => {
      const list = matchTerms(text)
      const terms = new Map<string, number>()
      for (const term of list) terms.set(term, (terms.get(term) ?? 0) + 1)
      return { text, order, coverage: bm25(query, { terms, length: list.length }, stats) / ideal, tokens: countTokens(text) + 1 }
    })
    .filter((sentence) => sentence.coverage >= coverage)
    .sort((a, b) => b.coverage - a.coverage || b.order - a.order)
  const kept: typeof sentences = []
  let used = 0
  for (const sentence of sentences) {
    if (used + sentence.tokens > cap + 1) continue
    kept.push(sentence)
    used += sentence.tokens
  }
  return truncateToTokens(
    kept
      .sort((a, b) => a.order - b.order)
      .map((sentence) => sentence.text)
      .join('\n'),
    cap,
  )
}
