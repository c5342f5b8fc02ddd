import { detectLanguage } from '../text/language'
import { isNotAStatement } from '../text/questions'
import { words } from '../text/tokens'
import type { Turn } from './judge'

/**
 * Whether a fact stands only on what asked, requested or supposed: a question, a request to the bot
 * or a hypothetical never becomes memory nor closes a fact (design §4.2, §4.3), whatever a judge says.
 * A judge that names its turns is checked on them; one that names none (a model) on the user
 * sentences that share the most content with the fact.
 */

const FUNCTION_WORDS = new Set(
  (
    'i me my we our you your he she him her his they them their it its is am are was were be been has have had do does did ' +
    'will would can could should a an the and or but of to in on at for with about from by as that this what who where when ' +
    'which how why not no 我 你 他 她 它 们 的 了 吗 呢 吧 啊 是 在 有 和 也 都 就 还 什么 哪里 哪 谁 几 怎么 为什么'
  ).split(' '),
)

function contentOf(text: string, names: string[]): Set<string> {
  const skip = new Set(names.flatMap((name) => words(name)))
  const out = new Set<string>()
  for (const word of words(text)) {
    if (FUNCTION_WORDS.has(word) || skip.has(word)) continue
    // a Chinese word is also matched by its characters: the judge rewrites, the segmenter cuts differently
    if (/^\p{Script=Han}{2,}$/u.test(word)) for (const ch of word) if (!FUNCTION_WORDS.has(ch)) out.add(ch)
    out.add(word)
  }
  return out
}

/** The sentences of the users' turns, each with its turn and whether it asks, requests or supposes. */
function userSentences(conversation: Turn[]): { turn: number; text: string; asks: boolean }[] {
  return conversation.flatMap((turn, index) => {
    if (turn.role !== 'user') return []
    return (turn.content ?? '')
      .split(/(?<=[。！？!?；;])|\n+|(?<=[a-z0-9)"'])\.(?=\s|$)/i)
      .map((s) => s.trim())
      .filter(Boolean)
      .map((text) => ({ turn: index, text, asks: isNotAStatement(text, detectLanguage(text, 'zh')) }))
  })
}

/** Whether every turn named asks, requests or supposes in all it says. */
export function turnsOnlyAsk(conversation: Turn[], turns: number[]): boolean {
  if (!turns.length) return false
  const sentences = userSentences(conversation)
  return turns.every((i) => {
    const own = sentences.filter((s) => s.turn === i)
    return own.length > 0 && own.every((s) => s.asks)
  })
}

/**
 * Whether the user sentences a fact shares most with are all ones that ask, request or suppose: the
 * best match among statements shares less than half of what the best question shares.
 */
export function drawnOnlyFromQuestions(statement: string, conversation: Turn[]): boolean {
  const names = [...new Set(conversation.map((turn) => turn.name?.trim()).filter((name): name is string => Boolean(name)))]
  const fact = contentOf(statement, names)
  if (!fact.size) return false
  let asked = 0
  let told = 0
  for (const sentence of userSentences(conversation)) {
    const shared = [...contentOf(sentence.text, names)].filter((word) => fact.has(word)).length
    if (sentence.asks) asked = Math.max(asked, shared)
    else told = Math.max(told, shared)
  }
  return asked > 0 && told * 2 < asked
}
