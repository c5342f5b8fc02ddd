/**
 * Whose and where, in two forms. A reference (`UserRef`, `GuildRef`, `ChannelRef`, `PersonRef`,
 * `SpeakerRef`) names a user, a guild or a channel with every field given: a private chat is
 * `guildId: ''`, never a missing guild. A `Scope` is a filter: a field left out matches every value,
 * so a facts scope without `guildId` is every guild of the user (`sessionScope`), while `guildId: ''`
 * is the private chats only.
 */

/** A user on a platform. */
export interface UserRef {
  platform: string
  userId: string
}

/** A guild on a platform; `guildId: ''` is the private chats. */
export interface GuildRef {
  platform: string
  guildId: string
}

/** A group chat: a guild that is not the private chats. Group memory, its review and evolution are per group. */
export type GroupRef = GuildRef

/** Where a message was said: one channel of a guild (`guildId: ''`: a private chat). */
export interface ChannelRef extends GuildRef {
  channelId: string
}

/** A user where they are: in a guild, or `guildId: ''` in their private chat. */
export interface PersonRef extends UserRef, GuildRef {}

/** A user in one channel: who said something, and where. */
export interface SpeakerRef extends PersonRef, ChannelRef {}

/** A session's or a message's user where they are; without a guild, their private chat. */
export function personOf(where: { platform: string; userId?: string; guildId?: string }): PersonRef {
  return { platform: where.platform, userId: where.userId ?? '', guildId: where.guildId ?? '' }
}

/** A session's or a message's channel; without a guild, a private chat's. */
export function channelOf(where: { platform: string; guildId?: string; channelId: string }): ChannelRef {
  return { platform: where.platform, guildId: where.guildId ?? '', channelId: where.channelId }
}

/**
 * Every filter over memory rows, for the Koishi database and for LanceDB, is built here from a typed
 * scope, so caller data can never widen a query.
 */
export interface Scope {
  platform?: string
  userId?: string
  /** The guild the memory was learnt in; `''` means a private chat. */
  guildId?: string
  channelId?: string
}

/** Columns as they are named in the LanceDB tables. */
const LANCE_COLUMNS: Record<keyof Scope, string> = {
  platform: 'platform',
  userId: 'user_id',
  guildId: 'guild_id',
  channelId: 'channel_id',
}

export class ScopeError extends Error {}

/** A scope must name a user or a guild: an empty scope would match everyone's memories. */
export function assertBounded(scope: Scope): void {
  if (!scope.userId && scope.guildId === undefined && !scope.channelId) {
    throw new ScopeError('a memory scope must name a user, a guild or a channel')
  }
}

/**
 * An id as the stores keep it: control characters (NUL makes SQLite refuse the whole batch) and lone
 * surrogates (the database turns every one into U+FFFD, so two ids would become one) are written out as
 * `\uXXXX`, so distinct ids stay distinct and every id is storable. It is idempotent (a stored id cleaned
 * again is the same id), so an id that already holds the text `\u0000` meets the id holding a NUL there.
 */
export function cleanId(value: string): string {
  return value.replace(
    // eslint-disable-next-line no-control-regex -- the control characters are what is being written out
    /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Longest id taken from outside (an HTTP route, an import): the widest id column is `string(255)`. */
export const ID_MAX = 255

/**
 * Why an id from outside cannot name a stored row as given, or undefined when it can: over `max`
 * characters, or holding what the stores keep written out (`cleanId`: a control character, a lone
 * surrogate), so that the id with them names nothing and its written-out form is the one to ask for.
 */
export function idError(value: string, name: string, max = ID_MAX): string | undefined {
  if (value.length > max) return `${name} is longer than ${max} characters`
  if (cleanId(value) !== value) return `${name} holds a control character or a lone surrogate; stored ids have them written out as \\uXXXX`
  return undefined
}

export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`
}

/** The LanceDB `where` clause for a scope. Only the four scope columns can appear in it. */
export function lanceWhere(scope: Scope): string {
  assertBounded(scope)
  const parts: string[] = []
  for (const key of Object.keys(LANCE_COLUMNS) as (keyof Scope)[]) {
    const value = scope[key]
    if (value === undefined) continue
    if (typeof value !== 'string') throw new ScopeError(`scope field ${key} must be a string`)
    parts.push(`${LANCE_COLUMNS[key]} = ${sqlString(cleanId(value))}`)
  }
  return parts.join(' AND ')
}

/** A `where` clause matching rows by id. */
export function lanceIdIn(ids: string[]): string {
  if (!ids.length) throw new ScopeError('no ids given')
  return `id IN (${ids.map(sqlString).join(', ')})`
}

/** The Koishi database query for a scope (minato escapes values itself; this only picks fields). */
export function dbWhere(scope: Scope): Partial<Record<keyof Scope, string>> {
  assertBounded(scope)
  const query: Partial<Record<keyof Scope, string>> = {}
  for (const key of Object.keys(LANCE_COLUMNS) as (keyof Scope)[]) {
    const value = scope[key]
    if (value === undefined) continue
    if (typeof value !== 'string') throw new ScopeError(`scope field ${key} must be a string`)
    query[key] = cleanId(value)
  }
  return query
}

/**
 * The facts a session's or a message's user sees where they are: in a group, what was learnt in that
 * group; in a private chat (no guild, or `''`), everything about the user — so the scope has no `guildId`.
 */
export function sessionScope(where: { platform: string; userId?: string; guildId?: string }): Scope {
  return where.guildId
    ? { platform: where.platform, userId: where.userId, guildId: where.guildId }
    : { platform: where.platform, userId: where.userId }
}
