import type { Context } from 'koishi'

/**
 * A conversation topic of one channel (design §2.2). Messages point at it through
 * `MessageRow.topicId`; a group chat has several active topics at once.
 */
export interface TopicRow {
  id: string
  platform: string
  guildId: string
  channelId: string
  title: string
  /** Weighted keywords (CJK-aware words), heaviest first when read with `topKeywords`. */
  keywords: Record<string, number>
  /**
   * Direction of the mean of the member messages' vectors, L2-normalised (so similarity with a
   * normalised message vector is a dot product). Empty while no member had a usable vector.
   */
  centroid: number[]
  /**
   * Length of that mean before normalising (1 when every member says the same, smaller as they
   * spread). With `vectorCount` it gives back the exact sum, so the running mean stays exact.
   */
  centroidNorm: number
  /** How many member vectors the centroid averages (short acknowledgements are left out). */
  vectorCount: number
  /** Id of the embedder that made the centroid; a topic made with another one is not compared. */
  embedder: string
  messageCount: number
  /** Who opened the topic. */
  creatorId: string
  createdAt: Date
  updatedAt: Date
  lastMessageAt: Date
  /** False once idle longer than the configured time (a reply to one of its messages reopens it). */
  active: boolean
  /** Retired for good (e.g. summarised into mid-term memory): never joined again. */
  archived: boolean
}

declare module 'koishi' {
  interface Tables {
    memory_topic: TopicRow
  }
}

export function defineTopicTable(ctx: Context) {
  ctx.model.extend(
    'memory_topic',
    {
      id: 'string(63)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      title: 'string(255)',
      keywords: 'json',
      centroid: 'json',
      centroidNorm: 'double',
      vectorCount: 'unsigned',
      embedder: 'string(127)',
      messageCount: 'unsigned',
      creatorId: 'string(127)',
      createdAt: 'timestamp',
      updatedAt: 'timestamp',
      lastMessageAt: 'timestamp',
      active: 'boolean',
      archived: 'boolean',
    },
    {
      primary: 'id',
      indexes: [
        ['platform', 'channelId', 'active', 'lastMessageAt'],
        ['active', 'lastMessageAt'],
      ],
    },
  )
}
