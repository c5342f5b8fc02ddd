import type { TermStatsView } from '../text/bm25'
import { statsView } from '../text/bm25'
import { matchTerms } from '../text/keywords'
import type { ChannelRef } from '../messages'

/**
 * Document frequencies of content terms per channel, for the keyword weights of the context builder
 * (a word said in every other message of a channel tells less than a word said twice). Fed with every
 * captured message; bounded: the `maxChannels` most recently fed channels are kept, each with at most
 * `maxTerms` distinct terms (the rarest are dropped first when a channel overflows, and counts are
 * halved so old talk fades). In memory only: after a restart a channel starts from what the builder
 * sees (the statistics of its candidate pool) until new messages fill it again.
 */

interface ChannelStats {
  documents: number
  terms: number
  df: Map<string, number>
}

export class TermStats {
  private channels = new Map<string, ChannelStats>()

  constructor(private options: { maxChannels?: number; maxTerms?: number } = {}) {}

  /** Counts one message of a channel. */
  add(channel: Pick<ChannelRef, 'platform' | 'channelId'>, text: string): void {
    const terms = matchTerms(text)
    if (!terms.length) return
    const key = keyOf(channel)
    let stats = this.channels.get(key)
    if (stats) this.channels.delete(key)
    else stats = { documents: 0, terms: 0, df: new Map() }
    this.channels.set(key, stats)
    stats.documents++
    stats.terms += terms.length
    for (const term of new Set(terms)) stats.df.set(term, (stats.df.get(term) ?? 0) + 1)
    const maxTerms = this.options.maxTerms ?? 50_000
    if (stats.df.size > maxTerms) halve(stats)
    const maxChannels = this.options.maxChannels ?? 500
    while (this.channels.size > maxChannels) this.channels.delete(this.channels.keys().next().value!)
  }

  /** The channel's statistics, or undefined when it has too few messages to say anything. */
  view(channel: Pick<ChannelRef, 'platform' | 'channelId'>, minDocuments = 20): TermStatsView | undefined {
    const stats = this.channels.get(keyOf(channel))
    if (!stats || stats.documents < minDocuments) return undefined
    const { df } = stats
    return statsView(stats.documents, stats.terms, (term) => df.get(term) ?? 0)
  }
}

function halve(stats: ChannelStats) {
  for (const [term, count] of stats.df) {
    const next = count >> 1
    if (next) stats.df.set(term, next)
    else stats.df.delete(term)
  }
  stats.terms = Math.round(stats.terms / 2)
  stats.documents = Math.max(1, stats.documents >> 1)
}

function keyOf(channel: Pick<ChannelRef, 'platform' | 'channelId'>) {
  return `${channel.platform}\u0000${channel.channelId}`
}
