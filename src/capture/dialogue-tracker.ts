import type { FactOwner, Turn } from '../facts'

interface Pending {
  owner: FactOwner
  turns: { turn: Turn; sourceId: string }[]
  userTurns: number
}

export interface FinishedDialogue {
  owner: FactOwner
  turns: Turn[]
  sourceIds: string[]
}

/**
 * Collects what each user said (and what the bot answered them) since their last memorised
 * dialogue, per channel, and says when a dialogue is finished.
 */
export class DialogueTracker {
  private pending = new Map<string, Pending>()

  constructor(private options: { maxTurns: number; maxDialogues: number }) {}

  private key(owner: FactOwner) {
    return JSON.stringify([owner.platform, owner.channelId, owner.userId])
  }

  /** Records a user turn; returns how many user turns wait in this dialogue. */
  user(owner: FactOwner, name: string, content: string, sourceId: string): number {
    const key = this.key(owner)
    let entry = this.pending.get(key)
    if (!entry) {
      if (this.pending.size >= this.options.maxDialogues) {
        // forget the dialogue that has waited longest
        this.pending.delete(this.pending.keys().next().value!)
      }
      entry = { owner, turns: [], userTurns: 0 }
      this.pending.set(key, entry)
    }
    this.push(entry, { role: 'user', name, content }, sourceId)
    entry.userTurns += 1
    return entry.userTurns
  }

  /** Records the bot's answer to `owner`. Returns false when that user has said nothing pending. */
  assistant(owner: FactOwner, name: string, content: string, sourceId: string): boolean {
    const entry = this.pending.get(this.key(owner))
    if (!entry) return false
    this.push(entry, { role: 'assistant', name, content }, sourceId)
    return true
  }

  private push(entry: Pending, turn: Turn, sourceId: string) {
    entry.turns.push({ turn, sourceId })
    if (entry.turns.length > this.options.maxTurns) entry.turns.shift()
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
    }
  }

  /** Drops what a user said in a channel (after `memory.forget --all`). */
  drop(platform: string, userId: string) {
    for (const [key, entry] of this.pending) {
      if (entry.owner.platform === platform && entry.owner.userId === userId) this.pending.delete(key)
    }
  }
}
