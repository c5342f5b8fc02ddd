import { stringBytes } from '../core/memory-budget'
import type { TermStatsView } from '../text/bm25'
import { statsView } from '../text/bm25'
import { matchTerms } from '../text/keywords'
import type { ChannelRef } from '../messages'

/**
 * Document frequencies of content terms per channel, for the keyword weights of the context builder
 * (a word said in every other message of a channel tells less than a word said twice). Fed with every
 * captured message; bounded in bytes (`capBytes`, the memory budget's `terms` share): past it the least
 * recently fed channels leave, and a channel past a quarter of it, or past `MAX_TERMS` distinct terms,
 * has its counts halved (the rarest terms drop out, old talk fades). In memory only: after a restart,
 * or for a channel that left, the builder uses the statistics of its candidate pool until new messages
 * fill it again.
 */

interface ChannelStats {
  documents: number
  terms: number
  df: Map<string, number>
  bytes: number
}

/** Distinct terms a channel keeps before its counts are halved, whatever the memory. */
const MAX_TERMS = 50_000
/** What a channel costs besides its terms: its object, its map and the entry that holds it. */
const CHANNEL_BYTES = 200
/** What a term costs besides its string: its entry in the channel's map. */
const TERM_ENTRY_BYTES = 40
/** The cap when none is given (a standalone builder, tests). */
const DEFAULT_CAP_BYTES = 8 * 2 ** 20

const termBytes = (term: string) => TERM_ENTRY_BYTES + stringBytes(term)

export class TermStats {
  private channels = new Map<string, ChannelStats>()
  private bytes = 0
  private readonly capBytes: number

  constructor(options: { capBytes?: number } = {}) {
    this.capBytes = Math.max(0, options.capBytes ?? DEFAULT_CAP_BYTES)
  }

  /** Counts one message of a channel. */
  add(channel: Pick<ChannelRef, 'platform' | 'channelId'>, text: string): void {
    if (!this.capBytes) return
    const terms = matchTerms(text)
    if (!terms.length) return
    const key = keyOf(channel)
    let stats = this.channels.get(key)
    if (stats) this.channels.delete(key)
    else {
      stats = { documents: 0, terms: 0, df: new Map(), bytes: CHANNEL_BYTES + stringBytes(key) }
      this.bytes += stats.bytes
    }
    this.channels.set(key, stats)
    stats.documents++
    stats.terms += terms.length
    for (const term of new Set(terms)) {
      const count = stats.df.get(term)
      if (count === undefined) this.grow(stats, termBytes(term))
      stats.df.set(term, (count ?? 0) + 1)
    }
    if (stats.df.size > MAX_TERMS || stats.bytes > this.capBytes / 4) this.halve(stats)
    for (const [oldest, other] of this.channels) {
      if (this.bytes <= this.capBytes) break
      this.channels.delete(oldest)
      this.bytes -= other.bytes
    }
  }

  /** The channel's statistics, or undefined when it has too few messages to say anything. */
  view(channel: Pick<ChannelRef, 'platform' | 'channelId'>, minDocuments = 20): TermStatsView | undefined {
    const stats = this.channels.get(keyOf(channel))
    if (!stats || stats.documents < minDocuments) return undefined
    const { df } = stats
    return statsView(stats.documents, stats.terms, (term) => df.get(term) ?? 0)
  }

  /** What the statistics take (estimated) and how many channels they hold. */
  held(): { bytes: number; entries: number } {
    return { bytes: this.bytes, entries: this.channels.size }
  }

  private grow(stats: ChannelStats, bytes: number) {
    stats.bytes += bytes
    this.bytes += bytes
  }

  private halve(stats: ChannelStats) {
    for (const [term, count] of stats.df) {
      const next = count >> 1
      if (next) stats.df.set(term, next)
      else {
        stats.df.delete(term)
        this.grow(stats, -termBytes(term))
      }
    }
    stats.terms = Math.round(stats.terms / 2)
    stats.documents = Math.max(1, stats.documents >> 1)
  }
}

function keyOf(channel: Pick<ChannelRef, 'platform' | 'channelId'>) {
  return `${channel.platform}\u0000${channel.channelId}`
}
