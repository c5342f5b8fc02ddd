import type { Counters } from '../core/observability'
import type { ForgetFence } from '../store/forget-fence'
import type { FactIndex, FactStore, FactRow } from '../facts'
import { factLockKey } from '../facts'
import type { KeyedLock } from '../core/keyed-lock'
import type { ErasedMessage, KoishiMessageStore, MessageRow } from '../messages'
import { messageRowId } from '../messages'
import type { ErasedCounts, ErasedLine, Erasure } from '../module'
import type { UserRef } from '../scope'
import { cleanId } from '../scope'
import { jsonField, jsonText } from './export-files'

export interface EraserDeps {
  /** Capture's buffers: written out before an erasure reads the tables, a user's part dropped first. */
  capture: { flush(): Promise<void>; forgetUser(platform: string, userId: string): Promise<void> }
  facts: Pick<FactStore, 'get' | 'remove' | 'ofUser' | 'drawnFrom' | 'update'>
  factIndex: Pick<FactIndex, 'remove'>
  messages: Pick<KoishiMessageStore, 'byIds' | 'ofUser' | 'repliesTo' | 'quoting'>
  /** Each memory kind's part of a forget (the messages' own rows among them), those built on others first. */
  erasures: Erasure[]
  /** Rewrites the index tables rows were erased from, so the erased text leaves the disk. */
  purgeIndex(): Promise<void>
  /**
   * Runs `callback` after `ms` (cancelled at stop). Given, a message erased by a chat event leaves the index
   * files at the next purge within `MESSAGE_PURGE_MS`, not at once: a purge rewrites whole tables.
   */
  schedule?(callback: () => void, ms: number): () => void
  /** The lock a user's fact writes hold: a forget waits for a write under way. */
  lock: KeyedLock
  /** Remembers that a user was forgotten, so the dialogues that were waiting store nothing of them. */
  fence: Pick<ForgetFence, 'mark'>
  /** Deletes the export files the plugin wrote with a line holding every part of one of `needles`; how many went. */
  sweepExports?(needles: string[][]): Promise<number>
  counters: Counters
}

/** What a forget erased: the facts by id, and how many rows of each kind went. */
export interface ForgetReport {
  facts: string[]
  removed: ErasedCounts
}

/** A message of the chat that is recalled, deleted or edited: as stored. */
export type ChatMessage = ErasedMessage & Pick<MessageRow, 'platform' | 'userId' | 'role' | 'replyMessageId'>

/**
 * `memory.forget` and `memory.forget --all`: each domain erases what it holds of a user — facts and
 * their index rows, the messages they came from and the bot's answers to them, the bot's messages that
 * repeat a forgotten fact, their index rows and exchanges, the contexts that showed them, knowledge,
 * group memory, and the summaries that may quote them (made again later).
 */
export class Eraser {
  /** A purge the erasures of chat events have asked for, waiting its time. */
  private purgeDue?: () => void

  constructor(private readonly deps: EraserDeps) {}

  /** Erases facts of `owner` by id, with the messages they were drawn from. */
  async forget(owner: UserRef, ids: string[]): Promise<ForgetReport> {
    const who = cleanOwner(owner)
    const removed: ErasedCounts = {}
    const rows = (await this.deps.facts.get(ids)).filter((row) => row.platform === who.platform && row.userId === who.userId)
    await this.eraseFacts(who, rows, removed)
    if (rows.length) await this.deps.purgeIndex()
    add(removed, { exports: await this.sweep(rows.map((row) => [jsonText(row.content)])) })
    return { facts: rows.map((row) => row.id), removed }
  }

  /** Erases every fact and every captured message of a user on a platform. */
  async forgetAll(owner: UserRef): Promise<ForgetReport> {
    const who = cleanOwner(owner)
    return this.deps.lock.run(factLockKey(who), () => this.eraseAll(who))
  }

  /**
   * A message recalled or deleted in the chat, or the text an edit replaced (`capture/chat-events.ts`):
   * it goes with the bot's answers to it and what each kind derived from them, as in a forget, and so does every fact no other user
   * line still supports (the bot's answers only go with what they answer); a fact other lines support
   * too stays, without this source. `edited`: the message stays in the chat, so exports are left alone.
   */
  async forgetMessage(message: ChatMessage, { edited = false }: { edited?: boolean } = {}): Promise<ForgetReport> {
    const author = cleanOwner(message)
    return this.deps.lock.run(factLockKey(author), () => this.eraseMessage(author, message, edited))
  }

  private async eraseMessage(author: UserRef, message: ChatMessage, edited: boolean): Promise<ForgetReport> {
    const { capture, facts, factIndex, messages, counters } = this.deps
    const removed: ErasedCounts = {}
    await capture.flush()
    const drawn = await facts.drawnFrom(message.platform, message.channelId, message.id)
    const others = [...new Set(drawn.flatMap((row) => row.sourceIds))].filter((id) => id !== message.id)
    const supporting = new Set((await messages.byIds(others)).filter((row) => row.role === 'user').map((row) => row.id))
    const gone = drawn.filter((row) => !row.sourceIds.some((id) => supporting.has(id)))
    const ids = gone.map((row) => row.id)
    if (ids.length) {
      await facts.remove(ids)
      await factIndex.remove(ids)
      add(removed, { facts: ids.length })
      counters.inc('forget.facts', ids.length)
    }
    for (const row of drawn.filter((row) => !ids.includes(row.id)))
      await facts.update(row.id, { sourceIds: row.sourceIds.filter((id) => id !== message.id) })
    // a recall takes the bot's answers with it, as a forget does: they can quote it; an edit leaves them
    const replies = edited ? [] : await messages.repliesTo(message.platform, [message])
    // a bot message recalled: the exchange it was the answer in goes too (a "thinking…" message is no answer)
    const answers =
      message.role === 'assistant' && message.replyMessageId
        ? messageRowId(message.platform, message.channelId, message.replyMessageId)
        : undefined
    await this.eraseMessages(author, { said: [{ ...message, answers }], replies }, removed)
    await this.purgeSoon()
    if (!edited) add(removed, { exports: await this.sweep([[jsonText(message.id)], ...gone.map((row) => [jsonText(row.content)])]) })
    return { facts: ids, removed }
  }

  private async eraseAll(owner: UserRef): Promise<ForgetReport> {
    const { capture, facts, messages } = this.deps
    const removed: ErasedCounts = {}
    // a dialogue queued or running now, here or on another instance, stores nothing of what the user said up to here
    await this.deps.fence.mark(owner, new Date())
    await capture.forgetUser(owner.platform, owner.userId)
    await capture.flush()
    const said = await messages.ofUser(owner.platform, owner.userId)
    // the bot's answers to the user can quote them, so they go too
    const replies = await messages.repliesTo(owner.platform, said)
    // before any message goes: what names its sources by message id (knowledge) is given them all
    for (const erasure of this.deps.erasures)
      add(
        removed,
        await erasure.user?.(
          owner,
          [...said, ...replies].map((row) => row.id),
        ),
      )
    const rows = await facts.ofUser(owner.platform, owner.userId)
    await this.eraseFacts(owner, rows, removed)
    const left = await messages.ofUser(owner.platform, owner.userId)
    const leftReplies = await messages.repliesTo(owner.platform, left)
    await this.eraseMessages(owner, { said: left, replies: leftReplies }, removed)
    await this.deps.purgeIndex()
    add(removed, { exports: await this.sweep([[jsonField('platform', owner.platform), jsonField('userId', owner.userId)]]) })
    return { facts: rows.map((row) => row.id), removed }
  }

  private async eraseFacts(owner: UserRef, rows: FactRow[], removed: ErasedCounts): Promise<void> {
    if (!rows.length) return
    const { capture, facts, factIndex, messages, counters } = this.deps
    const ids = rows.map((row) => row.id)
    await capture.flush()
    await facts.remove(ids)
    await factIndex.remove(ids)
    add(removed, { facts: ids.length })
    // the dialogue the fact came from: the user's own lines (a source that names another's message,
    // as an import may, is not theirs to erase) and the bot's answers to them, also a line another fact
    // names (one message can state several facts): the line still says what was forgotten
    const named = await messages.byIds([...new Set(rows.flatMap((row) => row.sourceIds))])
    const said = named.filter((row) => row.platform === owner.platform && row.userId === owner.userId)
    const replies = await messages.repliesTo(owner.platform, said)
    // the bot's messages that repeat a forgotten fact: a `memory.list`, an answer drawn from it
    const channels = [...new Set([...said, ...(await messages.ofUser(owner.platform, owner.userId))].map((row) => row.channelId))]
    const quoting = await messages.quoting(
      owner.platform,
      channels,
      rows.map((row) => row.content),
    )
    await this.eraseMessages(owner, { said, replies: [...replies, ...quoting] }, removed)
    counters.inc('forget.facts', ids.length)
  }

  /** Recalls come often in a busy group: their purges are gathered into one, `MESSAGE_PURGE_MS` after the first. */
  private async purgeSoon(): Promise<void> {
    const { schedule, purgeIndex } = this.deps
    if (!schedule) return purgeIndex()
    this.purgeDue ??= schedule(() => {
      this.purgeDue = undefined
      void purgeIndex()
    }, MESSAGE_PURGE_MS)
  }

  private async sweep(needles: string[][]): Promise<number> {
    return needles.length && this.deps.sweepExports ? this.deps.sweepExports(needles) : 0
  }

  /** Erases messages and what was derived from them. */
  private async eraseMessages(
    owner: UserRef,
    lines: { said: (ErasedMessage & Pick<ErasedLine, 'answers'>)[]; replies: ErasedMessage[] },
    removed: ErasedCounts,
  ): Promise<void> {
    const said = unique(lines.said)
    const saidIds = new Set(said.map((row) => row.id))
    const replies = unique(lines.replies).filter((row) => !saidIds.has(row.id))
    const erased = [...said, ...replies]
    if (!erased.length) return
    add(removed, { messages: said.length, replies: replies.length })
    for (const erasure of this.deps.erasures) add(removed, await erasure.messages?.(owner, erased))
    for (const erasure of this.deps.erasures) add(removed, await erasure.afterMessages?.(owner, erased))
  }
}

/** How long the index files may keep the text of a message a chat event erased (the tables and searches lose it at once). */
export const MESSAGE_PURGE_MS = 5 * 60_000

/** Ids as capture stored them (a lone surrogate written out), so a forget finds what recall finds. */
function cleanOwner(owner: UserRef): UserRef {
  return { platform: cleanId(owner.platform), userId: cleanId(owner.userId) }
}

function unique<T extends { id: string }>(rows: T[]): T[] {
  return [...new Map(rows.map((row) => [row.id, row])).values()]
}

function add(total: ErasedCounts, counts: ErasedCounts | void): void {
  if (!counts) return
  for (const [kind, n] of Object.entries(counts) as [keyof ErasedCounts, number][]) if (n) total[kind] = (total[kind] ?? 0) + n
}
