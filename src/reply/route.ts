import { classifyTurn } from '../text/chat-noise'
import { isQuestion } from '../text/questions'
import type { Choice, DeepSearch, MemoryKind, NodeResult, ReplyState, RouteDecision } from './state'

/**
 * The route node: whether a message needs memory at all, which kinds, and whether the deep searches
 * run — by rules, without a model call (design §7.2). Greetings, thanks and
 * emoji need none; a question or a message that points back in time ("上次说的", "remember when…")
 * gets the deep searches.
 */

/** Words that point at something said before. */
const PAST_ZH =
  /之前|以前|上次|上回|刚才|刚刚|那天|那次|前几天|昨天|上周|上个月|去年|记得|记不记得|说过|提过|提到过|聊过|讲过|问过|告诉过|还记/
const PAST_EN =
  /\b(?:remember|recall|earlier|before|previously|last (?:time|week|month|year|night)|yesterday|ago|again|(?:did|have) (?:i|we|you) (?:say|said|mention|mentioned|tell|told|talk|talked)|you (?:said|told|mentioned)|i (?:said|told you|mentioned))\b/i
/** A message about its speaker: their own facts and profile matter. */
const SELF_ZH = /我|俺|咱/
const SELF_EN = /\b(?:i|me|my|mine|myself|i'm|i've|i'd)\b/i

export interface RouteOptions {
  /** The chat model can call tools (function calling). */
  canCallTools: boolean
  /** `auto`: the deep searches for questions and look-backs, as tools too for look-backs; `always`: tools for every message; `never`: no deep search. */
  tools: 'auto' | 'always' | 'never'
  /** The profile exists in this configuration (knowledge on, a token budget for it). */
  profile: boolean
  commandPrefixes: string[]
}

export function decideRoute(state: Pick<ReplyState, 'target' | 'language'>, options: RouteOptions): RouteDecision {
  const text = state.target.content.trim()
  const kind = classifyTurn(text, options.commandPrefixes)
  if (kind !== 'content') return { needsMemory: false, kinds: [], deep: 'none', reasons: [kind] }
  const zh = state.language === 'zh'
  const past = (zh ? PAST_ZH : PAST_EN).test(text) || PAST_ZH.test(text)
  const asks = isQuestion(text, state.language)
  const self = (zh ? SELF_ZH : SELF_EN).test(text)
  const kinds: MemoryKind[] = ['facts', 'episodes', 'context']
  if (options.profile && (self || asks)) kinds.splice(1, 0, 'profile')
  const deep = deepSearch(options, asks, past)
  const reasons = [past && 'past', asks && 'asks', self && 'self'].filter((reason): reason is string => Boolean(reason))
  return { needsMemory: true, kinds, deep, reasons }
}

/**
 * A question or a look back gets the direct searches (local, no model call); a model that can call
 * tools is also offered them when the message points back in time, to look further on its own.
 */
function deepSearch(options: RouteOptions, asks: boolean, past: boolean): DeepSearch {
  if (options.tools === 'never') return 'none'
  const offer = options.canCallTools && (past || options.tools === 'always')
  if (asks || past) return offer ? 'both' : 'direct'
  if (options.tools === 'always') return options.canCallTools ? 'tools' : 'direct'
  return 'none'
}

export function routeNode(options: RouteOptions) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    const route = decideRoute(state, options)
    const why = route.reasons.join(',')
    const chose: Choice = route.needsMemory
      ? { code: 'memory', params: { kinds: route.kinds.join(','), deep: route.deep, why } }
      : { code: 'no-memory', params: { why } }
    return { update: { route }, chose }
  }
}
