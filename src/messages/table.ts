import type { Context } from 'koishi'

/** A captured chat message (design §2.1). */
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
  /**
   * The platform's id of a bot message, once its adapter reports the send (`''` before, and on a user
   * message, whose `messageId` is the platform's): a recall or an edit of the bot's message finds it by this.
   * Null on the rows of a table from before the column (a server database adds it empty).
   */
  sentId?: string | null
}

/** How often a channel's messages were written, by any instance (`ChannelClock`). */
export interface MessageClockRow {
  platform: string
  channelId: string
  version: number
}

/**
 * How far each channel's messages have been handed to the post-dialogue chain. What was said after the
 * watermark waits to be memorised; after a restart it is read back from the message table, so a
 * restart loses no dialogue.
 */
export interface WatermarkRow {
  /** `platform:channelId`. */
  id: string
  platform: string
  channelId: string
  /** Creation time of the newest user message handed over. */
  until: Date
}

declare module 'koishi' {
  interface Tables {
    memory_message: MessageRow
    memory_message_clock: MessageClockRow
    memory_watermark: WatermarkRow
  }
}

/** The table of captured messages, with the indexes the reads need, and the channels' write clock. */
export function defineMessageTable(ctx: Context) {
  ctx.model.extend(
    'memory_message',
    {
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
      // added in a later version: a table created before gets the column ('' on SQLite's rows, null on MySQL's)
      sentId: { type: 'string', length: 127, initial: '' },
    },
    {
      primary: 'id',
      indexes: [
        ['platform', 'channelId', 'createdAt'],
        // a recalled or edited bot message, by the platform's id
        ['platform', 'channelId', 'sentId'],
        ['platform', 'guildId', 'createdAt'],
        // messages of a topic, messages of a reply thread, each read newest first
        ['topicId', 'createdAt'],
        ['platform', 'channelId', 'rootMessageId', 'createdAt'],
      ],
    },
  )
  ctx.model.extend(
    'memory_message_clock',
    { platform: 'string(63)', channelId: 'string(127)', version: 'unsigned(8)' },
    { primary: ['platform', 'channelId'] },
  )
}

/** Each channel's memorised-up-to point. */
export function defineWatermarkTable(ctx: Context) {
  ctx.model.extend(
    'memory_watermark',
    {
      id: 'string(255)',
      platform: 'string(63)',
      channelId: 'string(127)',
      until: 'timestamp',
    },
    { primary: 'id' },
  )
}
