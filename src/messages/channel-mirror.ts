import type { Logger } from '../core/observability'
import type { Clock, Where } from './channel-clock'
import { channelKey } from './channel-clock'
import { ChannelRows } from './channel-rows'
import type { Stamp } from './neighbours'
import type { MessageRow } from './table'

/** Rows read per query while a channel loads (the event loop gets a turn between reads). */
const PAGE = 500
/** What a row is taken to cost before a load, to see whether the channel fits. */
const ESTIMATED_ROW_BYTES = 400
/** A channel used this recently is not dropped to make room for another. */
const BUSY_MS = 60_000
/** How long after a refused or spoilt load the channel is left to the database. */
const RETRY_MS = 60_000
/** How long a channel another instance writes is left to the database: its rows would keep reloading. */
const SHARED_MS = 600_000
/** Own writes are announced to other instances together, this long after the first. */
const TICK_MS = 200

/** Reads of the database a load makes. */
export interface ChannelReads {
  count(channel: Where): Promise<number>
  /** The channel's rows after `after` in timeline order (from the start without it), the first `limit`. */
  page(channel: Where, after: Stamp | undefined, limit: number): Promise<MessageRow[]>
}

export interface ChannelMirrorOptions {
  /** Memory for held channels; 0 holds none (own writes are still announced). */
  capBytes: number
  clock: Clock
  reads: ChannelReads
  logger: Logger
  now?: () => number
}

interface Held {
  channel: Where
  rows: ChannelRows
  /** The channel's clock when the rows last matched the database. */
  version: number
  usedAt: number
}

interface Loading {
  /** Own writes while the channel loads, applied to the loaded rows. */
  journal: ((rows: ChannelRows) => void)[]
  /** Own announcements of the channel since the load read the clock. */
  ticks: number
  /** An announcement failed: the load cannot know the clock. */
  spoilt: boolean
}

export interface MirrorStats {
  channels: number
  rows: number
  bytes: number
  capBytes: number
}

/**
 * The channels whose every message this instance holds in memory, so that the context builder reads
 * no rows from the database (design §2.3: cache per channel between messages).
 *
 * A channel loads in the background on its first read, in pages, one channel at a time, if it fits
 * in `capBytes` (least recently used channels make room, never one used within the last minute).
 * Own writes go to the held rows once the database has them, and are announced to other instances
 * sharing the database through the channel's clock (`ChannelClock`). Before it answers, a held channel
 * reads its clock: a version other than the one its rows match means another instance wrote, and the
 * channel is dropped and left to the database for a while. So the rows answered are the database's.
 */
export class ChannelMirror {
  private readonly held = new Map<string, Held>()
  private readonly loading = new Map<string, Loading>()
  private readonly notBefore = new Map<string, number>()
  private readonly unticked = new Map<string, Where>()
  private readonly reading = new Map<string, Promise<number | undefined>>()
  private lastFound?: Held
  private loads: Promise<void> = Promise.resolve()
  private tickTimer?: NodeJS.Timeout
  private ticking?: Promise<void>
  /** Counts announcements begun, so that a clock read that overlapped one is not trusted. */
  private tickEpoch = 0
  private readonly now: () => number

  constructor(private readonly options: ChannelMirrorOptions) {
    this.now = options.now ?? Date.now
  }

  /** The channel's rows if held and no other instance wrote the channel since; else starts its load. */
  async fresh(channel: Where): Promise<ChannelRows | undefined> {
    const key = channelKey(channel)
    const held = this.held.get(key)
    if (!held) {
      this.load(channel)
      return undefined
    }
    // reads that ask at once share one read of the clock
    let reading = this.reading.get(key)
    if (!reading) {
      reading = this.clockNow(channel).finally(() => this.reading.delete(key))
      this.reading.set(key, reading)
    }
    const version = await reading
    // undefined: an own announcement ran meanwhile, so the clock cannot tell; the table answers this read
    if (this.held.get(key) !== held || version === undefined) return undefined
    if (version !== held.version) {
      this.options.logger.debug('messages of %s written by another instance: read from the database for a while', key)
      this.drop(key, SHARED_MS)
      return undefined
    }
    held.usedAt = this.now()
    this.held.delete(key)
    this.held.set(key, held)
    return held.rows
  }

  /** The held channel a row is in (a read's rows are mostly of one channel: the last one found is asked first). */
  channelOf(id: string): Where | undefined {
    if (this.lastFound?.rows.get(id) && this.held.get(channelKey(this.lastFound.channel)) === this.lastFound) return this.lastFound.channel
    for (const held of this.held.values()) {
      if (!held.rows.get(id)) continue
      this.lastFound = held
      return held.channel
    }
    return undefined
  }

  /**
   * An own write the database has: applied to the channel's held rows (or to its load), and announced
   * to other instances shortly.
   */
  wrote(channel: Where, apply: (rows: ChannelRows) => void): void {
    const key = channelKey(channel)
    const held = this.held.get(key)
    if (held) {
      apply(held.rows)
      // channels grow as they are written: past the cap, those not read for a while make room, and
      // when all are in use the least recently used go anyway, so the cap holds
      if (this.bytes > this.options.capBytes && !this.makeRoom(0)) this.shrink()
    }
    this.loading.get(key)?.journal.push(apply)
    this.unticked.set(key, { platform: channel.platform, channelId: channel.channelId })
    this.scheduleTick()
  }

  /** An own write that failed and may have changed part of the channel: its held rows are dropped. */
  failed(channel: Where): void {
    this.drop(channelKey(channel), RETRY_MS)
    this.wrote(channel, () => {})
  }

  /** Announces own writes now, and settles loads under way. */
  async settled(): Promise<void> {
    clearTimeout(this.tickTimer)
    this.tickTimer = undefined
    while (this.ticking || this.unticked.size) await (this.ticking ?? this.startTick())
    await this.loads
  }

  /** One announcement at a time: writes that land while one runs go in the next. */
  private scheduleTick() {
    if (this.tickTimer || this.ticking) return
    this.tickTimer = setTimeout(() => {
      this.tickTimer = undefined
      void this.startTick()
    }, TICK_MS)
    this.tickTimer.unref?.()
  }

  private startTick(): Promise<void> {
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined
      if (this.unticked.size) this.scheduleTick()
    })
    return this.ticking
  }

  stats(): MirrorStats {
    let rows = 0
    for (const held of this.held.values()) rows += held.rows.size
    return { channels: this.held.size, rows, bytes: this.bytes, capBytes: this.options.capBytes }
  }

  private async tick(): Promise<void> {
    const channels = [...this.unticked.values()]
    this.unticked.clear()
    if (!channels.length) return
    this.tickEpoch++
    let versions: Map<string, number>
    try {
      versions = await this.options.clock.tick(channels)
    } catch (error) {
      this.options.logger.warn('could not announce writes of %d channel(s): %s', channels.length, (error as Error).message)
      for (const channel of channels) {
        const key = channelKey(channel)
        this.drop(key, RETRY_MS)
        const loading = this.loading.get(key)
        if (loading) loading.spoilt = true
      }
      return
    }
    for (const channel of channels) {
      const key = channelKey(channel)
      const version = versions.get(key)!
      const held = this.held.get(key)
      if (held && version === held.version + 1) held.version = version
      else if (held) this.drop(key, SHARED_MS)
      const loading = this.loading.get(key)
      if (loading) loading.ticks++
    }
  }

  /**
   * The channel's clock now; undefined when an own announcement ran during the read (the clock may or
   * may not count it) or the read failed.
   */
  private async clockNow(channel: Where): Promise<number | undefined> {
    if (this.ticking) return undefined
    const epoch = this.tickEpoch
    try {
      const version = (await this.options.clock.read([channel])).get(channelKey(channel))!
      return epoch === this.tickEpoch && !this.ticking ? version : undefined
    } catch (error) {
      this.options.logger.debug('could not read the clock of %s: %s', channelKey(channel), (error as Error).message)
      return undefined
    }
  }

  /** The channel's clock, waiting out own announcements (for a load, which may wait). */
  private async settledVersion(channel: Where): Promise<number | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      await this.ticking
      const version = await this.clockNow(channel)
      if (version !== undefined) return version
    }
    return undefined
  }

  private load(channel: Where): void {
    const key = channelKey(channel)
    if (this.options.capBytes <= 0 || this.loading.has(key) || (this.notBefore.get(key) ?? 0) > this.now()) return
    const loading: Loading = { journal: [], ticks: 0, spoilt: false }
    this.loading.set(key, loading)
    this.loads = this.loads
      .then(() => this.fill(channel, loading))
      .catch((error) => {
        this.drop(key, RETRY_MS)
        this.options.logger.warn('could not hold the messages of %s: %s', key, (error as Error).message)
      })
      .finally(() => this.loading.delete(key))
  }

  private async fill(channel: Where, loading: Loading): Promise<void> {
    const key = channelKey(channel)
    const { reads } = this.options
    const estimate = (await reads.count(channel)) * ESTIMATED_ROW_BYTES
    if (!this.makeRoom(estimate)) return this.drop(key, RETRY_MS)
    const start = await this.settledVersion(channel)
    if (start === undefined) throw new Error('the clock could not be read')
    loading.ticks = 0
    const rows: MessageRow[] = []
    for (let after: Stamp | undefined; ;) {
      const page = await reads.page(channel, after, PAGE)
      rows.push(...page)
      if (page.length < PAGE) break
      after = page[page.length - 1]
      await new Promise((resolve) => setImmediate(resolve))
    }
    const end = await this.settledVersion(channel)
    // another instance wrote while the rows were read
    if (loading.spoilt || end === undefined || end !== start + loading.ticks) return this.drop(key, RETRY_MS)
    const table = new ChannelRows(rows)
    for (const apply of loading.journal) apply(table)
    if (!this.makeRoom(table.bytes)) return this.drop(key, RETRY_MS)
    this.held.set(key, {
      channel: { platform: channel.platform, channelId: channel.channelId },
      rows: table,
      version: end,
      usedAt: this.now(),
    })
  }

  /** What the held channels take. */
  private get bytes(): number {
    let bytes = 0
    for (const held of this.held.values()) bytes += held.rows.bytes
    return bytes
  }

  /** Drops the least recently used channels not in use until `bytes` more fit; false if they cannot. */
  private makeRoom(bytes: number): boolean {
    if (bytes > this.options.capBytes) return false
    const busySince = this.now() - BUSY_MS
    for (const [key, held] of this.held) {
      if (this.bytes + bytes <= this.options.capBytes) break
      if (held.usedAt >= busySince) return false
      this.drop(key, 0)
    }
    return this.bytes + bytes <= this.options.capBytes
  }

  /** Drops the least recently used channels, in use or not, until the held ones fit the cap. */
  private shrink(): void {
    for (const key of this.held.keys()) {
      if (this.bytes <= this.options.capBytes) break
      this.drop(key, RETRY_MS)
    }
  }

  /** Drops the channel's rows if held, and leaves its reads to the database for `waitMs`. */
  private drop(key: string, waitMs: number): void {
    this.held.delete(key)
    if (waitMs) this.notBefore.set(key, this.now() + waitMs)
  }
}
