import type { Context } from 'koishi'
import type { ContextRecord } from './context-log'

declare module 'koishi' {
  interface Tables {
    memory_context: ContextRecord
  }
}

/** The context log: what each built context held, for `memory.stats`. */
export function defineContextTable(ctx: Context) {
  ctx.model.extend(
    'memory_context',
    {
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
    },
    { primary: 'id', indexes: [['createdAt'], ['platform', 'channelId', 'triggerMessageId']] },
  )
}
