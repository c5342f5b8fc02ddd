import type { ChannelRef } from '../messages'
import type { ChannelSummaryRecord } from './table'

/** Where summaries are kept (a Koishi table, one row per channel). */
export interface ChannelSummaryStore {
  get(channel: ChannelRef): Promise<ChannelSummaryRecord | undefined>
  save(record: ChannelSummaryRecord): Promise<void>
  /** Drops a channel's summary (its messages were erased). */
  /** Returns how many there were. */
  remove(channel: Pick<ChannelRef, 'platform' | 'channelId'>): Promise<number>
}
