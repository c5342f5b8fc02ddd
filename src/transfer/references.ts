import type { MessageRow } from '../messages'

/**
 * Whose a row is, as far as what it may name goes: a reference (a fact's `supersededBy`, a change's
 * `memoryId`, a relation's entities, any `sourceIds`) is kept only when it names a row of the same owner
 * and place, in the file or already stored; anything else would show or erase another person's memory.
 */
export const key = (...parts: unknown[]) => JSON.stringify(parts)

/** A fact's owner: the user on their platform (their facts in every guild are theirs). */
export const factOwner = (row: { platform: string; userId: string }) => key('user', row.platform, row.userId)
/** A group memory's, a change's: the group. */
export const groupOwner = (row: { platform: string; guildId: string }) => key('group', row.platform, row.guildId)
/** A topic's, a summary's: the channel. */
export const channelOwner = (row: { platform: string; guildId: string; channelId: string }) =>
  key('channel', row.platform, row.guildId, row.channelId)
/** Knowledge's: its scope (a user's private chats, or a group). */
export const knowledgeOwner = (row: { platform: string; guildId: string; userId: string }) =>
  key('knowledge', row.platform, row.guildId, row.userId)

/** Whose messages a row may draw on: a user's (`userId`), else a group's (`guildId`). */
export interface SourceOwner {
  platform: string
  userId: string
  guildId: string
  /** The channel a user's row was learnt in: the bot's replies there are theirs to draw on too. */
  channelId?: string
}

/**
 * Whether `message` may be a source of a row of `owner`: a user's row draws on what that user said and
 * on the bot's replies in their channel (where the row was learnt, or their private chat); a group's
 * row (no user) on what was said in that group.
 */
export function mayDrawOn(owner: SourceOwner, message: MessageRow): boolean {
  if (message.platform !== owner.platform) return false
  if (!owner.userId) return Boolean(owner.guildId) && message.guildId === owner.guildId
  if (message.role === 'user') return message.userId === owner.userId
  const ownChannel = Boolean(owner.channelId) && message.channelId === owner.channelId
  const privateChat = !message.guildId && message.channelId === `private:${owner.userId}`
  return ownChannel || privateChat
}
