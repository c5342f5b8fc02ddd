import type { ChannelRef } from '../scope'
import type { MessageRow } from './table'

export type { ChannelRef }

/** The turns around one moment of a channel (`MessageStore.around`). */
export interface Neighbours {
  before: MessageRow[]
  after: MessageRow[]
}

/** What an erasure needs to know of a message: where it was said and which topic it joined. */
export type ErasedMessage = Pick<MessageRow, 'id' | 'messageId' | 'channelId' | 'guildId' | 'topicId'>

export interface Guild {
  platform: string
  guildId: string
}

/** A guild's message as group memory reads it. */
export type GuildMessage = Pick<MessageRow, 'id' | 'userId' | 'userName' | 'content' | 'role' | 'createdAt'>

/** Someone who spoke, as the console's search finds them. */
export interface Speaker {
  platform: string
  userId: string
  /** The name of their newest message. */
  userName: string
  messages: number
  newest: Date
  /** Guilds they spoke in; `''` is their private chat. */
  guilds: string[]
}
