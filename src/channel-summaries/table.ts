import type { Context } from 'koishi'
import type { ChannelSummaryRecord } from './rolling-summary'

export interface ChannelSummaryRow extends ChannelSummaryRecord {
  /** `platform:channelId`. */
  id: string
}

declare module 'koishi' {
  interface Tables {
    memory_channel_summary: ChannelSummaryRow
  }
}

/** The rolling summary of each channel (one row a channel). */
export function defineChannelSummaryTable(ctx: Context) {
  ctx.model.extend(
    'memory_channel_summary',
    {
      id: 'string(255)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      summary: 'text',
      coveredCount: 'unsigned',
      coveredUntil: 'timestamp',
      coveredId: 'string(255)',
      summarizer: 'string(127)',
      updatedAt: 'timestamp',
    },
    { primary: 'id' },
  )
}
