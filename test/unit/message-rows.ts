import type { MessageRow } from '../../src/messages/table'
import type { ContextTarget } from '../../src/context/types'
import type { ChannelRef } from '../../src/messages/types'

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
    isMentionBot: false, isCommand: false,
    replyMessageId: '',
    rootMessageId: extra.replyMessageId ? extra.rootMessageId ?? extra.replyMessageId : messageId,
    topicId: '',
    createdAt: new Date(T0 + minute * 60_000),
    ...extra,
  }
}

export function target(userId: string, content: string, minute: number, extra: Partial<ContextTarget> = {}): ContextTarget {
  return { ...channel, userId, userName: userId[0].toUpperCase() + userId.slice(1), content, time: new Date(T0 + minute * 60_000), ...extra }
}
