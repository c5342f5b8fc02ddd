import { resolveRelativeDates } from '../text/dates'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { isHypothetical, isRequest } from '../text/questions'
import type { ExtractedFact, Extraction, ExtractOptions, MemoryJudge, Turn } from './judge'
import type { FactCategory, LanguageRules } from './rules'
import { CATEGORY_ORDER } from './rules'
import { english } from './rules-en'
import { chinese } from './rules-zh'

/**
 * The offline judge: keyword rules in Chinese and English instead of a model. It reads only what the
 * users said (never the bot's turns), cuts each message into statements (sentences, and in Chinese
 * the clauses that say something new about the speaker: "我叫小明，是一名大学老师，住在成都" is three
 * statements), drops questions, and keeps a statement about the speaker that names a fact of a known
 * kind — pets, hobbies and learning, family and relationships, job and school, home and travel,
 * plans and dates, health, likes and dislikes, possessions, birthdays, identity — or asks the bot to
 * remember. Beyond those kinds it keeps any other statement of the speaker's life ('life'), the way
 * friends say them in passing: the speaker as the subject or left out ("Went to a pottery class on
 * Saturday", "上周末带孩子去了趟海洋馆"), after a reaction that is dropped ("Wow, I went there last
 * year too!" → "Alice went there in 2025 too."), unless it is a question, a stance ("I think…"), a
 * feeling or a wish for the listener ("So happy for you", "我真为你高兴"), a move of the chat ("I'll
 * check it out", "我们下次一起去吧"), the moment (eating, heading to bed, tired) or too thin to say
 * anything. Each kept statement is rewritten in the third person with the speaker's name ("我最近在学
 * 吉他" → "小明最近在学吉他。", "I have a golden retriever named Max" → "Alice has a golden retriever
 * named Max.") and its relative dates made absolute against the time it was said. It is rules, not
 * understanding: expect misses and the odd false positive; configure a model for judgement.
 * `test/unit/rule-judge-measure.test.ts` measures it on a labelled set of lines said to a bot,
 * `test/unit/rule-judge-chat-measure.test.ts` on one of chat between friends.
 *
 * Each language's rules are in a file of their own (rules-zh.ts, rules-en.ts) behind `LanguageRules`
 * (rules.ts); this file cuts messages into sentences, hands each sentence to the rules of its
 * language and turns what they find into facts.
 */

const LANGUAGES: Record<Language, LanguageRules> = { zh: chinese, en: english }

/** Sentences of one message: split at sentence punctuation and line breaks, media placeholders removed. */
function sentencesOf(content: string): string[] {
  return content
    .replace(/\[(?:图片|表情|语音|视频|文件|image|sticker|voice|video|file)\]|<[^<>]+\/>/gi, ' ')
    .split(/(?<=[。！？!?；;…])|\n+|(?<=[a-z0-9)"'])\.(?=\s|$)/i)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

interface FoundFact {
  name: string
  /** Whom the speaker talks to in a chat between users: the nearest other speaker. */
  addressee?: string
  statement: string
  language: Language
  categories: FactCategory[]
  turn: number
  /** The question about the speaker this statement answers, when it says nothing on its own ("It was amazing!"). */
  question?: string
}

/** The other user nearest before a turn (else after it): whom "you" means in a chat between users; none with a bot alone. */
function addresseeOf(conversation: Turn[], index: number): string | undefined {
  const speaker = conversation[index].name?.trim()
  const other = (turn: Turn | undefined) => turn?.role === 'user' && turn.name?.trim() && turn.name.trim() !== speaker
  for (let i = index - 1; i >= 0; i--) if (other(conversation[i])) return conversation[i].name.trim()
  for (let i = index + 1; i < conversation.length; i++) if (other(conversation[i])) return conversation[i].name.trim()
  return undefined
}

/** The last question of the turn before, by someone else, that asks about the speaker ("How was your trip?"). */
function questionBefore(conversation: Turn[], index: number): string | undefined {
  const before = conversation[index - 1]
  if (!before || (before.role === 'user' && before.name?.trim() === conversation[index].name?.trim())) return undefined
  return sentencesOf(before.content ?? '')
    .filter((sentence) => LANGUAGES[detectLanguage(sentence, 'zh')].asksAboutListener(sentence))
    .at(-1)
}

/**
 * A turn that states nothing of its own but answers a question about the speaker ("How was your
 * trip?" → "It was amazing! Exploring the city was the best part."): its sentences of substance, kept
 * in the speaker's words with the question they answer.
 */
function answerOf(conversation: Turn[], index: number): FoundFact | undefined {
  const question = questionBefore(conversation, index)
  if (!question) return undefined
  const told = sentencesOf(conversation[index].content ?? '').filter((sentence) => {
    const language = detectLanguage(sentence, 'zh')
    return !isRequest(sentence, language) && !isHypothetical(sentence, language) && LANGUAGES[language].tellsInAnswer(sentence)
  })
  if (!told.length) return undefined
  const language = detectLanguage(told.join(' '), 'zh')
  return {
    name: conversation[index].name?.trim() || '',
    statement: told.slice(0, 2).join(language === 'zh' ? '' : ' '),
    language,
    categories: ['life'],
    turn: index,
    question,
  }
}

function findFacts(conversation: Turn[]): FoundFact[] {
  const found: FoundFact[] = []
  conversation.forEach((turn, index) => {
    if (turn.role !== 'user') return
    const foundBefore = found.length
    // the fact the previous sentence of this turn stated, which a sentence like "It was so powerful." goes on with
    let previous: FoundFact | undefined
    for (const sentence of sentencesOf(turn.content ?? '')) {
      const language = detectLanguage(sentence, 'zh')
      const before = previous
      previous = undefined
      const rules = LANGUAGES[language]
      if (!rules.hasContentBeyondRequest(sentence)) continue
      const request = rules.asksToRemember(sentence)
      // a request to the bot or a hypothetical says nothing of how the speaker's life is, nor what goes on with it
      if (isRequest(sentence, language) || isHypothetical(sentence, language)) continue
      const statements = rules.statements(sentence)
      if (before && !request && !statements.some((statement) => statement.categories.length) && rules.continues?.(sentence)) {
        before.statement = `${before.statement.replace(/[\s.!…~]+$/, '')}; ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`
        previous = before
        continue
      }
      for (const statement of statements) {
        // what the user asks to be remembered is kept even when no rule knows its kind
        const categories: FactCategory[] = request
          ? rules.isRequestable(statement.text)
            ? ['request', ...statement.categories]
            : []
          : statement.categories
        if (
          !categories.length ||
          !rules.hasContentBeyondRequest(statement.text) ||
          isRequest(statement.text, language) ||
          isHypothetical(statement.text, language)
        )
          continue
        previous = {
          name: turn.name?.trim() || '',
          addressee: addresseeOf(conversation, index),
          statement: statement.text,
          language,
          categories: [...new Set(categories)],
          turn: index,
        }
        found.push(previous)
      }
    }
    if (found.length === foundBefore) {
      const answer = answerOf(conversation, index)
      if (answer) found.push(answer)
    }
  })
  return found
}

export class RuleJudge implements MemoryJudge {
  readonly id = 'rules'

  async extract(conversation: Turn[], { now }: ExtractOptions): Promise<Extraction> {
    const facts: ExtractedFact[] = []
    const found = new Set<FactCategory>()
    for (const fact of findFacts(conversation)) {
      const rules = LANGUAGES[fact.language]
      const name = fact.name || rules.unnamed
      const rewritten = fact.question
        ? rules.answered(fact.question, fact.statement, name)
        : rules.rewrite(fact.statement, name, fact.addressee)
      if (!rewritten) continue
      const resolved = resolveRelativeDates(rewritten, conversation[fact.turn].time ?? now, fact.language)
      // a date resolved at the head of a statement ("last month I…" → "in October 2026 …")
      const statement = rules.capitalised ? `${resolved.charAt(0).toUpperCase()}${resolved.slice(1)}` : resolved
      const same = facts.find((f) => f.statement === statement)
      if (same) {
        same.turns = [...new Set([...(same.turns ?? []), fact.turn])]
        continue
      }
      // each fact with the rules that found it, not every rule the dialogue matched
      facts.push({
        statement,
        turns: [fact.turn],
        reason: `rules: ${CATEGORY_ORDER.filter((c) => fact.categories.includes(c)).join(', ')}`,
      })
      for (const category of fact.categories) found.add(category)
    }
    if (!facts.length) return { facts, reason: 'rules: no statement about the speaker of a kind worth keeping' }
    return { facts, reason: `rules: ${CATEGORY_ORDER.filter((c) => found.has(c)).join(', ')}` }
  }
}
