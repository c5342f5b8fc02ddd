import type { Context } from 'koishi'
import type { ChannelRef } from '../messages'
import type { ChannelSummaryStore } from './store'
import type { ChannelSummaryRecord } from './table'

const channelKey = (channel: Pick<ChannelRef, 'platform' | 'channelId'>) => `${channel.platform}:${channel.channelId}`

export class KoishiChannelSummaryStore implements ChannelSummaryStore {
  constructor(private ctx: Context) {}

  async get(channel: ChannelRef) {
    const [row] = await this.ctx.database.get('memory_channel_summary', { id: channelKey(channel) })
    return row
  }

  async save(record: ChannelSummaryRecord) {
    await this.ctx.database.upsert('memory_channel_summary', [{ ...record, id: channelKey(record) }])
  }

  async remove(channel: Pick<ChannelRef, 'platform' | 'channelId'>) {
    return (await this.ctx.database.remove('memory_channel_summary', { id: channelKey(channel) })).matched ?? 0
  }
}
