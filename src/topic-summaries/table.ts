import type { Context } from 'koishi'
import type { TopicSummaryRow } from './types'

/**
 * The Koishi table of topic summaries (design §3.1): every version of every topic's summary (older
 * versions stay). The database is the truth; LanceDB table `topic_summaries` indexes the newest
 * version of each topic.
 */

declare module 'koishi' {
  interface Tables {
    memory_summary: TopicSummaryRow
  }
}

export function defineTopicSummaryTable(ctx: Context) {
  ctx.model.extend(
    'memory_summary',
    {
      id: 'string(127)',
      topicId: 'string(63)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      version: 'unsigned',
      title: 'string(255)',
      summary: 'text',
      participants: 'json',
      firstMessageAt: 'timestamp',
      lastMessageAt: 'timestamp',
      messageCount: 'unsigned',
      topicMessageCount: 'unsigned',
      keywords: 'json',
      quality: 'json',
      fallback: 'boolean',
      segments: 'unsigned',
      language: 'string(15)',
      trigger: 'string(15)',
      model: 'string(127)',
      embedder: 'string(127)',
      createdAt: 'timestamp',
    },
    {
      primary: 'id',
      unique: [['topicId', 'version']],
      indexes: [['platform', 'channelId', 'lastMessageAt']],
    },
  )
}
