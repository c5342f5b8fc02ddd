import type { Context } from 'koishi'

export interface ChannelSummaryRecord {
  platform: string
  guildId: string
  channelId: string
  summary: string
  /** Messages the summary covers (all that have left the recent window so far). */
  coveredCount: number
  /** Time of the newest covered message; messages after it are not in the summary. */
  coveredUntil: Date
  /** Row id of the newest covered message. */
  coveredId: string
  /** The summariser that wrote it (`extractive`, `llm:<model>`). */
  summarizer: string
  updatedAt: Date
}

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
