import type { Turn } from '../facts'
import type { ChannelRef } from '../messages'
import type { SpeakerRef } from '../scope'

/** A channel of one platform: a dialogue is what was said there since it was last memorised. */
type ChannelKey = Pick<ChannelRef, 'platform' | 'channelId'>

interface Pending {
  /** The channel, and the user who opened the dialogue. */
  owner: SpeakerRef
  turns: { turn: Turn; sourceId: string }[]
  userTurns: number
  /** When a user last said something here. */
  lastUserAt: Date
}

/** What of one user's waits in a dialogue that has not ended. */
export interface WaitingTurns {
  owner: SpeakerRef
  /** The user's own lines in it. */
  userTurns: number
  /** When anyone last said something in it: its quiet time counts from here. */
  lastUserAt: Date
}

export interface FinishedDialogue {
  owner: SpeakerRef
  turns: Turn[]
  sourceIds: string[]
  /** When the newest user message of the dialogue was said: the channel's watermark once memorised. */
  until: Date
}

/**
 * Collects what was said in each channel since its last memorised dialogue — every user's lines (a
 * group dialogue has several speakers, each turn naming its own) and the bot's answers — and says when
 * a dialogue is finished. One extraction then reads the whole dialogue, whoever spoke.
 */
export class DialogueTracker {
  private pending = new Map<string, Pending>()
  private full: FinishedDialogue[] = []

  constructor(private options: { maxTurns: number; maxDialogues: number }) {}

  private key(channel: ChannelKey) {
    return JSON.stringify([channel.platform, channel.channelId])
  }

  /** Records a user turn said at `at`; returns how many user turns wait in the channel's dialogue. */
  user(owner: SpeakerRef, name: string, content: string, sourceId: string, at: Date): number {
    const key = this.key(owner)
    let entry = this.pending.get(key)
    if (!entry) {
      if (this.pending.size >= this.options.maxDialogues) {
        // the dialogue that has waited longest ends now rather than being forgotten
        const oldest = this.pending.values().next().value!
        this.full.push(this.finish(oldest.owner)!)
      }
      entry = { owner, turns: [], userTurns: 0, lastUserAt: at }
      this.pending.set(key, entry)
    }
    entry.userTurns += 1
    if (at > entry.lastUserAt) entry.lastUserAt = at
    const waiting = entry.userTurns
    this.push(key, entry, { role: 'user', name, content, time: at, userId: owner.userId }, sourceId)
    return waiting
  }

  /** Records the bot's answer in a channel. Returns false when nobody has said anything pending there. */
  assistant(channel: ChannelKey, name: string, content: string, sourceId: string, at?: Date): boolean {
    const key = this.key(channel)
    const entry = this.pending.get(key)
    if (!entry) return false
    this.push(key, entry, { role: 'assistant', name, content, ...(at && { time: at }) }, sourceId)
    return true
  }

  /** A dialogue that reaches `maxTurns` ends there (`takeFull`): no turn is ever dropped. */
  private push(key: string, entry: Pending, turn: Turn, sourceId: string) {
    entry.turns.push({ turn, sourceId })
    if (entry.turns.length < this.options.maxTurns) return
    this.full.push(this.finish(entry.owner)!)
    this.pending.delete(key)
  }

  /** Dialogues that reached `maxTurns` since the last call: they are finished, and wait to be memorised. */
  takeFull(): FinishedDialogue[] {
    return this.full.splice(0)
  }

  /** Channels whose dialogue has had no user message since `before` (only `channel`, when given). */
  quietSince(before: Date, channel?: ChannelKey): SpeakerRef[] {
    return [...this.pending.values()]
      .filter((entry) => entry.lastUserAt < before)
      .filter((entry) => !channel || (entry.owner.platform === channel.platform && entry.owner.channelId === channel.channelId))
      .map((entry) => entry.owner)
  }

  /** The dialogues `pick` picks that hold lines of `userId` (any user's when left out), with how many. */
  waitingOf(pick: (owner: SpeakerRef) => boolean, userId?: string): WaitingTurns[] {
    const found: WaitingTurns[] = []
    for (const entry of this.pending.values()) {
      if (!pick(entry.owner)) continue
      const userTurns = entry.turns.filter(({ turn }) => turn.role === 'user' && (userId === undefined || turn.userId === userId)).length
      if (userTurns) found.push({ owner: entry.owner, userTurns, lastUserAt: entry.lastUserAt })
    }
    return found
  }

  /** Ends the channel's dialogue and hands it over. */
  finish(channel: ChannelKey): FinishedDialogue | undefined {
    const key = this.key(channel)
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

  /** Whether the bot has answered the channel's dialogue: a turn of the bot follows its last user turn. */
  answered(channel: ChannelKey): boolean {
    const turns = this.pending.get(this.key(channel))?.turns ?? []
    return turns.length > 0 && turns[turns.length - 1].turn.role === 'assistant'
  }

  /**
   * Takes a turn out of the channel's dialogue (its message was recalled or deleted); a dialogue left with
   * no user turn goes. Returns whether the turn was there.
   */
  withdraw(channel: ChannelKey, sourceId: string): boolean {
    const key = this.key(channel)
    const entry = this.pending.get(key)
    const index = entry?.turns.findIndex((turn) => turn.sourceId === sourceId) ?? -1
    if (!entry || index < 0) return false
    const [{ turn }] = entry.turns.splice(index, 1)
    if (turn.role === 'user') entry.userTurns -= 1
    const speaker = entry.turns.find(({ turn }) => turn.role === 'user')?.turn.userId
    if (!speaker) this.pending.delete(key)
    else if (!entry.turns.some(({ turn }) => turn.userId === entry.owner.userId)) entry.owner = { ...entry.owner, userId: speaker }
    return true
  }

  /** The text of a turn still waiting becomes `content` (its message was edited). Returns whether it waits here. */
  revise(channel: ChannelKey, sourceId: string, content: string): boolean {
    const waiting = this.pending.get(this.key(channel))?.turns.find((turn) => turn.sourceId === sourceId)
    if (waiting) waiting.turn = { ...waiting.turn, content }
    return Boolean(waiting)
  }

  /** Drops what a user said (after `memory.forget --all`); a dialogue left with no user line goes. */
  drop(platform: string, userId: string) {
    for (const [key, entry] of this.pending) {
      if (entry.owner.platform !== platform) continue
      entry.turns = entry.turns.filter(({ turn }) => turn.userId !== userId)
      entry.userTurns = entry.turns.filter(({ turn }) => turn.role === 'user').length
      if (!entry.userTurns) this.pending.delete(key)
      else if (entry.owner.userId === userId) {
        const next = entry.turns.find(({ turn }) => turn.role === 'user')!.turn.userId!
        entry.owner = { ...entry.owner, userId: next }
      }
    }
  }

  /** Dialogues waiting. */
  get size(): number {
    return this.pending.size
  }
}
