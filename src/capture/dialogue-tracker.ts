import type { FactOwner, Turn } from '../facts'

interface Pending {
  owner: FactOwner
  turns: { turn: Turn; sourceId: string }[]
  userTurns: number
  /** When the user last said something here. */
  lastUserAt: Date
}

export interface FinishedDialogue {
  owner: FactOwner
  turns: Turn[]
  sourceIds: string[]
  /** When the newest user message of the dialogue was said: the speaker's watermark once memorised. */
  until: Date
}

/**
 * Collects what each user said (and what the bot answered them) since their last memorised
 * dialogue, per channel, and says when a dialogue is finished.
 */
export class DialogueTracker {
  private pending = new Map<string, Pending>()

  constructor(private options: { maxTurns: number; maxDialogues: number }) {}

  private key(owner: Pick<FactOwner, 'platform' | 'channelId' | 'userId'>) {
    return JSON.stringify([owner.platform, owner.channelId, owner.userId])
  }

  /** Records a user turn said at `at`; returns how many user turns wait in this dialogue. */
  user(owner: FactOwner, name: string, content: string, sourceId: string, at: Date): number {
    const key = this.key(owner)
    let entry = this.pending.get(key)
    if (!entry) {
      if (this.pending.size >= this.options.maxDialogues) {
        // forget the dialogue that has waited longest
        this.pending.delete(this.pending.keys().next().value!)
      }
      entry = { owner, turns: [], userTurns: 0, lastUserAt: at }
      this.pending.set(key, entry)
    }
    this.push(entry, { role: 'user', name, content, time: at }, sourceId)
    entry.userTurns += 1
    if (at > entry.lastUserAt) entry.lastUserAt = at
    return entry.userTurns
  }

  /** Records the bot's answer to `owner`. Returns false when that user has said nothing pending. */
  assistant(
    owner: Pick<FactOwner, 'platform' | 'channelId' | 'userId'>,
    name: string,
    content: string,
    sourceId: string,
    at?: Date,
  ): boolean {
    const entry = this.pending.get(this.key(owner))
    if (!entry) return false
    this.push(entry, { role: 'assistant', name, content, ...(at && { time: at }) }, sourceId)
    return true
  }

  private push(entry: Pending, turn: Turn, sourceId: string) {
    entry.turns.push({ turn, sourceId })
    if (entry.turns.length > this.options.maxTurns) entry.turns.shift()
  }

  /** Whose dialogues have had no user message since `before` (in one channel, when given). */
  quietSince(before: Date, channel?: { platform: string; channelId: string }): FactOwner[] {
    return [...this.pending.values()]
      .filter((entry) => entry.lastUserAt < before)
      .filter((entry) => !channel || (entry.owner.platform === channel.platform && entry.owner.channelId === channel.channelId))
      .map((entry) => entry.owner)
  }

  /** Ends the dialogue and hands it over. */
  finish(owner: FactOwner): FinishedDialogue | undefined {
    const key = this.key(owner)
    const entry = this.pending.get(key)
    if (!entry) return
    this.pending.delete(key)
    return {
      owner: entry.owner,
      turns: entry.turns.map((entry) => entry.turn),
      sourceIds: entry.turns.map((entry) => entry.sourceId),
      until: entry.lastUserAt,
    }
  }

  /** Drops what a user said in a channel (after `memory.forget --all`). */
  drop(platform: string, userId: string) {
    for (const [key, entry] of this.pending) {
      if (entry.owner.platform === platform && entry.owner.userId === userId) this.pending.delete(key)
    }
  }

  /** Dialogues waiting. */
  get size(): number {
    return this.pending.size
  }
}
