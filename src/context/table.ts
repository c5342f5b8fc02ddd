import type { Context } from 'koishi'
import type { ContextRecord, ReplyTraceRecord } from './context-log'

declare module 'koishi' {
  interface Tables {
    memory_context: ContextRecord
    memory_reply_trace: ReplyTraceRecord
  }
}

/** The context log: what each built context held and how each reply ran, for `memory.stats` and `memory.trace`. */
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
  // the traces of the built-in chat's reply runs, kept as long as the context log
  ctx.model.extend(
    'memory_reply_trace',
    {
      id: 'string(63)',
      platform: 'string(63)',
      guildId: 'string(127)',
      channelId: 'string(127)',
      userId: 'string(127)',
      triggerMessageId: 'string(127)',
      outcome: 'string(15)',
      totalMs: 'double',
      promptTokens: 'unsigned',
      replyTokens: 'unsigned',
      toolCalls: 'unsigned',
      recallSkipped: 'boolean',
      steps: 'json',
      createdAt: 'timestamp',
    },
    { primary: 'id', indexes: [['createdAt'], ['platform', 'channelId', 'createdAt']] },
  )
}
