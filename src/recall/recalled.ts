import type { RetrievedMemory } from '../facts'

/** A chat line a recalled memory stands on: who said it, when, and what. */
export interface SourceLine {
  /** The message's row id, `platform:channelId:messageId`. */
  id: string
  userId: string
  /** The speaker's name as the chat showed it. */
  name?: string
  content: string
  time: Date
}

/**
 * One memory `retrieve` hands back: a fact learnt from what the user said, or a line they said that
 * no fact of the list covers. A fact carries the lines it came from, a line carries itself, so the
 * words the person used are always at hand (design §4.4).
 */
export interface RecalledMemory extends RetrievedMemory {
  kind: 'fact' | 'message'
  sources: SourceLine[]
}

export interface MemoryQuery {
  topK: number
  minScore: number
  /** Also facts a newer statement closed. */
  history?: boolean
  /** Facts only, no raw lines. */
  factsOnly?: boolean
}
