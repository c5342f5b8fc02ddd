import type { ChannelRef } from '../scope'
import type { MessageRow } from './table'

export type { ChannelRef }

/** Reads captured messages (the Koishi table `memory_message`). All lists are oldest first. */
export interface MessageStore {
  /** Messages of a channel in [since, before), newest `limit` of them. */
  window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }): Promise<MessageRow[]>
  /**
   * For each of `times`, the `turns` messages of the channel right before it and the `turns` right
   * after it (the turns around a search hit), each list oldest first. Messages at that very time are
   * in neither list; messages that share a time are ordered by row id. `known`: rows the caller has
   * just read, which need not be read again.
   */
  around(channel: ChannelRef, times: Date[], turns: number, known?: MessageRow[]): Promise<Neighbours[]>
  /** Messages by platform message id within a channel. */
  byMessageIds(channel: ChannelRef, messageIds: string[]): Promise<MessageRow[]>
  /** Messages by row id (`platform:channelId:messageId`). */
  byIds(ids: string[]): Promise<MessageRow[]>
  /**
   * The newest `limit` messages of a topic before `before` (left out: up to now and beyond).
   * `channel`: the topic's, when the caller knows it (a store may answer it from memory).
   */
  byTopic(topicId: string, options: { before?: Date; limit: number; channel?: ChannelRef }): Promise<MessageRow[]>
  /** Messages whose root is `rootMessageId`, newest `limit` before `before`. */
  byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }): Promise<MessageRow[]>
  setTopic(ids: string[], topicId: string): Promise<void>
}

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

/** Reads of a guild's messages as a whole (group memory). */
export interface GuildMessages {
  recentInGuild(guild: Guild, query: { since: Date; after: Date; limit: number; roles: MessageRow['role'][] }): Promise<GuildMessage[]>
  activeGuilds(since: Date): Promise<(Guild & { newest: Date })[]>
  /** Whether any message was captured in the guild. */
  hasGuild(guild: Guild): Promise<boolean>
  /** How many messages members (not the bot, no commands) said in the guild after `after`. */
  countInGuild(guild: Guild, after: Date): Promise<number>
}

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
