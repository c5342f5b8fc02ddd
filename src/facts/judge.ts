/** One line of a finished dialogue, oldest first. */
export interface Turn {
  role: 'user' | 'assistant'
  name: string
  content: string
}

export interface Decision {
  shouldRemember: boolean
  reason: string
}

/** Decides whether a dialogue holds something worth remembering, and states it. */
export interface MemoryJudge {
  readonly id: string
  /** Throws when the decision could not be made (provider down, answer invalid after the retry). */
  decide(conversation: Turn[]): Promise<Decision>
  /** One complete third-person statement in the language of the conversation. Throws on failure. */
  summarize(conversation: Turn[]): Promise<string>
}
