import { Context } from 'koishi'
import type { ContextRecord } from '../short-term/context-log'
import type { Episode } from '../short-term/episodic'
import type { SummaryRecord } from '../short-term/rolling-summary'

export interface ChannelSummaryRow extends SummaryRecord {
  /** `platform:channelId`. */
  id: string
}

declare module 'koishi' {
  interface Tables {
    memory_channel_summary: ChannelSummaryRow
    memory_episode: Episode
    memory_context: ContextRecord
  }
}

/** Tables of short-term memory: rolling channel summaries, user → bot exchanges, the context log. */
export function defineShortTermTables(ctx: Context) {
  ctx.model.extend('memory_channel_summary', {
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
  }, { primary: 'id' })

  ctx.model.extend('memory_episode', {
    id: 'string(255)',
    platform: 'string(63)',
    guildId: 'string(127)',
    channelId: 'string(127)',
    userId: 'string(127)',
    userName: 'string(255)',
    userMessageId: 'string(127)',
    userText: 'text',
    botText: 'text',
    createdAt: 'timestamp',
  }, { primary: 'id', indexes: [['platform', 'userId', 'createdAt']] })

  ctx.model.extend('memory_context', {
    id: 'string(63)',
    platform: 'string(63)',
    guildId: 'string(127)',
    channelId: 'string(127)',
    userId: 'string(127)',
    triggerMessageId: 'string(127)',
    triggerText: 'text',
    chosenIds: 'json',
    scores: 'json',
    tokens: 'unsigned',
    windowTokens: 'unsigned',
    fallback: 'boolean',
    buildMs: 'double',
    reply: 'text',
    createdAt: 'timestamp',
  }, { primary: 'id', indexes: [['createdAt'], ['platform', 'channelId', 'triggerMessageId']] })
}
