import { contentWords } from '../text/topic-words'
import type { Language } from '../text/language'
import type { MessageRow } from '../messages'
import { speaker } from './segment'

/** Most messages quoted by an offline summary. */
const PICKS = 5
/** Longest quote of one message, in characters. */
const QUOTE_CHARS = 80

function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return [...line].length > QUOTE_CHARS ? [...line].slice(0, QUOTE_CHARS).join('') + '…' : line
}

/**
 * The offline (fallback) summary of a topic (design §3.3): extractive, no
 * model. Each message is scored by how many of the topic's frequent content words it carries (a word
 * weighs the number of messages using it), divided by the square root of its own word count so long
 * rambles do not win by length; the best `PICKS` distinct messages are quoted in chat order after a
 * header naming the topic, the participants and the message count. It quotes; it does not understand.
 */
export function offlineSummary(title: string, messages: MessageRow[], participants: string[], language: Language): string {
  const usable = messages.filter((m) => m.content.trim())
  const frequency = new Map<string, number>()
  const wordsOf = usable.map((m) => new Set(contentWords(m.content)))
  for (const words of wordsOf) for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1)
  const scored = usable.map((m, i) => {
    const words = [...wordsOf[i]]
    const weight = words.reduce((sum, word) => sum + (frequency.get(word) ?? 0), 0)
    return { i, score: words.length ? weight / Math.sqrt(words.length) : 0 }
  })
  const seen = new Set<string>()
  const picked: number[] = []
  for (const { i } of [...scored].sort((a, b) => b.score - a.score || a.i - b.i)) {
    const key = usable[i].content.replace(/\s+/g, '').toLowerCase()
    if (seen.has(key) || (scored[i].score === 0 && picked.length)) continue
    seen.add(key)
    picked.push(i)
    if (picked.length >= PICKS) break
  }
  picked.sort((a, b) => a - b)
  const who = participants.slice(0, 5)
  if (language === 'zh') {
    const names = who.join('、') + (participants.length > who.length ? '等' : '')
    const head = `关于「${title}」的讨论（${names}，共 ${messages.length} 条消息）`
    return picked.length
      ? `${head}：${picked.map((i) => `${speaker(usable[i])}说「${quote(usable[i].content)}」`).join('；')}。`
      : `${head}。`
  }
  const names = who.join(', ') + (participants.length > who.length ? ' and others' : '')
  const head = `Discussion of "${title}" (${names}; ${messages.length} messages)`
  return picked.length
    ? `${head}: ${picked.map((i) => `${speaker(usable[i])} said "${quote(usable[i].content)}"`).join('; ')}.`
    : `${head}.`
}
