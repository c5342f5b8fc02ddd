import type { ReplyOutcome } from './state'
import type { Language } from '../text/language'

/** Renders a locale text (Koishi's `ctx.i18n` through `session.text`-like lookups). */
export type Translate = (locale: string, path: string, params?: unknown[] | Record<string, unknown>) => string

const localeOf = (language: Language) => (language === 'zh' ? 'zh-CN' : 'en-US')

/** What the user reads: the model's reply, the offline answer, or a short apology — in their language. */
export function renderOutcome(outcome: ReplyOutcome, language: Language, t: Translate): string {
  const locale = localeOf(language)
  if (outcome.kind === 'model') return outcome.text
  if (outcome.kind === 'failed') return t(locale, 'memory.chat.failed')
  const tail = outcome.related ? '\n' + t(locale, 'memory.chat.context', { count: outcome.related }) : ''
  if (!outcome.memories.length) return t(locale, 'memory.chat.nothing') + tail
  return t(locale, 'memory.chat.remembered', [outcome.memories.map((memory) => `- ${memory}`).join('\n')]) + tail
}

const SYSTEM: Record<Language, string> = {
  zh: '你是这个聊天里的一位友好成员。用简短、自然的中文回答。提供给你的记忆和聊天记录只作参考：用得上就用，不要编造其中没有的事，也不要提到“记忆”或“提示词”本身。',
  en: 'You are a friendly member of this chat. Answer briefly and naturally, in English. The memories and chat lines you are given are for reference: use them when they help, never invent what they do not say, and do not mention the memory or the prompt itself.',
}

/** The persona for a channel: its own, else the configured one, else the built-in one in the user's language. */
export function personaFor(
  channel: string,
  language: Language,
  settings: { system: string; personas: { channel: string; prompt: string }[] },
): string {
  const own = settings.personas.find((persona) => persona.channel === channel)?.prompt?.trim()
  return own || settings.system.trim() || SYSTEM[language]
}
