import type { Logger } from '../core/observability'
import type { Counters } from '../core/observability'
import type { MessageRow } from '../messages'
import type { CaptureJournal } from './journal'
import type { MessageSink } from './store-rows'
import { storeRows } from './store-rows'

/**
 * Batches captured messages into few database writes. `add` is synchronous and never waits:
 * rows are written every `intervalMs` or once `batchSize` wait.
 */
export class MessageRecorder {
  private buffer: MessageRow[] = []
  private writing = Promise.resolve()
  private timer?: () => void
  /** Root message of recently seen messages, so a reply chain is resolved without a query. */
  private roots = new Map<string, string>()

  constructor(
    private sink: MessageSink,
    private options: {
      batchSize: number
      intervalMs: number
      maxBuffered: number
      rootCacheSize: number
      schedule(callback: () => void, ms: number): () => void
      counters: Counters
      logger: Logger
      /** Keeps the buffered rows on disk until they are stored. */
      journal?: Pick<CaptureJournal, 'append' | 'seal' | 'release' | 'setAside'>
    },
  ) {}

  /** Set when the plugin stops: a write that fails then is the database already gone. */
  stopping = false

  get pending() {
    return this.buffer.length
  }

  /** The root of `messageId`'s reply chain, as far as recent messages tell. */
  rootOf(platform: string, channelId: string, replyMessageId: string): string {
    return this.roots.get(`${platform}\u0000${channelId}\u0000${replyMessageId}`) ?? replyMessageId
  }

  add(row: MessageRow) {
    const key = `${row.platform}\u0000${row.channelId}\u0000${row.messageId}`
    this.roots.set(key, row.rootMessageId)
    if (this.roots.size > this.options.rootCacheSize) this.roots.delete(this.roots.keys().next().value!)
    if (this.buffer.length >= this.options.maxBuffered) {
      this.options.counters.inc('capture.dropped')
      return
    }
    this.buffer.push(row)
    this.options.journal?.append([row])
    this.options.counters.inc('capture.messages')
    if (this.buffer.length >= this.options.batchSize) void this.flush()
    else this.schedule()
  }

  private schedule() {
    this.timer ??= this.options.schedule(() => {
      this.timer = undefined
      void this.flush().then(() => this.buffer.length && this.schedule())
    }, this.options.intervalMs)
  }

  /** Writes what is buffered; resolves when every earlier write has finished. */
  flush(): Promise<void> {
    this.timer?.()
    this.timer = undefined
    const rows = this.buffer.splice(0)
    const sealed = this.options.journal?.seal()
    if (rows.length || sealed) {
      this.writing = this.writing.then(async () => {
        if (rows.length) await this.write(rows)
        this.options.journal?.release(sealed)
      })
    }
    return this.writing
  }

  /**
   * Writes a batch (`storeRows`): a row the database refuses is set aside beside the journal (or dropped
   * without one), counted and logged, never retried forever and never holding back the others. When the
   * database is down the rows wait for the next flush.
   */
  private async write(rows: MessageRow[]): Promise<void> {
    const { counters, logger, journal } = this.options
    try {
      const refused = await storeRows(this.sink, rows)
      if (!refused.length) return
      counters.inc('capture.rejected', refused.length)
      const kept = journal?.setAside(`live-${process.pid}`, refused)
      if (kept) logger.warn('the database refused %d messages, set aside in %s: %s', refused.length, kept, refused[0].reason)
      else logger.warn('the database refused %d messages, dropped: %s', refused.length, refused[0].reason)
    } catch (error) {
      // keep the rows for the next flush, as far as the buffer bound allows
      const room = Math.max(0, this.options.maxBuffered - this.buffer.length)
      const kept = rows.slice(0, room)
      this.buffer.unshift(...kept)
      // they move to the journal's current file before their sealed one is deleted
      this.options.journal?.append(kept)
      counters.inc('capture.write-failed')
      counters.inc('capture.dropped', rows.length - Math.min(room, rows.length))
      if (this.stopping && this.options.journal) {
        // Koishi stops the database before the plugin: the journal keeps them for the next start
        logger.info('%d messages not yet stored are kept for the next start', kept.length)
      } else logger.warn('could not store %d messages, will retry: %s', rows.length, (error as Error).message)
    }
  }

  /** Changes a row that waits to be written; returns whether one waited. */
  patch(id: string, fields: Partial<MessageRow>): boolean {
    const row = this.buffer.find((row) => row.id === id)
    if (row) Object.assign(row, fields)
    return Boolean(row)
  }

  /** Forgets buffered rows of a user (their text is being erased). */
  dropUser(platform: string, userId: string) {
    this.buffer = this.buffer.filter((row) => !(row.platform === platform && row.userId === userId))
  }
}
