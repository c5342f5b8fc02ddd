import type { Context, Query } from 'koishi'
import { $ } from 'koishi'
import type { ChannelRef, ErasedMessage, Guild, GuildMessage, Neighbours, Speaker } from './types'
import type { GuildMessages, MessageStore } from './store'
import type { Stamp } from './neighbours'
import { mergeRanges, nearest } from './neighbours'
import type { TimelineReads } from './neighbour-search'
import { NeighbourSearch } from './neighbour-search'
import { dbWhere } from '../scope'
import type { MessageRow } from './table'
import { chunks } from '../core/chunks'
import { RowCache } from './row-cache'
import type { Where } from './channel-clock'
import { ChannelClock, channelKey } from './channel-clock'
import { ChannelMirror } from './channel-mirror'
import type { MirrorStats } from './channel-mirror'
import type { ChannelRows } from './channel-rows'
import type { Logger } from '../core/observability'

/** Row id of a captured message, as the capture path builds it. */
export function messageRowId(platform: string, channelId: string, messageId: string) {
  return `${platform}:${channelId}:${messageId}`
}

function channelWhere(channel: Pick<ChannelRef, 'platform' | 'channelId'>) {
  return dbWhere({ platform: channel.platform, channelId: channel.channelId })
}

const oldestFirst = (a: MessageRow, b: MessageRow) => a.createdAt.getTime() - b.createdAt.getTime()

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} }

type Located = Where & { id: string }

/** Rows grouped by their channel. */
function byChannel<T extends Where>(rows: T[]): [Where, T[]][] {
  const groups = new Map<string, [Where, T[]]>()
  for (const row of rows) {
    const key = channelKey(row)
    if (!groups.has(key)) groups.set(key, [{ platform: row.platform, channelId: row.channelId }, []])
    groups.get(key)![1].push(row)
  }
  return [...groups.values()]
}

/** Memory for the cache of rows read when none is given (a few context builds' worth). */
const ROW_CACHE_BYTES = 16 * 2 ** 20
const ERASED_FIELDS = ['id', 'messageId', 'channelId', 'guildId', 'topicId'] as const satisfies (keyof ErasedMessage)[]
/** Shorter texts are no quotation: a reply that holds them may say something else. */
const QUOTE_MIN = 4
/** Time ranges in one query's `$or`. */
const RANGES_PER_QUERY = 100

/**
 * `MessageStore` on the Koishi table `memory_message`. Every list comes back oldest first.
 *
 * A channel's reads are answered from memory while the channel is held (`ChannelMirror`, up to
 * `heldBytes`); otherwise rows this store read or wrote are served from a cache (`RowCache`) once the
 * table confirms their ids and topics. Every write of this store is announced on the channel's clock,
 * so that other instances holding the channel know.
 */
export class KoishiMessageStore implements MessageStore, GuildMessages {
  private readonly cache: RowCache
  private readonly neighbours = new NeighbourSearch()
  private readonly mirror: ChannelMirror

  constructor(
    private ctx: Context,
    options: { rowBytes?: number; heldBytes?: number; logger?: Logger } = {},
  ) {
    this.cache = new RowCache(options.rowBytes ?? ROW_CACHE_BYTES)
    this.mirror = new ChannelMirror({
      capBytes: options.heldBytes ?? 0,
      clock: new ChannelClock(ctx),
      logger: options.logger ?? quiet,
      reads: {
        count: (channel) => ctx.database.eval('memory_message', (row) => $.count(row.id), channelWhere(channel)),
        page: (channel, after, limit) =>
          ctx.database.get(
            'memory_message',
            after
              ? {
                  ...channelWhere(channel),
                  $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, id: { $gt: after.id } }],
                }
              : channelWhere(channel),
            { limit, sort: { createdAt: 'asc', id: 'asc' } },
          ),
      },
    })
  }

  /** What the held channels take. */
  held(): MirrorStats {
    return this.mirror.stats()
  }

  /** What the cache of rows read takes. */
  cachedRows(): { bytes: number; entries: number } {
    return this.cache.held()
  }

  /** Announces this store's writes to other instances now and settles loads of channels under way. */
  settled(): Promise<void> {
    return this.mirror.settled()
  }

  async upsert(rows: MessageRow[]) {
    const copies = rows.map((row) => ({ ...row }))
    await this.written(
      copies,
      () => this.ctx.database.upsert('memory_message', rows),
      (held, part) => part.forEach((row) => held.upsert(row)),
    )
    // the table now holds these rows as written: a context built next reads only their ids and topics
    this.cache.keep(copies)
  }

  /**
   * Runs a write of `rows` and tells each of their channels: its held rows take the write (or, if it
   * failed, are dropped, since the table may hold part of it), and other instances are told.
   */
  private async written<T extends Where>(rows: T[], write: () => Promise<unknown>, apply: (held: ChannelRows, rows: T[]) => void) {
    const channels = byChannel(rows)
    try {
      await write()
    } catch (error) {
      for (const [channel] of channels) this.mirror.failed(channel)
      throw error
    }
    for (const [channel, part] of channels) this.mirror.wrote(channel, (held) => apply(held, part))
  }

  /** The ids in held channels, with their channel, and the others. */
  private inHeld(ids: string[]): { located: Located[]; rest: string[] } {
    const located: Located[] = []
    const rest: string[] = []
    for (const id of new Set(ids)) {
      const channel = this.mirror.channelOf(id)
      if (channel) located.push({ id, ...channel })
      else rest.push(id)
    }
    return { located, rest }
  }

  /** Where rows were said: held rows know, the others are read. */
  private async locate(ids: string[]): Promise<Located[]> {
    const { located, rest } = this.inHeld(ids)
    for (const part of chunks(rest))
      located.push(...(await this.ctx.database.get('memory_message', { id: { $in: part } }, ['id', 'platform', 'channelId'])))
    return located
  }

  async window(channel: ChannelRef, options: { since?: Date; before: Date; limit: number }) {
    if (options.limit <= 0) return []
    const held = await this.mirror.fresh(channel)
    if (held) return held.window(options)
    const createdAt = options.since ? { $gte: options.since, $lt: options.before } : { $lt: options.before }
    const rows = await this.rowsOf({ ...channelWhere(channel), createdAt }, { limit: options.limit, sort: { createdAt: 'desc' } })
    return rows.reverse()
  }

  /**
   * The turns around each of `times` in a few queries however many there are (`NeighbourSearch`),
   * then their rows, but those of `known`, in one query.
   */
  async around(channel: ChannelRef, times: Date[], turns: number, known: MessageRow[] = []): Promise<Neighbours[]> {
    const held = await this.mirror.fresh(channel)
    if (held) return times.map((time) => held.around(time, turns))
    const moments = [...new Set(times.map((time) => time.getTime()))]
    const reads: TimelineReads = {
      inRanges: (ranges) => this.stampsIn(channel, ranges),
      beside: (time, side, limit) => this.stampsBeside(channel, time, side, limit),
    }
    const sorted = turns > 0 && moments.length ? await this.neighbours.stamps(channelKey(channel), reads, moments, turns) : []
    const near = new Map(moments.map((time) => [time, nearest(sorted, time, turns)]))
    const rows = new Map(known.map((row) => [row.id, row]))
    const wanted = new Set([...near.values()].flatMap(({ before, after }) => [...before, ...after].map((stamp) => stamp.id)))
    for (const row of await this.byIds([...wanted].filter((id) => !rows.has(id)))) rows.set(row.id, row)
    // a row erased since its stamp was read is left out
    const rowsOf = (list: Stamp[]) => list.flatMap((stamp) => rows.get(stamp.id) ?? [])
    return times.map((time) => {
      const { before, after } = near.get(time.getTime())!
      return { before: rowsOf(before), after: rowsOf(after) }
    })
  }

  /** Ids and times of the channel's messages within the time ranges (closed). */
  private async stampsIn(channel: ChannelRef, ranges: [number, number][]): Promise<Stamp[]> {
    const where = channelWhere(channel)
    const stamps: Stamp[] = []
    // each range a whole condition, so that every database reads it as one range of the channel's time index
    for (const part of chunks(mergeRanges(ranges), RANGES_PER_QUERY)) {
      const or = part.map(([from, to]) => ({ ...where, createdAt: { $gte: new Date(from), $lte: new Date(to) } }))
      stamps.push(...(await this.ctx.database.get('memory_message', { $or: or }, ['id', 'createdAt'])))
    }
    return stamps
  }

  /** Ids and times of the `turns` messages right before `time` (`side` < 0) or right after it. */
  private stampsBeside(channel: ChannelRef, time: number, side: number, turns: number): Promise<Stamp[]> {
    const before = side < 0
    return this.ctx.database.get(
      'memory_message',
      { ...channelWhere(channel), createdAt: before ? { $lt: new Date(time) } : { $gt: new Date(time) } },
      { fields: ['id', 'createdAt'], limit: turns, sort: before ? { createdAt: 'desc', id: 'desc' } : { createdAt: 'asc', id: 'asc' } },
    )
  }

  async byMessageIds(channel: ChannelRef, messageIds: string[]) {
    // the row id holds the channel, so this is a primary-key lookup that cannot leave the channel
    const ids = [...new Set(messageIds)].map((id) => messageRowId(channel.platform, channel.channelId, id))
    const held = await this.mirror.fresh(channel)
    if (held) return ids.flatMap((id) => held.get(id) ?? []).sort(oldestFirst)
    return this.byIds(ids)
  }

  /** Rows by id: those of held channels from memory, the others from the table (`stored`). */
  async byIds(ids: string[]) {
    const rows: MessageRow[] = []
    const { located, rest } = this.inHeld(ids)
    for (const [channel, part] of byChannel(located)) {
      const held = await this.mirror.fresh(channel)
      if (held) rows.push(...part.flatMap(({ id }) => held.get(id) ?? []))
      else rest.push(...part.map(({ id }) => id))
    }
    rows.push(...(await this.stored(rest)))
    return rows.sort(oldestFirst)
  }

  /**
   * Rows by id from the table: those in the cache (`RowCache`) that the table still has, with their
   * topics as stored, and the others read whole.
   */
  private async stored(ids: string[]) {
    const cached: string[] = []
    const unread: string[] = []
    for (const id of ids) (this.cache.get(id) ? cached : unread).push(id)
    const rows: MessageRow[] = []
    for (const part of chunks(cached)) {
      const { found, missing } = this.fromCache(await this.ctx.database.get('memory_message', { id: { $in: part } }, ['id', 'topicId']))
      // those the table no longer has leave the cache
      this.cache.drop(part)
      this.cache.keep([...found.values()])
      rows.push(...found.values())
      unread.push(...missing)
    }
    rows.push(...(await this.whole(unread)))
    return rows
  }

  /** Cached rows for ids and topics the table gave (with the topic as stored), and the ids the cache lacks. */
  private fromCache(stored: Pick<MessageRow, 'id' | 'topicId'>[]): { found: Map<string, MessageRow>; missing: string[] } {
    const found = new Map<string, MessageRow>()
    const missing: string[] = []
    for (const { id, topicId } of stored) {
      const row = this.cache.get(id)
      if (row) found.set(id, row.topicId === topicId ? row : { ...row, topicId })
      else missing.push(id)
    }
    return { found, missing }
  }

  /** Rows read whole, kept in the cache. */
  private async whole(ids: string[]): Promise<MessageRow[]> {
    const rows: MessageRow[] = []
    for (const part of chunks(ids)) rows.push(...(await this.ctx.database.get('memory_message', { id: { $in: part } })))
    this.cache.keep(rows)
    return rows
  }

  async byTopic(topicId: string, options: { before?: Date; limit: number; channel?: ChannelRef }) {
    if (!topicId || options.limit <= 0) return []
    const held = options.channel && (await this.mirror.fresh(options.channel))
    if (held) return held.byTopic(topicId, options)
    const rows = await this.rowsOf(
      { topicId, ...(options.before ? { createdAt: { $lt: options.before } } : {}) },
      { limit: options.limit, sort: { createdAt: 'desc' } },
    )
    return rows.reverse()
  }

  async byRoot(channel: ChannelRef, rootMessageId: string, options: { before: Date; limit: number }) {
    if (!rootMessageId || options.limit <= 0) return []
    const held = await this.mirror.fresh(channel)
    if (held) return held.byRoot(rootMessageId, options)
    const rows = await this.rowsOf(
      { ...channelWhere(channel), rootMessageId, createdAt: { $lt: options.before } },
      { limit: options.limit, sort: { createdAt: 'desc' } },
    )
    return rows.reverse()
  }

  /**
   * The rows a query finds, in its order: it reads their ids and topics only, and whole only the
   * rows the cache lacks (a query's rows read whole cost several times more than their ids).
   */
  private async rowsOf(query: Query<MessageRow>, options: { limit: number; sort: Partial<Record<keyof MessageRow, 'asc' | 'desc'>> }) {
    const stored = await this.ctx.database.get('memory_message', query, { fields: ['id', 'topicId'], ...options })
    const { found, missing } = this.fromCache(stored)
    for (const row of await this.whole(missing)) found.set(row.id, row)
    const rows = stored.flatMap(({ id }) => found.get(id) ?? [])
    this.cache.keep(rows)
    return rows
  }

  /** Every message a user said on a platform (the fields an erasure needs). */
  async ofUser(platform: string, userId: string): Promise<ErasedMessage[]> {
    return this.ctx.database.get('memory_message', { platform, userId }, ERASED_FIELDS)
  }

  /** The bot's answers to these messages (in their channels): they can quote what they answer. */
  async repliesTo(platform: string, said: Pick<ErasedMessage, 'channelId' | 'messageId'>[]): Promise<ErasedMessage[]> {
    const rows: ErasedMessage[] = []
    for (const [channelId, lines] of groupBy(said, (row) => row.channelId)) {
      for (const part of chunks([...new Set(lines.map((row) => row.messageId))])) {
        const where = { platform, channelId, role: 'assistant' as const, replyMessageId: { $in: part } }
        rows.push(...(await this.ctx.database.get('memory_message', where, ERASED_FIELDS)))
      }
    }
    return rows
  }

  /** The bot's messages in these channels that repeat one of `texts` word for word (a listing of memories, an answer). */
  async quoting(platform: string, channelIds: string[], texts: string[]): Promise<ErasedMessage[]> {
    const patterns = [...new Set(texts.map((text) => text.trim()).filter((text) => text.length >= QUOTE_MIN))].map(escapeRegExp)
    if (!patterns.length) return []
    const rows: ErasedMessage[] = []
    for (const channels of chunks([...new Set(channelIds)])) {
      for (const some of chunks(patterns, 20)) {
        const where = {
          platform,
          channelId: { $in: channels },
          role: 'assistant' as const,
          content: { $regex: new RegExp(some.join('|')) },
        }
        rows.push(...(await this.ctx.database.get('memory_message', where, ERASED_FIELDS)))
      }
    }
    return [...new Map(rows.map((row) => [row.id, row])).values()]
  }

  /**
   * The stored message the platform calls `messageId` in a channel: a user's by its row id, the bot's by
   * the id its adapter reported for it (`sentId`). Never a message of another channel.
   */
  async byPlatformId(channel: Pick<ChannelRef, 'platform' | 'channelId'>, messageId: string): Promise<MessageRow | undefined> {
    const [own] = await this.byIds([messageRowId(channel.platform, channel.channelId, messageId)])
    if (own) return own
    const [sent] = await this.ctx.database.get('memory_message', { ...channelWhere(channel), sentId: messageId }, { limit: 1 })
    return sent
  }

  /** Records the platform's id of a bot message, once its adapter has sent it. */
  async setSentId(row: Located, sentId: string): Promise<void> {
    this.cache.drop([row.id])
    await this.written(
      [row],
      () => this.ctx.database.set('memory_message', { id: row.id }, { sentId }),
      (held, rows) => rows.forEach(({ id }) => held.get(id) && held.upsert({ ...held.get(id)!, sentId })),
    )
  }

  /** Removes messages by row id. */
  async remove(ids: string[]): Promise<void> {
    this.cache.drop(ids)
    const located = await this.locate(ids)
    await this.written(
      located,
      async () => {
        for (const part of chunks([...new Set(ids)])) await this.ctx.database.remove('memory_message', { id: { $in: part } })
      },
      (held, rows) => rows.forEach((row) => held.remove(row.id)),
    )
  }

  /** A guild's messages (no commands) in (after, …] from `since` on, the newest `limit`, oldest first. */
  async recentInGuild(
    guild: Guild,
    query: { since: Date; after: Date; limit: number; roles: MessageRow['role'][] },
  ): Promise<GuildMessage[]> {
    const rows = await this.ctx.database.get(
      'memory_message',
      {
        platform: guild.platform,
        guildId: guild.guildId,
        isCommand: false,
        ...(query.roles.length === 1 ? { role: query.roles[0] } : {}),
        createdAt: { $gte: query.since, $gt: query.after },
      },
      {
        fields: ['id', 'userId', 'userName', 'content', 'role', 'createdAt'],
        limit: query.limit,
        sort: { createdAt: 'desc', id: 'desc' },
      },
    )
    return rows.reverse()
  }

  /** Guilds whose members said something after `since`, with the time of the newest message. */
  async activeGuilds(since: Date): Promise<(Guild & { newest: Date })[]> {
    const rows = await this.ctx.database
      // what members said: the bot talking (e.g. answering commands) does not make a group due
      .select('memory_message', { guildId: { $ne: '' }, isCommand: false, role: 'user', createdAt: { $gt: since } })
      .groupBy(['platform', 'guildId'], { newest: (row) => $.max(row.createdAt) })
      .execute()
    return rows.map((row) => ({ platform: row.platform, guildId: row.guildId, newest: new Date(row.newest as unknown as Date | number) }))
  }

  /**
   * People who said something (not the bot) whose id or name holds `query`, ignoring case, most
   * recently heard first: each with the name they last used, how many messages they said and where
   * (`''` is their private chat). A whole-table read: for the console's search, not the reply path.
   */
  async speakers(query: string, limit: number): Promise<Speaker[]> {
    // each letter as a class of both its cases: a database's REGEXP may ignore the `i` flag (MySQL's binary collation)
    const pattern = new RegExp(
      [...query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')]
        .map((char) => (char.toLowerCase() !== char.toUpperCase() ? `[${char.toLowerCase()}${char.toUpperCase()}]` : char))
        .join(''),
    )
    const rows = await this.ctx.database
      .select('memory_message', { role: 'user', $or: [{ userId: { $regex: pattern } }, { userName: { $regex: pattern } }] })
      .groupBy(['platform', 'userId', 'userName', 'guildId'], { messages: (row) => $.count(row.id), newest: (row) => $.max(row.createdAt) })
      .execute()
    const people = new Map<string, Speaker & { named: number }>()
    for (const row of rows) {
      const newest = new Date(row.newest as unknown as Date | number)
      const key = JSON.stringify([row.platform, row.userId])
      const known = people.get(key)
      if (!known) {
        people.set(key, {
          platform: row.platform,
          userId: row.userId,
          userName: row.userName,
          messages: row.messages,
          newest,
          guilds: [row.guildId],
          named: newest.getTime(),
        })
        continue
      }
      known.messages += row.messages
      if (!known.guilds.includes(row.guildId)) known.guilds.push(row.guildId)
      if (newest.getTime() > known.named) Object.assign(known, { userName: row.userName, named: newest.getTime() })
      if (newest > known.newest) known.newest = newest
    }
    return [...people.values()]
      .sort((a, b) => b.newest.getTime() - a.newest.getTime())
      .slice(0, limit)
      .map(({ named: _named, ...speaker }) => ({ ...speaker, guilds: speaker.guilds.sort() }))
  }

  async countInGuild(guild: Guild, after: Date) {
    return this.ctx.database.eval('memory_message', (row) => $.count(row.id), {
      platform: guild.platform,
      guildId: guild.guildId,
      role: 'user',
      isCommand: false,
      createdAt: { $gt: after },
    })
  }

  async hasGuild(guild: Guild) {
    const [row] = await this.ctx.database.get(
      'memory_message',
      { platform: guild.platform, guildId: guild.guildId },
      { fields: ['id'], limit: 1 },
    )
    return Boolean(row)
  }

  async indexableIds() {
    return (await this.ctx.database.get('memory_message', { isCommand: false }, ['id'])).map((row) => row.id)
  }

  async indexableIdsAfter(after: string, limit: number) {
    const rows = await this.ctx.database.get(
      'memory_message',
      { isCommand: false, id: { $gt: after } },
      { fields: ['id'], sort: { id: 'asc' }, limit },
    )
    return rows.map((row) => row.id)
  }

  async indexableSince(since: Date) {
    return (await this.ctx.database.get('memory_message', { isCommand: false, createdAt: { $gte: since } }, ['id'])).map((row) => row.id)
  }

  async setTopic(ids: string[], topicId: string) {
    await this.written(
      await this.locate(ids),
      async () => {
        for (const part of chunks([...new Set(ids)])) await this.ctx.database.set('memory_message', { id: { $in: part } }, { topicId })
      },
      (held, rows) => rows.forEach((row) => held.setTopic(row.id, topicId)),
    )
  }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return groups
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const markId = (channel: Where) => `${channel.platform}:${channel.channelId}`

/** Watermarks and the messages past them, on the Koishi database. */
export class KoishiWatermarkStore {
  constructor(private readonly ctx: Context) {}

  /** Moves a channel's watermark forward to `until` (never back). */
  async advance(channel: Where, until: Date): Promise<void> {
    const id = markId(channel)
    const [row] = await this.ctx.database.get('memory_watermark', { id })
    if (row && row.until >= until) return
    await this.ctx.database.upsert('memory_watermark', [{ id, platform: channel.platform, channelId: channel.channelId, until }])
  }

  /**
   * What users said since their channel's watermark (or since `since`, when newer or when it has none), no
   * commands, oldest first, with the bot's answers to those messages: the dialogues that still wait.
   */
  async unmemorised(since: Date, limit: number): Promise<MessageRow[]> {
    // where and when first, the whole rows only of what waits: most of what was said lies behind its watermark
    const said = await this.ctx.database.get(
      'memory_message',
      { role: 'user', isCommand: false, createdAt: { $gte: since } },
      { fields: ['id', 'platform', 'channelId', 'createdAt'], sort: { createdAt: 'asc' }, limit },
    )
    if (!said.length) return []
    const marks = new Map<string, Date>()
    for (const part of chunks([...new Set(said.map((row) => markId(row)))])) {
      for (const mark of await this.ctx.database.get('memory_watermark', { id: { $in: part } })) marks.set(mark.id, mark.until)
    }
    // a message in the same second as the watermark is read back too (chat platforms stamp whole seconds):
    // memorising it again adds nothing
    const past = said.filter((row) => !marks.has(markId(row)) || row.createdAt >= marks.get(markId(row))!)
    const order = new Map(past.map((row, i) => [row.id, i]))
    const waiting: MessageRow[] = []
    for (const part of chunks([...order.keys()])) waiting.push(...(await this.ctx.database.get('memory_message', { id: { $in: part } })))
    waiting.sort((a, b) => order.get(a.id)! - order.get(b.id)!)
    const answers: MessageRow[] = []
    for (const part of chunks(waiting.map((row) => row.messageId))) {
      answers.push(...(await this.ctx.database.get('memory_message', { role: 'assistant', replyMessageId: { $in: part } })))
    }
    const asked = new Set(waiting.map((row) => `${row.platform}:${row.channelId}:${row.messageId}`))
    const replies = answers.filter((row) => asked.has(`${row.platform}:${row.channelId}:${row.replyMessageId}`))
    return [...waiting, ...replies].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }
}
