import { detectLanguage } from './language'
import { isHypothetical, isQuestion, isRequest } from './questions'

/**
 * What a line states, without what it asks, asks for, supposes or wishes: knowledge is learnt only from
 * statements (a question, a request to the bot, a hypothetical or a wish says nothing true of the speaker).
 */

/** "I wonder where …", "tell me what …": an English clause that asks without opening with the question word. */
const EN_ASKS = /\b(?:wonder|remind me|tell me|guess) (?:what|where|who|which|when|how|why|if|whether)\b/iu
/** Wishes and their negation: 想 as "want" (not 想起, 想念, 想法). */
const ZH_WISH = /想(?!起|到|念|法|象|必|通)|希望|盼望|但愿|梦想|巴不得|不要|别(?!人|的|墅|针|扭)/u
const EN_WISH = /\b(?:wish|wanna|hope|hoping|dream of|want(?:s|ed)? to|don't want|do not want|would like|would love)\b/iu
/** "记住：…", "remember that …": a request to remember states what follows it. */
const REMEMBER =
  /^(?:(?:请|麻烦你?|你)?(?:帮我)?记(?:住|一下|好)[:：,，\s]*|(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?[:,]?\s+)/iu

/** After 。！？; and after an English full stop that ends a sentence (not "Dr." or "St."). */
const SENTENCE_END = /(?<=[。！？!?；;\n])|(?<=(?<!\b(?:St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|vs|etc))\.)\s+(?=\p{Lu})/u

export type NonStatementKind = 'question' | 'request' | 'hypothetical' | 'wish'

/** What kind of non-statement a clause is, if it is one. */
export function nonStatementKind(clause: string): NonStatementKind | undefined {
  const text = clause.trim()
  if (!text) return undefined
  const zh = /\p{Script=Han}/u.test(text)
  const language = detectLanguage(text, zh ? 'zh' : 'en')
  if (zh ? ZH_WISH.test(text) : EN_WISH.test(text)) return 'wish'
  if (isHypothetical(text, language)) return 'hypothetical'
  if (isRequest(text, language)) return 'request'
  const asks = !zh && EN_ASKS.test(text)
  if (asks || isQuestion(text, language)) return 'question'
  return undefined
}

/**
 * The statements of a text, one per line: each sentence's clauses without its questions; a request,
 * hypothetical or wish drops its clause and the rest of the sentence (what follows depends on it).
 * Two statements a dropped clause stood between are on separate lines, so the one after does not read
 * as the one before going on.
 */
export function statementsOf(text: string): string {
  const lines: string[] = []
  for (const sentence of text.split(SENTENCE_END)) {
    let run: string[] = []
    const flush = () => {
      if (run.length) lines.push(run.join(/\p{Script=Han}/u.test(run.join('')) ? '，' : ', '))
      run = []
    }
    for (const piece of sentence.replace(REMEMBER, '').split(/[，,、]/u)) {
      const clause = piece.trim()
      if (!clause) continue
      const kind = nonStatementKind(clause)
      if (!kind) {
        run.push(clause)
        continue
      }
      flush()
      if (kind !== 'question') break
    }
    flush()
  }
  return lines.join('\n')
}

/** Whether the text states anything (some clause of it is not a question, request, hypothetical or wish). */
export function statesAnything(text: string): boolean {
  return statementsOf(text).trim().length > 0
}
