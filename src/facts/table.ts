import type { Context } from 'koishi'

/** A long-term fact about one user, learnt in one guild (`''` for a private chat). */
export interface FactRow {
  id: string
  platform: string
  guildId: string
  channelId: string
  userId: string
  content: string
  reason: string
  version: number
  parentId: string
  /** Ids of the captured messages the fact was drawn from, erased with it. */
  sourceIds: string[]
  createdAt: Date
  updatedAt: Date
}

declare module 'koishi' {
  interface Tables {
    memory_fact: FactRow
  }
}

export function defineFactTable(ctx: Context) {
  ctx.model.extend(
    'memory_fact',
    {
      id: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      userId: 'string(127)',
      content: 'text',
      reason: 'text',
      version: 'unsigned',
      parentId: 'string(31)',
      sourceIds: 'json',
      createdAt: 'timestamp',
      updatedAt: 'timestamp',
    },
    {
      primary: 'id',
      indexes: [['platform', 'userId', 'guildId']],
    },
  )
}
