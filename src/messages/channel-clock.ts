import type { Context } from 'koishi'
import { $ } from 'koishi'
import type { ChannelRef } from './types'

export type Where = Pick<ChannelRef, 'platform' | 'channelId'>

export const channelKey = (channel: Where) => `${channel.platform}\u0000${channel.channelId}`

/** What a `ChannelMirror` asks of a clock. */
export interface Clock {
  read(channels: Where[]): Promise<Map<string, number>>
  tick(channels: Where[]): Promise<Map<string, number>>
}

/**
 * One counter per channel in the database, moved on by every instance after it wrote the channel's
 * messages: an instance that holds a channel's rows in memory knows from one read whether another
 * instance changed them since.
 */
export class ChannelClock implements Clock {
  constructor(private ctx: Context) {}

  /** The channels' versions (0 for a channel never written), by `channelKey`. */
  async read(channels: Where[]): Promise<Map<string, number>> {
    const versions = new Map(channels.map((channel) => [channelKey(channel), 0]))
    if (!channels.length) return versions
    const rows = await this.ctx.database.get('memory_message_clock', {
      $or: channels.map(({ platform, channelId }) => ({ platform, channelId })),
    })
    for (const row of rows) versions.set(channelKey(row), Number(row.version))
    return versions
  }

  /** Moves each channel's version on by one and reads the versions after. */
  async tick(channels: Where[]): Promise<Map<string, number>> {
    if (!channels.length) return new Map()
    await this.ctx.database.upsert('memory_message_clock', (row) =>
      channels.map(({ platform, channelId }) => ({ platform, channelId, version: $.add(row.version, 1) })),
    )
    return this.read(channels)
  }
}
