import type { ContextTarget } from '../../src/context/types'
import type { MessageRow } from '../../src/messages/table'
import type { ChannelRef } from '../../src/messages/types'
import { at } from './clock'

export const channel: ChannelRef = { platform: 'test', guildId: 'g1', channelId: 'c1' }
export const T0 = new Date('2025-03-01T10:00:00Z').getTime()

/** A captured message of `channel`, `minute` minutes after T0. */
export function row(messageId: string, userId: string, content: string, minute: number, extra: Partial<MessageRow> = {}): MessageRow {
  const platform = extra.platform ?? channel.platform
  const channelId = extra.channelId ?? channel.channelId
  return {
    id: `${platform}:${channelId}:${messageId}`,
    messageId,
    platform,
    guildId: channel.guildId,
    channelId,
    userId,
    userName: userId[0].toUpperCase() + userId.slice(1),
    content,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: extra.replyMessageId ? (extra.rootMessageId ?? extra.replyMessageId) : messageId,
    topicId: '',
    createdAt: at(minute * 60, T0),
    ...extra,
  }
}

/** The message being answered, in `channel`, `minute` minutes after T0. */
export function target(userId: string, content: string, minute: number, extra: Partial<ContextTarget> = {}): ContextTarget {
  return { ...channel, userId, userName: userId[0].toUpperCase() + userId.slice(1), content, time: at(minute * 60, T0), ...extra }
}

let seq = 0

/** A message of channel qq/g1 with defaults, `at` seconds after START (ids m1, m2, … unless given). */
export function message(fields: Partial<MessageRow> & { content: string; userId: string; at?: number }): MessageRow {
  const messageId = fields.messageId ?? `m${++seq}`
  const { at: seconds, ...rest } = fields
  return {
    id: `qq:g1:${messageId}`,
    messageId,
    platform: 'qq',
    guildId: 'g1',
    channelId: 'g1',
    userName: fields.userId,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: '',
    createdAt: at(seconds ?? 0),
    ...rest,
  }
}
