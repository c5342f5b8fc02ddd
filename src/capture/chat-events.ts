import type { Context, Session } from 'koishi'
import { KeyedLock } from '../core/keyed-lock'
import type { Counters, Logger } from '../core/observability'
import type { MessageRow } from '../messages'
import type { ChannelRef } from '../scope'
import { cleanId, ID_MAX } from '../scope'
import { cleanText } from '../text/clean'
import { clipToField } from '../text/field-limit'
import type { PlaceholderLocale } from './render'
import { renderPlainText } from './render'

type Where = Pick<ChannelRef, 'platform' | 'channelId'>

/** The stored message a chat event names: the platform, its channel and the platform's id of the message. */
export interface EventTarget extends Where {
  messageId: string
}

export interface ChatEventDeps {
  /** Whether capture records the session's channel: events elsewhere are not the memory's. */
  records(session: Session): boolean
  /** The stored message of the channel with that platform id (a user's message, or the bot's by its sent id). */
  find(channel: Where, messageId: string): Promise<MessageRow | undefined>
  /** Capture's part: the message's turn leaves (`withdraw`) or changes in (`revise`) the dialogue that waits. */
  capture: {
    flush(): Promise<void>
    withdraw(row: MessageRow): Promise<void>
    revise(row: MessageRow, content: string): Promise<boolean>
    rememorise(row: MessageRow): Promise<void>
  }
  /** Erases the message and what only it supports, as a forget of it does (`Eraser.forgetMessage`). */
  erase(row: MessageRow, options: { edited: boolean }): Promise<unknown>
  /** Stores the row and indexes it (the edited text). */
  store(row: MessageRow): Promise<void>
  placeholders: PlaceholderLocale
  counters: Counters
  logger: Logger
}

/**
 * What the chat does to a message after it was said reaches the memory: a recall (撤回) by its sender or a
 * delete by an admin (`message-deleted`) erases it as a forget of it would, and an edit (`message-updated`)
 * replaces its text and has what was learnt from it judged again. Events come from outside: a channel
 * capture does not record, an id it never stored or a session without the fields is ignored, and a
 * message is only ever looked for in the event's own platform and channel.
 */
export class ChatEvents {
  /** One event at a time per message: an edit and then a recall happen in that order. */
  private readonly lock = new KeyedLock()
  private readonly inFlight = new Set<Promise<void>>()

  constructor(private readonly deps: ChatEventDeps) {}

  listen(ctx: Context): void {
    ctx.on('message-deleted', (session) => this.track(this.run(session, (row) => this.deleted(row))))
    ctx.on('message-updated', (session) => this.track(this.run(session, (row) => this.updated(row, session))))
  }

  /** Resolves once every event received so far has been applied. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight)
  }

  private track(event: Promise<void>): void {
    this.inFlight.add(event)
    void event.finally(() => this.inFlight.delete(event))
  }

  private async run(session: Session, handle: (row: MessageRow) => Promise<void>): Promise<void> {
    const target = eventTarget(session)
    if (!target || !this.deps.records(session)) return
    const { counters, logger } = this.deps
    try {
      await this.lock.run(JSON.stringify([target.platform, target.channelId, target.messageId]), async () => {
        await this.deps.capture.flush()
        const row = await this.deps.find(target, target.messageId)
        if (row) await handle(row)
        else counters.inc('events.unknown')
      })
    } catch (error) {
      counters.inc('events.failed')
      logger.warn('could not apply a %s of a message: %s', session.type, (error as Error).message)
    }
  }

  /** Recalled or deleted: as if it had never been said. */
  private async deleted(row: MessageRow): Promise<void> {
    await this.deps.capture.withdraw(row)
    await this.deps.erase(row, { edited: false })
    this.deps.counters.inc('events.deleted')
  }

  /**
   * Edited: the old text goes as a recall's would, with what only it supported, and the new text is
   * stored under the same id; a dialogue that waits takes it as it is, else the dialogue it was said in is
   * memorised again (the normal path: its judge call counts like any other).
   */
  private async updated(row: MessageRow, session: Session): Promise<void> {
    const { capture, placeholders } = this.deps
    const elements = session.elements
    if (!Array.isArray(elements)) return
    const content = clipToField(cleanText(renderPlainText(elements, placeholders)))
    // platforms report other changes as updates too (a pin, a link preview): the text is what counts
    if (!content || content === row.content) return
    const said = cleanText(renderPlainText(elements, placeholders, session.selfId))
    const waiting = await capture.revise(row, said)
    await this.deps.erase(row, { edited: true })
    const edited = { ...row, content }
    await this.deps.store(edited)
    if (!waiting) await capture.rememorise(edited)
    this.deps.counters.inc('events.edited')
  }
}

/** The message an event names, with its ids as capture stores them; undefined when a field is missing or unusable. */
export function eventTarget(session: Pick<Session, 'platform' | 'channelId' | 'messageId'>): EventTarget | undefined {
  const { platform, channelId, messageId } = session
  const fields = [platform, channelId, messageId]
  if (!fields.every((field) => typeof field === 'string' && field.length > 0 && field.length <= ID_MAX)) return
  return { platform: cleanId(platform), channelId: cleanId(channelId!), messageId: cleanId(messageId!) }
}
