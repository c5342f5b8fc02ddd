import type { ChatConfig } from '../config'

/** What the trigger rules read of a message. */
export interface IncomingMessage {
  isDirect: boolean
  /** The message @-s the bot. */
  atSelf: boolean
  /** The message quotes one of the bot's messages. */
  repliesToBot: boolean
  /** The text with the @ removed. */
  content: string
}

export type TriggerRules = Pick<ChatConfig, 'private' | 'mention' | 'reply' | 'keywords' | 'probability'>

/**
 * Whether the built-in chat answers a message: private messages, @-mentions, replies to the bot
 * and keywords as set, and any other group message with the set probability.
 */
export function shouldAnswer(message: IncomingMessage, rules: TriggerRules, random: () => number = Math.random): boolean {
  if (!message.content.trim()) return false
  if (message.isDirect) return rules.private
  if (message.atSelf && rules.mention) return true
  if (message.repliesToBot && rules.reply) return true
  if (rules.keywords.some((word) => word.trim() && message.content.includes(word.trim()))) return true
  return rules.probability > 0 && random() < rules.probability
}

/** One reply per channel per cooldown; a channel's turn is taken when an answer starts. */
export class Cooldown {
  private readonly last = new Map<string, number>()

  constructor(
    private readonly seconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(channel: string): boolean {
    const now = this.now()
    const last = this.last.get(channel)
    if (last !== undefined && now - last < this.seconds * 1000) return false
    this.last.set(channel, now)
    if (this.last.size > 10_000) this.last.delete(this.last.keys().next().value!)
    return true
  }
}
