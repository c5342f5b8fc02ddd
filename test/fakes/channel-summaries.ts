import type { ChannelSummaryStore } from '../../src/channel-summaries/store'
import type { ChannelSummaryRecord } from '../../src/channel-summaries/table'
import type { ChannelRef } from '../../src/messages'

/** An in-memory `ChannelSummaryStore`. */
export class InMemoryChannelSummaryStore implements ChannelSummaryStore {
  private records = new Map<string, ChannelSummaryRecord>()
  async get(channel: ChannelRef) {
    const record = this.records.get(`${channel.platform}\u0000${channel.channelId}`)
    return record && { ...record }
  }
  async save(record: ChannelSummaryRecord) {
    this.records.set(`${record.platform}\u0000${record.channelId}`, { ...record })
  }
  async remove(channel: Pick<ChannelRef, 'platform' | 'channelId'>) {
    return Number(this.records.delete(`${channel.platform}\u0000${channel.channelId}`))
  }
}
