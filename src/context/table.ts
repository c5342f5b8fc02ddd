import type { Context } from 'koishi'

/** One context built: what a reply saw (a row of `memory_context`). */
export interface ContextRecord {
  id: string
  platform: string
  guildId: string
  channelId: string
  userId: string
  triggerMessageId: string
  triggerText: string
  chosenIds: string[]
  scores: number[]
  tokens: number
  windowTokens: number
  fallback: boolean
  buildMs: number
  /** The bot's answer, once it replied ('' until then). */
  reply: string
  createdAt: Date
}

/** One step of a reply run, as the reply pipeline traces it. */
export interface TraceStepRecord {
  node: string
  ms: number
  chose: { code: string; params?: Record<string, string | number> }
  tokensIn?: number
  tokensOut?: number
  toolCalls?: { name: string; arguments: Record<string, unknown>; ms: number; resultTokens: number; error?: string }[]
  error?: string
}

/** A reply run of the built-in chat (design §7.6): its steps and totals, for `memory.trace` and `memory.stats`. */
export interface ReplyTraceRecord {
  id: string
  platform: string
  guildId: string
  channelId: string
  userId: string
  triggerMessageId: string
  /** `model`, `offline` or `failed`. */
  outcome: string
  totalMs: number
  /** Tokens of the first request to the model. */
  promptTokens: number
  replyTokens: number
  toolCalls: number
  /** The route found the message needed no memory. */
  recallSkipped: boolean
  steps: TraceStepRecord[]
  createdAt: Date
}

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
