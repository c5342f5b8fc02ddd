import type { RetrievedMemory } from '../facts'
import type { SpeakerRef } from '../scope'

/** The message a context is built for. */
export interface ContextTarget extends SpeakerRef {
  userName?: string
  content: string
  /** Platform message id, when the message was captured. */
  messageId?: string
  replyMessageId?: string
  /** Mentioned user ids. */
  mentions?: string[]
  /** The message @-s the bot (the bot's own earlier messages then relate to it). */
  isMentionBot?: boolean
  time: Date
}

export interface ContextOptions {
  /** Tokens of the whole context: long-term memories, summary and messages together. */
  tokenBudget?: number
  maxMessages?: number
  timeWindowHours?: number
  /** Include the long-term memories section (default true; it takes at most its share of the budget). */
  longTerm?: boolean
  /** Include the rolling summary section (default true; it takes at most its share of the budget). */
  summary?: boolean
  /** Include the group's memories in a group chat (default true; at most their share of the budget). */
  group?: boolean
}

/** `adjacent`: a turn right before or after one of the best candidates. */
export type CandidateSource = 'reply-chain' | 'thread-root' | 'topic' | 'semantic' | 'adjacent' | 'time-window'

export interface ContextMessage {
  id: string
  messageId: string
  userId: string
  userName: string
  role: 'user' | 'assistant'
  content: string
  createdAt: Date
  score: number
  tokens: number
  /** Where the candidate came from and the signals that scored it, for the explanation. */
  sources: CandidateSource[]
  signals: Record<string, number>
}

export interface BuiltContext {
  longTerm: RetrievedMemory[]
  /** The group's relevant active memories (design §6), in a group chat; added by the service. */
  group?: { id: string; statement: string; score: number }[]
  summary: string
  /** Chosen messages, oldest first. */
  messages: ContextMessage[]
  tokens: number
  /** Tokens of the plain time window the context replaces, for token savings. */
  windowTokens: number
  /** True when the build timed out or failed and the plain recent window was returned. */
  fallback: boolean
  buildMs: number
}
