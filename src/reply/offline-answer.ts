import { contentTerms } from '../text/keywords'
import { isAllCjk } from '../text/tokens'
import type { ReplyState } from './state'

/**
 * The answer without a chat model: of what recall found, only what bears on the message, best first.
 *
 * Recall ranks by relevance within the user's own memories, so its top items come back even when
 * nothing bears on the message ("今天天气不错" would list every fact of a user with few). Here an item
 * bears on the message when they share a content term; Chinese is segmented differently in different
 * sentences ("住" / "住在", "猫叫" / "猫"), so a Chinese term also meets a Chinese term it is part of.
 * Items with more terms that meet the message's come first; ties keep recall's order.
 */
export function offlineAnswer(state: Readonly<ReplyState>): { memories: string[]; related: number } {
  const asked = new Set(contentTerms(state.target.content))
  const context = state.recalled?.context
  const candidates = [
    ...(context?.longTerm.map((memory) => memory.content) ?? []),
    ...(context?.group?.map((memory) => memory.statement) ?? []),
  ]
  const memories = candidates
    .map((text, order) => ({ text, order, shared: sharedTerms(asked, text) }))
    .filter((item) => item.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.order - b.order)
    .map((item) => item.text)
  // the bot's own earlier lines are left out: offline they only repeat memories already listed
  const related =
    context?.messages.filter(
      (message) => message.role === 'user' && message.messageId !== state.target.messageId && sharedTerms(asked, message.content) > 0,
    ).length ?? 0
  return { memories: [...new Set(memories)], related }
}

/** How many distinct terms of `text` meet a term of the message. */
export function sharedTerms(asked: ReadonlySet<string>, text: string): number {
  if (!asked.size) return 0
  let shared = 0
  for (const term of new Set(contentTerms(text))) if ([...asked].some((other) => sameTerm(term, other))) shared++
  return shared
}

function sameTerm(a: string, b: string): boolean {
  if (a === b) return true
  return isAllCjk(a) && isAllCjk(b) && (a.includes(b) || b.includes(a))
}
