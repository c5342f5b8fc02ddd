import { Context } from 'koishi'

/** A captured chat message (seed 000 §2.1). */
export interface MessageRow {
  /** `platform:channelId:messageId`, so a message delivered twice is stored once. */
  id: string
  messageId: string
  platform: string
  guildId: string
  channelId: string
  userId: string
  userName: string
  content: string
  role: 'user' | 'assistant'
  isMentionBot: boolean
  /** The message invoked a bot command: kept, but not discussion for topics or group memory. */
  isCommand: boolean
  replyMessageId: string
  rootMessageId: string
  topicId: string
  createdAt: Date
}

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

/** Index work that waits for LanceDB or the embedder to come back. */
export interface OutboxRow {
  id: number
  table: string
  rowId: string
  op: 'upsert' | 'delete'
  attempts: number
  createdAt: Date
}

declare module 'koishi' {
  interface Tables {
    memory_message: MessageRow
    memory_fact: FactRow
    memory_outbox: OutboxRow
  }
}

export function defineTables(ctx: Context) {
  ctx.model.extend('memory_message', {
    id: 'string(255)',
    messageId: 'string(127)',
    platform: 'string(63)',
    guildId: 'string(127)',
    channelId: 'string(127)',
    userId: 'string(127)',
    userName: 'string(255)',
    content: 'text',
    role: 'string(15)',
    isMentionBot: 'boolean',
    isCommand: { type: 'boolean', initial: false },
    replyMessageId: 'string(127)',
    rootMessageId: 'string(127)',
    topicId: 'string(63)',
    createdAt: 'timestamp',
  }, {
    primary: 'id',
    indexes: [['platform', 'channelId', 'createdAt'], ['platform', 'guildId', 'createdAt']],
  })

  ctx.model.extend('memory_fact', {
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
  }, {
    primary: 'id',
    indexes: [['platform', 'userId', 'guildId']],
  })

  ctx.model.extend('memory_outbox', {
    id: 'unsigned',
    table: 'string(63)',
    rowId: 'string(63)',
    op: 'string(15)',
    attempts: 'unsigned',
    createdAt: 'timestamp',
  }, {
    primary: 'id',
    autoInc: true,
    unique: [['table', 'rowId']],
  })
}
