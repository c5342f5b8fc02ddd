import type { Counters, Logger } from '../core/observability'
import type { MemorizeOutcome } from '../facts'
import type { KeyedQueue } from '../core/keyed-queue'
import type { FinishedDialogue } from './dialogue-tracker'

export interface BacklogDeps {
  queue: Pick<KeyedQueue, 'push'>
  memorize(dialogue: FinishedDialogue): Promise<MemorizeOutcome>
  /** The dialogue is done with (memorised, or given up): its channel's watermark moves past it. */
  done(dialogue: FinishedDialogue): Promise<void>
  /** Runs before a channel's dialogues are memorised (the messages must be stored before facts name them). */
  before(): Promise<void>
  schedule(callback: () => void, ms: number): () => void
  /** Wait before the first retry of a failed dialogue; doubled at each further failure. */
  retryMs: number
  /** A dialogue that failed this often is given up (its channel moves on). */
  maxAttempts: number
  counters: Counters
  logger: Logger
}

interface Channel {
  dialogues: FinishedDialogue[]
  /** Failures of the first dialogue. */
  attempts: number
  /** A job for the channel waits in the queue or runs. */
  queued: boolean
  /** The dialogue being memorised now: a recall or an edit leaves it as it is (`settled` waits for it). */
  current?: FinishedDialogue
  /** Cancels the timer of a retry that waits. */
  retry?: () => void
}

/** Longest wait between two attempts at a dialogue. */
const MAX_RETRY_MS = 30 * 60_000
/** Dialogues one channel keeps waiting in memory; past it the oldest waits for a restart (its watermark holds it). */
const MAX_WAITING = 1000

/**
 * The finished dialogues of each channel, memorised in order by one job per channel. A dialogue whose
 * extraction failed (provider down, timeout, malformed answer) is retried with a doubling wait and
 * holds its channel back meanwhile, so the channel's watermark never passes a dialogue not memorised:
 * what a restart interrupts is read back. A full queue never drops a dialogue: it waits here, and the
 * channel is queued again when a job ends.
 */
export class MemorizeBacklog {
  private readonly channels = new Map<string, Channel>()
  /** The job of each channel that runs now. */
  private readonly running = new Map<string, Promise<void>>()
  /** Cleared at stop: a job still running leaves what it has not finished to the next start. */
  private stopped = false

  constructor(private readonly deps: BacklogDeps) {}

  /** Dialogues of the chats `pick` picks that wait here (or are being memorised). */
  waitingOf(pick: (owner: FinishedDialogue['owner']) => boolean): number {
    let count = 0
    for (const channel of this.channels.values()) count += channel.dialogues.filter((dialogue) => pick(dialogue.owner)).length
    return count
  }

  add(key: string, dialogue: FinishedDialogue): void {
    let channel = this.channels.get(key)
    if (!channel) {
      channel = { dialogues: [], attempts: 0, queued: false }
      this.channels.set(key, channel)
    }
    channel.dialogues.push(dialogue)
    if (channel.dialogues.length > MAX_WAITING) {
      channel.dialogues.splice(1, 1)
      this.deps.counters.inc('memorize.deferred')
    }
    this.pump(key)
  }

  /** Dialogues that wait (in every channel). */
  get size(): number {
    let size = 0
    for (const channel of this.channels.values()) size += channel.dialogues.length
    return size
  }

  /** Drops a user's lines from the dialogues that wait (their words are being erased); an empty dialogue goes. */
  dropUser(platform: string, userId: string): void {
    for (const channel of this.channels.values()) {
      channel.dialogues = channel.dialogues.flatMap((dialogue) => {
        if (dialogue.owner.platform !== platform) return [dialogue]
        const kept = dialogue.turns.flatMap((turn, i) => (turn.userId === userId ? [] : [{ turn, sourceId: dialogue.sourceIds[i] }]))
        const next = kept.find(({ turn }) => turn.role === 'user')?.turn.userId
        if (!next) return []
        const owner = dialogue.owner.userId === userId ? { ...dialogue.owner, userId: next } : dialogue.owner
        return [{ ...dialogue, owner, turns: kept.map(({ turn }) => turn), sourceIds: kept.map(({ sourceId }) => sourceId) }]
      })
    }
  }

  /**
   * Takes a message's turn out of the dialogues that wait (it was recalled or deleted); a dialogue left with
   * no user turn goes. Returns whether a dialogue of the channel held it.
   */
  withdraw(key: string, sourceId: string): boolean {
    const channel = this.channels.get(key)
    if (!channel) return false
    let found = false
    channel.dialogues = channel.dialogues.flatMap((dialogue) => {
      const index = dialogue === channel.current ? -1 : dialogue.sourceIds.indexOf(sourceId)
      if (index < 0) return [dialogue]
      found = true
      const turns = dialogue.turns.filter((_, i) => i !== index)
      const speaker = turns.find((turn) => turn.role === 'user')?.userId
      if (!speaker) return []
      const owner = turns.some((turn) => turn.userId === dialogue.owner.userId) ? dialogue.owner : { ...dialogue.owner, userId: speaker }
      return [{ ...dialogue, owner, turns, sourceIds: dialogue.sourceIds.filter((_, i) => i !== index) }]
    })
    return found
  }

  /** The text of a waiting dialogue's turn becomes `content` (its message was edited). Returns whether it waits here. */
  revise(key: string, sourceId: string, content: string): boolean {
    let found = false
    const channel = this.channels.get(key)
    for (const dialogue of channel?.dialogues ?? []) {
      const index = dialogue === channel!.current ? -1 : dialogue.sourceIds.indexOf(sourceId)
      if (index < 0) continue
      dialogue.turns = dialogue.turns.map((turn, i) => (i === index ? { ...turn, content } : turn))
      found = true
    }
    return found
  }

  /** Resolves once the channel's job that runs now (if any) has ended: what it stores is then there to read. */
  async settled(key: string): Promise<void> {
    await this.running.get(key)
  }

  /** Drops what waits in memory (at stop: the watermarks bring it back at the next start). */
  clear(): void {
    this.stopped = true
    for (const channel of this.channels.values()) channel.retry?.()
    this.channels.clear()
  }

  private pump(key: string): void {
    if (this.stopped) return
    const channel = this.channels.get(key)
    if (!channel || channel.queued || channel.retry) return
    channel.queued = this.deps.queue.push(`memorize:${key}`, () => {
      const run = this.run(key)
      this.running.set(key, run)
      return run.finally(() => this.running.get(key) === run && this.running.delete(key))
    })
    if (!channel.queued) this.deps.counters.inc('memorize.waiting')
  }

  private async run(key: string): Promise<void> {
    const channel = this.channels.get(key)
    try {
      if (channel) await this.memorizeAll(key, channel)
    } finally {
      if (channel) channel.queued = false
      if (channel && !channel.dialogues.length && !channel.retry) this.channels.delete(key)
      // a job ended: channels the full queue turned away get their turn
      for (const other of this.channels.keys()) this.pump(other)
    }
  }

  private async memorizeAll(key: string, channel: Channel): Promise<void> {
    const { counters, logger } = this.deps
    await this.deps.before()
    while (channel.dialogues.length && this.channels.get(key) === channel && !this.stopped) {
      const dialogue = (channel.current = channel.dialogues[0])
      const error = await this.deps.memorize(dialogue).then(
        (outcome) => (outcome.status === 'failed' ? outcome.error : undefined),
        (error: unknown) => (error as Error).message ?? String(error),
      )
      channel.current = undefined
      if (this.stopped) return
      if (error !== undefined) {
        channel.attempts += 1
        if (channel.attempts < this.deps.maxAttempts) {
          const wait = Math.min(MAX_RETRY_MS, this.deps.retryMs * 2 ** (channel.attempts - 1))
          counters.inc('memorize.retry')
          channel.retry = this.deps.schedule(() => {
            channel.retry = undefined
            this.pump(key)
          }, wait)
          return
        }
        counters.inc('memorize.abandoned')
        logger.warn('gave up memorising a dialogue after %d attempts: %s', channel.attempts, error)
      }
      channel.attempts = 0
      channel.dialogues.shift()
      await this.deps.done(dialogue)
    }
  }
}
