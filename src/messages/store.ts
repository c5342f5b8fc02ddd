import type { MessageRow } from './table'
import type { ChannelRef, Guild, GuildMessage, Neighbours } from './types'

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

/** Reads of a guild's messages as a whole (group memory). */
export interface GuildMessages {
  recentInGuild(guild: Guild, query: { since: Date; after: Date; limit: number; roles: MessageRow['role'][] }): Promise<GuildMessage[]>
  activeGuilds(since: Date): Promise<(Guild & { newest: Date })[]>
  /** Whether any message was captured in the guild. */
  hasGuild(guild: Guild): Promise<boolean>
  /** How many messages members (not the bot, no commands) said in the guild after `after`. */
  countInGuild(guild: Guild, after: Date): Promise<number>
}

/** Where the index reads messages back from (the database). */
export interface IndexedMessages {
  byIds(ids: string[]): Promise<MessageRow[]>
  /** Ids of every message that belongs in the index (not a command). */
  indexableIds(): Promise<string[]>
  /** Up to `limit` of them after `after`, in order (the index compared a slice at a time). */
  indexableIdsAfter?(after: string, limit: number): Promise<string[]>
  /** Those stored since `since` (by the time they were said). */
  indexableSince?(since: Date): Promise<string[]>
}
