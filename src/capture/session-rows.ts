import { randomBytes } from 'node:crypto'
import type { Session } from 'koishi'
import type { ContextTarget } from '../context'
import type { MessageRow } from '../messages'
import { messageRowId } from '../messages'
import type { SpeakerRef } from '../scope'
import { cleanId } from '../scope'
import { cleanText } from '../text/clean'
import { clipToField } from '../text/field-limit'
import type { PlaceholderLocale } from './render'
import { mentions, renderPlainText } from './render'

/** A captured message row without the fields the recorder resolves (`rootMessageId`). */
export type CapturedFields = Omit<MessageRow, 'id' | 'platform' | 'guildId' | 'channelId' | 'rootMessageId' | 'topicId'>

/** Who may be told apart in a message: the speaker's display name, as Koishi knows it. */
export function speakerName(session: Session): string | undefined {
  return session.author?.nick || session.author?.name || session.username
}

/** Whether the message @-s the bot. */
export function mentionsBot(session: Session): boolean {
  return Boolean(session.stripped?.atSelf) || mentions(session.elements ?? [], session.selfId)
}

/** A stored message of the session's channel. `rootMessageId` is the root of its reply chain. */
export function rowOf(session: Session, fields: CapturedFields, rootMessageId: string): MessageRow {
  const platform = cleanId(session.platform)
  const channelId = cleanId(session.channelId!)
  const messageId = cleanId(fields.messageId)
  return {
    ...fields,
    // a longer message would not be stored whole by every database (`FIELD_MAX_BYTES`)
    content: clipToField(cleanText(fields.content)),
    userName: cleanText(fields.userName),
    messageId,
    userId: cleanId(fields.userId),
    replyMessageId: cleanId(fields.replyMessageId),
    id: messageRowId(platform, channelId, messageId),
    platform,
    guildId: cleanId(session.guildId ?? ''),
    channelId,
    rootMessageId: cleanId(rootMessageId),
    topicId: '',
  }
}

/** The message a context is built for, from a live session. */
export function targetOf(session: Session, placeholders: PlaceholderLocale): ContextTarget {
  const elements = session.elements ?? []
  return {
    platform: cleanId(session.platform),
    guildId: cleanId(session.guildId ?? ''),
    channelId: cleanId(session.channelId!),
    userId: cleanId(session.userId!),
    userName: speakerName(session),
    content: renderPlainText(elements, placeholders, session.selfId),
    messageId: session.messageId && cleanId(session.messageId),
    replyMessageId: session.quote?.id && cleanId(session.quote.id),
    mentions: elements.filter((el) => el.type === 'at' && el.attrs.id && el.attrs.id !== session.selfId).map((el) => String(el.attrs.id)),
    isMentionBot: mentionsBot(session),
    time: new Date(session.timestamp || Date.now()),
  }
}

/** Whose fact a dialogue of this session may produce. */
export function ownerOf(session: Session): SpeakerRef {
  return {
    platform: cleanId(session.platform),
    userId: cleanId(session.userId!),
    guildId: cleanId(session.guildId ?? ''),
    channelId: cleanId(session.channelId!),
  }
}

/** An id for a message the platform gave none (the bot's own replies). */
export function localMessageId(): string {
  return `local-${randomBytes(8).toString('hex')}`
}

/** Whether `value` is a live Koishi session rather than a plain context target. */
export function isSession(value: Session | ContextTarget): value is Session {
  return typeof (value as Session).app === 'object' && 'event' in value
}
