import type { Counters, Logger } from '../core/observability'
import type { ChannelRef, MessageRow, MessageStore } from '../messages'
import type { ConversationSummarizer } from './summarizer'
import type { ChannelSummaryStore } from './store'

/**
 * The rolling conversation summary of a channel (design §2.4): the newest `keepRecent` messages
 * stay as they are; what has left that recent window is summarised once at least `minMessages` have
 * left it, and the summary is refreshed every `refreshEvery` further messages — incrementally, from
 * the previous summary and the messages that left the window since. Each summary is stored with the
 * number of messages it covers and the time and id of the newest of them.
 */

export interface RollingSummaryConfig {
  /** Newest messages left out of the summary (the recent window). Default 20. */
  keepRecent: number
  /** Messages that must have left the window before the first summary. Default 10. */
  minMessages: number
  /** New messages that must have left the window before a refresh (a model call with one). Default 50. */
  refreshEvery: number
  /** Most messages read per refresh; older ones that left the window meanwhile are not summarised. Default 200. */
  maxBatch: number
  /** Most tokens of a summary. Default 300. */
  maxTokens: number
}

export const DEFAULT_ROLLING_SUMMARY: Readonly<RollingSummaryConfig> = Object.freeze({
  keepRecent: 20,
  minMessages: 10,
  refreshEvery: 50,
  maxBatch: 200,
  maxTokens: 300,
})

export interface RollingSummaryDeps {
  store: Pick<MessageStore, 'window'>
  summaries: ChannelSummaryStore
  /** The model's summariser; when it fails (or is absent) the fallback is used. */
  summarizer?: ConversationSummarizer
  /** The offline summariser. */
  fallback: ConversationSummarizer
  counters: Counters
  logger: Logger
  now?: () => Date
}

export type RefreshOutcome = 'summarised' | 'not-due' | 'failed'

export class RollingSummary {
  readonly config: Readonly<RollingSummaryConfig>
  /** Messages seen per channel since its last check, so a refresh is not queried for every message. */
  private seen = new Map<string, number>()

  constructor(
    private deps: RollingSummaryDeps,
    config: Partial<RollingSummaryConfig> = {},
  ) {
    this.config = Object.freeze({ ...DEFAULT_ROLLING_SUMMARY, ...config })
  }

  /**
   * Counts a captured message. True when enough arrived since the last check that a refresh may be
   * due: the caller then queues `refresh(channel)` in the background (one per channel at a time).
   */
  note(channel: Pick<ChannelRef, 'platform' | 'channelId'>): boolean {
    const key = `${channel.platform}\u0000${channel.channelId}`
    const count = (this.seen.get(key) ?? 0) + 1
    if (count < this.config.refreshEvery) {
      this.seen.set(key, count)
      return false
    }
    this.seen.delete(key)
    return true
  }

  /** The stored summary of a channel ('' when none). Never throws. */
  async get(channel: ChannelRef): Promise<string> {
    try {
      return (await this.deps.summaries.get(channel))?.summary ?? ''
    } catch {
      return ''
    }
  }

  /** Summarises what left the recent window when the rule says so. Never throws. */
  async refresh(channel: ChannelRef): Promise<RefreshOutcome> {
    const { store, summaries, counters, logger } = this.deps
    const { keepRecent, minMessages, refreshEvery, maxBatch, maxTokens } = this.config
    try {
      const now = this.deps.now?.() ?? new Date()
      const previous = await summaries.get(channel)
      // messages after the covered ones, newest `keepRecent + maxBatch`; the newest `keepRecent` stay raw
      const rows = await store.window(channel, {
        since: previous ? new Date(previous.coveredUntil.getTime()) : undefined,
        before: new Date(now.getTime() + 1),
        limit: keepRecent + maxBatch,
      })
      const fresh = previous ? rows.filter((row) => row.id !== previous.coveredId && row.createdAt >= previous.coveredUntil) : rows
      const left = fresh.slice(0, Math.max(0, fresh.length - keepRecent))
      const due = previous ? left.length >= refreshEvery : left.length >= minMessages
      if (!due) return 'not-due'
      const input = {
        previous: previous?.summary ?? '',
        messages: left
          .filter((row) => !row.isCommand)
          .map(toLine)
          .filter((line) => line.content),
        maxTokens,
      }
      const { summary, summarizer } = await this.summarize(input)
      const newest = left[left.length - 1]
      await summaries.save({
        platform: channel.platform,
        guildId: channel.guildId,
        channelId: channel.channelId,
        summary,
        coveredCount: (previous?.coveredCount ?? 0) + left.length,
        coveredUntil: newest.createdAt,
        coveredId: newest.id,
        summarizer,
        updatedAt: now,
      })
      counters.inc('summary.refreshed')
      return 'summarised'
    } catch (error) {
      counters.inc('summary.failed')
      logger.warn('rolling summary of %s:%s failed: %s', channel.platform, channel.channelId, (error as Error).message)
      return 'failed'
    }
  }

  private async summarize(input: Parameters<ConversationSummarizer['summarize']>[0]) {
    const { summarizer, fallback, counters, logger } = this.deps
    if (summarizer) {
      try {
        return { summary: await summarizer.summarize(input), summarizer: summarizer.id }
      } catch (error) {
        counters.inc('summary.llm-failed')
        logger.debug('summariser %s failed, using %s: %s', summarizer.id, fallback.id, (error as Error).message)
      }
    }
    return { summary: await fallback.summarize(input), summarizer: fallback.id }
  }
}

function toLine(row: MessageRow) {
  return { name: row.userName || row.userId, content: row.content.trim() }
}
