import type { Counters } from '../core/observability'
import type { ForgetFence } from '../core/forget-fence'
import type { FactIndex, FactStore, FactRow } from '../facts'
import { factLockKey } from '../facts'
import type { KeyedLock } from '../core/keyed-lock'
import type { ErasedMessage, KoishiMessageStore } from '../messages'
import type { Erasure } from '../module'
import type { UserRef } from '../scope'

export interface EraserDeps {
  /** Capture's buffers: written out before an erasure reads the tables, a user's part dropped first. */
  capture: { flush(): Promise<void>; forgetUser(platform: string, userId: string): Promise<void> }
  facts: Pick<FactStore, 'get' | 'remove' | 'ofUser'>
  factIndex: Pick<FactIndex, 'remove'>
  messages: Pick<KoishiMessageStore, 'byIds' | 'ofUser' | 'repliesTo'>
  /** Each memory kind's part of a forget (the messages' own rows among them), those built on others first. */
  erasures: Erasure[]
  /** Rewrites the index tables rows were erased from, so the erased text leaves the disk. */
  purgeIndex(): Promise<void>
  /** The lock a user's fact writes hold: a forget waits for a write under way. */
  lock: KeyedLock
  /** Remembers that a user was forgotten, so the dialogues that were waiting store nothing of them. */
  fence: Pick<ForgetFence, 'mark'>
  counters: Counters
}

/**
 * `memory.forget` and `memory.forget --all`: each domain erases what it holds of a user — facts and
 * their index rows, the messages they came from and the bot's answers to them, their index rows and
 * exchanges, the contexts they triggered, and the summaries that may quote them (made again later).
 */
export class Eraser {
  constructor(private readonly deps: EraserDeps) {}

  /** Erases facts of `owner` by id, with the messages they were drawn from. Returns the ids erased. */
  async forget(owner: UserRef, ids: string[]): Promise<string[]> {
    const rows = (await this.deps.facts.get(ids)).filter((row) => row.platform === owner.platform && row.userId === owner.userId)
    await this.eraseFacts(owner, rows)
    if (rows.length) await this.deps.purgeIndex()
    return rows.map((row) => row.id)
  }

  /** Erases every fact and every captured message of a user on a platform. Returns how many facts went. */
  async forgetAll(owner: UserRef): Promise<number> {
    return this.deps.lock.run(factLockKey(owner), () => this.eraseAll(owner))
  }

  private async eraseAll(owner: UserRef): Promise<number> {
    const { capture, facts, messages } = this.deps
    // a dialogue queued or running now stores nothing of what the user said up to here
    this.deps.fence.mark(owner, new Date())
    await capture.forgetUser(owner.platform, owner.userId)
    await this.eraseUser(owner)
    const rows = await facts.ofUser(owner.platform, owner.userId)
    await this.eraseFacts(owner, rows)
    const said = await messages.ofUser(owner.platform, owner.userId)
    // the bot's answers to the user can quote them, so they go too
    const replies = await messages.repliesTo(
      owner.platform,
      said.map((row) => row.messageId),
    )
    await this.eraseMessages(owner, [...said, ...replies])
    await this.deps.purgeIndex()
    return rows.length
  }

  /** Before any message goes: what names its sources by message id (knowledge) is given every message the user said and the answers to them. */
  private async eraseUser(owner: UserRef): Promise<void> {
    const { messages } = this.deps
    const said = await messages.ofUser(owner.platform, owner.userId)
    const replies = await messages.repliesTo(
      owner.platform,
      said.map((row) => row.messageId),
    )
    const ids = [...said, ...replies].map((row) => row.id)
    for (const erasure of this.deps.erasures) await erasure.user?.(owner, ids)
  }

  private async eraseFacts(owner: UserRef, rows: FactRow[]): Promise<void> {
    if (!rows.length) return
    const { capture, facts, factIndex, messages, counters } = this.deps
    const ids = rows.map((row) => row.id)
    await capture.flush()
    await facts.remove(ids)
    await factIndex.remove(ids)
    // the dialogue the fact came from: the user's lines and the bot's answers to them, also a line
    // another fact names (one message can state several facts): the line still says what was
    // forgotten, and recall hands lines back; the other facts stay, without that line
    const sources = [...new Set(rows.flatMap((row) => row.sourceIds))].filter((id) => id.startsWith(`${owner.platform}:`))
    if (sources.length) await this.eraseMessages(owner, await messages.byIds(sources))
    counters.inc('forget.facts', ids.length)
  }

  /** Erases messages and what was derived from them. */
  private async eraseMessages(owner: UserRef, erased: ErasedMessage[]): Promise<void> {
    if (!erased.length) return
    for (const erasure of this.deps.erasures) await erasure.messages?.(owner, erased)
    for (const erasure of this.deps.erasures) await erasure.afterMessages?.(owner, erased)
  }
}
