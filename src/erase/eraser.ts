import type { ChannelSummaryStore } from '../channel-summaries'
import type { Counters } from '../core/observability'
import type { EpisodicMemory } from '../episodes'
import type { FactIndex, FactRepository, FactRow } from '../facts'
import { factLockKey } from '../facts'
import type { KeyedLock } from '../core/keyed-lock'
import type { Knowledge } from '../knowledge'
import type { ErasedMessage, KoishiMessageStore, MessageIndex, MessageStore } from '../messages'
import type { TopicSummaries } from '../topic-summaries'
import type { TopicStore } from '../topics'
import { rewordTopics } from '../topics'

/** Whose memory is erased: a user on a platform. */
export interface UserRef {
  platform: string
  userId: string
}

export interface EraserDeps {
  /** Capture's buffers: written out before an erasure reads the tables, a user's part dropped first. */
  capture: { flush(): Promise<void>; forgetUser(platform: string, userId: string): Promise<void> }
  facts: Pick<FactRepository, 'get' | 'remove' | 'ofUser'>
  factIndex: Pick<FactIndex, 'remove'>
  messages: Pick<KoishiMessageStore, 'byIds' | 'ofUser' | 'repliesTo' | 'remove'> & Pick<MessageStore, 'byTopic'>
  messageIndex: Pick<MessageIndex, 'remove'>
  episodes: Pick<EpisodicMemory, 'remove'>
  contextLog: { removeUser(platform: string, userId: string): Promise<void> }
  channelSummaries: Pick<ChannelSummaryStore, 'remove'>
  topicSummaries: Pick<TopicSummaries, 'eraseTopics'>
  topics: Pick<TopicStore, 'get' | 'update' | 'remove'>
  /** Profiles, and the entities and relations only the erased messages support. */
  knowledge: Pick<Knowledge, 'forgetUser'>
  /** Rewrites the index tables rows were erased from, so the erased text leaves the disk. */
  purgeIndex(): Promise<void>
  /** The lock a user's fact writes hold: a forget waits for a write under way. */
  lock: KeyedLock
  /** Remembers that a user was forgotten, so the dialogues that were waiting store nothing of them. */
  fence(owner: UserRef, at: Date): void
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
    this.deps.fence(owner, new Date())
    await capture.forgetUser(owner.platform, owner.userId)
    await this.eraseKnowledge(owner)
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

  /** Before any message goes: the knowledge names its sources by the ids of every message the user said and the answers to them. */
  private async eraseKnowledge(owner: UserRef): Promise<void> {
    const { messages } = this.deps
    const said = await messages.ofUser(owner.platform, owner.userId)
    const replies = await messages.repliesTo(
      owner.platform,
      said.map((row) => row.messageId),
    )
    await this.deps.knowledge.forgetUser(
      owner,
      [...said, ...replies].map((row) => row.id),
    )
  }

  private async eraseFacts(owner: UserRef, rows: FactRow[]): Promise<void> {
    if (!rows.length) return
    const { capture, facts, factIndex, messages, counters } = this.deps
    const ids = rows.map((row) => row.id)
    await capture.flush()
    await facts.remove(ids)
    await factIndex.remove(ids)
    // the dialogue the fact came from: the user's lines and the bot's answers to them, except the
    // messages another fact of the user still names (one message can state several facts)
    const named = new Set((await facts.ofUser(owner.platform, owner.userId)).flatMap((row) => row.sourceIds))
    const sources = rows.flatMap((row) => row.sourceIds).filter((id) => id.startsWith(`${owner.platform}:`) && !named.has(id))
    if (sources.length) await this.eraseMessages(owner, await messages.byIds(sources))
    counters.inc('forget.facts', ids.length)
  }

  /** Erases messages and what was derived from them. */
  private async eraseMessages(owner: UserRef, erased: ErasedMessage[]): Promise<void> {
    if (!erased.length) return
    const { messages, messageIndex, episodes, contextLog, channelSummaries, topicSummaries, topics } = this.deps
    const ids = erased.map((row) => row.id)
    const topicIds = [...new Set(erased.map((row) => row.topicId).filter(Boolean))]
    await messageIndex.remove(ids)
    await episodes.remove(ids)
    await contextLog.removeUser(owner.platform, owner.userId)
    for (const channelId of new Set(erased.map((row) => row.channelId)))
      await channelSummaries.remove({ platform: owner.platform, channelId })
    await topicSummaries.eraseTopics(topicIds)
    await messages.remove(ids)
    await rewordTopics({ topics, messages }, owner.userId, topicIds)
  }
}
