import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { countTokens } from '../text/token-count'
import type { RecalledEpisode } from '../episodes'
import type { BuiltContext } from './types'
import type { ChatMessage } from '../providers/types'

/**
 * Prompt assembly (design §7.5): the messages for a chat model, in this order —
 * system prompt, long-term memories, the user's profile (when given), conversation summary, earlier exchanges (episodic recall, when
 * given), the chosen context, and the current message. Context messages keep their roles: the bot's
 * own lines are `assistant` turns, everyone else's are `user` turns prefixed with the speaker's name
 * (group chats have many speakers). Headings follow the language of the current message.
 */

export interface PromptInput {
  /** The bot's system prompt ('' for none). */
  system: string
  context: Pick<BuiltContext, 'longTerm' | 'summary' | 'messages' | 'group'>
  current: { name: string; content: string }
  episodes?: Pick<RecalledEpisode, 'userText' | 'botText'>[]
  /** The current user's profile text, already within its token budget; placed after the long-term memories. */
  profile?: string
  /** Headings' language; default: detected from the current message. */
  language?: Language
  /**
   * `messages` (default): context lines as chat turns. `transcript`: the context as one system
   * block, for models that handle alternating turns poorly.
   */
  style?: 'messages' | 'transcript'
}

const HEADINGS: Record<
  Language,
  { longTerm: string; profile: string; group: string; summary: string; episodes: string; transcript: string }
> = {
  zh: {
    longTerm: '关于用户的长期记忆：',
    profile: '用户画像：',
    group: '关于本群的记忆：',
    summary: '对话背景：',
    episodes: '与该用户之前的相关对话：',
    transcript: '相关的聊天记录：',
  },
  en: {
    longTerm: 'Long-term memories about the user:',
    profile: "The user's profile:",
    group: 'What this group remembers:',
    summary: 'Conversation so far:',
    episodes: 'Earlier exchanges with this user:',
    transcript: 'Relevant chat messages:',
  },
}

export function assemblePrompt(input: PromptInput): ChatMessage[] {
  const language = input.language ?? detectLanguage(input.current.content, 'zh')
  const headings = HEADINGS[language]
  const out: ChatMessage[] = []
  if (input.system.trim()) out.push({ role: 'system', content: input.system.trim() })
  const { longTerm, summary, messages } = input.context
  if (longTerm.length)
    out.push({ role: 'system', content: [headings.longTerm, ...longTerm.map((memory) => `- ${memory.content}`)].join('\n') })
  if (input.profile?.trim()) out.push({ role: 'system', content: `${headings.profile}\n${input.profile.trim()}` })
  if (input.context.group?.length) {
    out.push({ role: 'system', content: [headings.group, ...input.context.group.map((memory) => `- ${memory.statement}`)].join('\n') })
  }
  if (summary.trim()) out.push({ role: 'system', content: `${headings.summary}\n${summary.trim()}` })
  if (input.episodes?.length) {
    const lines = input.episodes.map((episode) => `- User: ${episode.userText}\n  Assistant: ${episode.botText.replace(/\n/g, '\n  ')}`)
    out.push({ role: 'system', content: [headings.episodes, ...lines].join('\n') })
  }
  if (input.style === 'transcript') {
    if (messages.length)
      out.push({
        role: 'system',
        content: [headings.transcript, ...messages.map((message) => `${message.userName}: ${message.content}`)].join('\n'),
      })
  } else {
    for (const message of messages) {
      out.push(
        message.role === 'assistant'
          ? { role: 'assistant', content: message.content }
          : { role: 'user', content: `${message.userName}: ${message.content}` },
      )
    }
  }
  out.push({ role: 'user', content: input.current.name ? `${input.current.name}: ${input.current.content}` : input.current.content })
  return out
}

/** Tokens of the assembled messages' contents (the counting tokenizer; per-message overhead not included). */
export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countTokens(message.content), 0)
}
