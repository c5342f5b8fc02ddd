import type { FoundMessage, TopicSearchResult } from '../context'
import { countTokens } from '../text/token-count'

const stamp = (time: Date) => time.toISOString().slice(0, 16).replace('T', ' ')

/**
 * What the channel search found, as lines for the prompt within `maxTokens`: the excerpts around the
 * best hits first (each with its time, which recall's chat lines do not show), leaving out the
 * messages `skip` names (what recall already chose, the message being answered); then topic
 * summaries while room is left.
 */
export function foundLines(result: TopicSearchResult, skip: (message: FoundMessage) => boolean, maxTokens: number): string {
  const best = (group: TopicSearchResult['excerpts'][number]) => Math.max(0, ...group.map((message) => message.similarity ?? 0))
  const groups = [...result.excerpts].sort((a, b) => best(b) - best(a))
  const lines: string[] = []
  let left = maxTokens
  for (const group of groups) {
    const fresh = group.filter((message) => !skip(message))
    if (!fresh.some((message) => message.hit)) continue
    const text = fresh.map((message) => `[${stamp(message.createdAt)}] ${message.userName}: ${message.content}`)
    const cost = countTokens(text.join('\n')) + 1
    if (cost > left) continue
    lines.push(...text)
    left -= cost
  }
  for (const summary of result.summaries) {
    const text = `(${summary.title}) ${summary.summary}`
    const cost = countTokens(text) + 1
    if (cost > left) continue
    lines.push(text)
    left -= cost
  }
  return lines.join('\n')
}
