/** One line of a finished dialogue, oldest first. */
export interface Turn {
  role: 'user' | 'assistant'
  name: string
  content: string
  /** When it was said: relative dates in it ("明天", "next Monday") are resolved against it. */
  time?: Date
  /** Who said it (a user turn); a group dialogue has several speakers. */
  userId?: string
}

/** One atomic fact: a self-contained third-person statement that names the user. */
export interface ExtractedFact {
  statement: string
  /** Indexes in the conversation of the turns it was drawn from; absent when the judge cannot tell. */
  turns?: number[]
  /** The name (as shown in the conversation) of the person the fact is about, when the judge says it. */
  about?: string
}

export interface Extraction {
  /** Empty when nothing is worth keeping. */
  facts: ExtractedFact[]
  reason: string
}

export interface ExtractOptions {
  /** The dialogue's time, for turns that carry none. */
  now: Date
}

/** Reads a finished dialogue and states each fact worth keeping about its users, one statement per fact. */
export interface MemoryJudge {
  readonly id: string
  /** Throws when the extraction could not be made (provider down, answer invalid after the retry). */
  extract(conversation: Turn[], options: ExtractOptions): Promise<Extraction>
}
