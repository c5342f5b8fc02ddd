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
  /** When it became true (the time it was said, or the date the statement gives); absent on rows stored before validity was kept. */
  validFrom?: Date | null
  /** When it stopped being true; null while it is current. */
  validTo?: Date | null
  /** The fact whose statement closed this one. */
  supersededBy?: string
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
      // nullable, so rows stored before validity was kept read as current
      validFrom: { type: 'timestamp', nullable: true },
      validTo: { type: 'timestamp', nullable: true },
      supersededBy: { type: 'string', length: 31, initial: '' },
    },
    {
      primary: 'id',
      indexes: [['platform', 'userId', 'guildId']],
    },
  )
}

/** Whether a fact is still true (not closed by a newer one). */
export const isCurrent = (fact: Pick<FactRow, 'validTo'>) => !fact.validTo

/** When a fact became true: its own date, or when it was recorded for rows stored before validity was kept. */
export const validSince = (fact: Pick<FactRow, 'validFrom' | 'createdAt'>) => fact.validFrom ?? fact.createdAt
