import type { MessageRow } from '../../src/messages/table'

/** Where a fixture row was said (its id is built from it, as capture builds it). */
export interface RowPlace {
  platform: string
  guildId: string
  channelId: string
  userId: string
  userName: string
}

const PLACE: RowPlace = { platform: 'qq', guildId: 'g', channelId: 'c', userId: 'u', userName: 'U' }

/** A captured row, said `n` seconds after 2026-11-26 08:00 UTC, `n` the digits of its message id. */
export function journalRow(messageId: string, extra: Partial<MessageRow> = {}, place: RowPlace = PLACE): MessageRow {
  return {
    ...place,
    id: `${place.platform}:${place.channelId}:${messageId}`,
    messageId,
    content: `说了 ${messageId}`,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: '',
    createdAt: new Date(Date.UTC(2026, 10, 26, 8, 0, Number(messageId.replace(/\D/g, '')) || 0)),
    ...extra,
  }
}

/** A journal file's line for `messageId`, said at 08:00; `extra` may make it any shape (a line is untrusted). */
export function journalLine(messageId: string, extra: Record<string, unknown> = {}, place: RowPlace = PLACE): string {
  return JSON.stringify({ ...journalRow(messageId, {}, place), createdAt: new Date(Date.UTC(2026, 10, 26, 8)).toISOString(), ...extra })
}
