import type { Counters, Logger } from '../core/observability'
import type { ContextLogStore } from './store'
import type { ContextRecord, ReplyTraceRecord } from './table'
import type { BuiltContext, ContextTarget } from './types'

/**
 * The context log (design §5.5): one record per context built — the trigger message, the
 * chosen messages with their scores, sizes, build time, whether it fell back, and the bot's reply
 * when it answered — kept for a retention period, and the metrics `memory.stats` shows.
 */

export interface ReplyMetrics {
  replies: number
  averageMs: number
  averagePromptTokens: number
  toolCalls: number
  /** Share of replies whose route skipped recall. */
  recallSkippedRate: number
  failures: number
  /** Replies answered without a model (the offline answer). */
  offline: number
}

export interface ContextMetrics {
  /** Contexts in the period. */
  contexts: number
  periodHours: number
  averageBuildMs: number
  /** Mean score of the chosen messages (contexts that did not fall back). */
  averageRelevance: number
  averageMessages: number
  averageTokens: number
  /** 1 − tokens used / tokens of the plain time windows they replaced (can be negative). */
  tokenSavings: number
  contextsPerHour: number
  groupsServed: number
  /** Share of contexts that fell back to the plain recent window. */
  fallbackRate: number
}

export interface ContextLogOptions {
  /** Days a record is kept. Default 7. */
  retentionDays?: number
  /** Most records kept. Default 10 000. */
  maxRecords?: number
  /** Characters of the trigger and of the reply kept. Default 500. */
  maxTextLength?: number
  counters: Counters
  logger: Logger
  now?: () => Date
  newId?: () => string
}

let sequence = 0

export class ContextLog {
  private writes = 0
  /** Writes under way: a reply waits for the record it belongs to, and `settled` for all. */
  private readonly pending = new Set<Promise<unknown>>()

  constructor(
    private store: ContextLogStore,
    private options: ContextLogOptions,
  ) {}

  /** Records a built context in the background. Never throws, never waits. */
  record(target: ContextTarget, context: BuiltContext): void {
    const now = this.now()
    const record: ContextRecord = {
      id: this.options.newId?.() ?? `${now.getTime().toString(36)}-${(sequence++).toString(36)}`,
      platform: target.platform,
      guildId: target.guildId,
      channelId: target.channelId,
      userId: target.userId,
      triggerMessageId: target.messageId ?? '',
      triggerText: this.cut(target.content),
      chosenIds: context.messages.map((message) => message.id),
      scores: context.messages.map((message) => round(message.score)),
      tokens: context.tokens,
      windowTokens: context.windowTokens,
      fallback: context.fallback,
      buildMs: round(context.buildMs),
      reply: '',
      createdAt: now,
    }
    this.track(
      this.store
        .add(record)
        .then(() => this.maybePrune(now))
        .catch((error) => this.failed(error)),
    )
  }

  /** Resolves once every write begun so far has finished. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending)
  }

  private track(write: Promise<unknown>): Promise<unknown> {
    this.pending.add(write)
    void write.finally(() => this.pending.delete(write))
    return write
  }

  /** Attaches the bot's reply to the context built for `triggerMessageId`. Never throws. */
  async reply(channel: { platform: string; channelId: string }, triggerMessageId: string, reply: string): Promise<void> {
    if (!triggerMessageId) return
    // the record of the context this reply answers may still be on its way to the database
    const earlier = [...this.pending]
    await this.track(
      Promise.all(earlier)
        .then(() => this.store.setReply(channel.platform, channel.channelId, triggerMessageId, this.cut(reply)))
        .catch((error) => this.failed(error)),
    )
  }

  /** Records a reply run's trace in the background. Never throws, never waits. */
  trace(record: Omit<ReplyTraceRecord, 'id' | 'createdAt'>): void {
    const now = this.now()
    const full = { ...record, id: this.options.newId?.() ?? `${now.getTime().toString(36)}-${(sequence++).toString(36)}`, createdAt: now }
    this.track(this.store.addTrace(full).catch((error) => this.failed(error)))
  }

  /** The newest trace of a channel (or of one trigger message there); undefined when none or unreadable. */
  async lastTrace(channel: { platform: string; channelId: string }, triggerMessageId?: string): Promise<ReplyTraceRecord | undefined> {
    await this.settled()
    return this.store.lastTrace(channel.platform, channel.channelId, triggerMessageId).catch((error) => {
      this.failed(error)
      return undefined
    })
  }

  /** Reply metrics over the last `hours` (default 24). Never throws. */
  async replyMetrics(hours = 24): Promise<ReplyMetrics> {
    let records: ReplyTraceRecord[] = []
    try {
      records = await this.store.tracesSince(new Date(this.now().getTime() - hours * 3_600_000))
    } catch (error) {
      this.failed(error)
    }
    const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0)
    const n = records.length
    return {
      replies: n,
      averageMs: round(mean(records.map((record) => record.totalMs))),
      averagePromptTokens: round(mean(records.map((record) => record.promptTokens))),
      toolCalls: records.reduce((sum, record) => sum + record.toolCalls, 0),
      recallSkippedRate: n ? round(records.filter((record) => record.recallSkipped).length / n) : 0,
      failures: records.filter((record) => record.outcome === 'failed').length,
      offline: records.filter((record) => record.outcome === 'offline').length,
    }
  }

  /** Metrics over the last `hours` (default 24). Never throws; an unreadable log reads as empty. */
  async metrics(hours = 24): Promise<ContextMetrics> {
    const now = this.now()
    let records: ContextRecord[] = []
    try {
      records = await this.store.since(new Date(now.getTime() - hours * 3_600_000))
    } catch (error) {
      this.failed(error)
    }
    return computeMetrics(records, hours)
  }

  private async maybePrune(now: Date) {
    if (++this.writes % 100 !== 1) return
    const days = this.options.retentionDays ?? 7
    await this.store.prune(new Date(now.getTime() - days * 86_400_000), this.options.maxRecords ?? 10_000)
  }

  private failed(error: unknown) {
    this.options.counters.inc('context-log.failed')
    this.options.logger.debug('context log: %s', (error as Error).message)
  }

  private cut(text: string) {
    const max = this.options.maxTextLength ?? 500
    return text.length > max ? text.slice(0, max) + '…' : text
  }

  private now() {
    return this.options.now?.() ?? new Date()
  }
}

/** The metrics of design §5.5 over a list of records covering `periodHours`. */
export function computeMetrics(records: ContextRecord[], periodHours: number): ContextMetrics {
  const n = records.length
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0)
  const scored = records.filter((record) => !record.fallback && record.scores.length)
  const windowTokens = records.reduce((sum, record) => sum + record.windowTokens, 0)
  const tokens = records.reduce((sum, record) => sum + record.tokens, 0)
  return {
    contexts: n,
    periodHours,
    averageBuildMs: round(mean(records.map((record) => record.buildMs))),
    averageRelevance: round(mean(scored.map((record) => mean(record.scores)))),
    averageMessages: round(mean(records.map((record) => record.chosenIds.length))),
    averageTokens: round(mean(records.map((record) => record.tokens))),
    tokenSavings: windowTokens > 0 ? round(1 - tokens / windowTokens) : 0,
    contextsPerHour: periodHours > 0 ? round(n / periodHours) : 0,
    groupsServed: new Set(records.filter((record) => record.guildId).map((record) => `${record.platform}:${record.guildId}`)).size,
    fallbackRate: n ? round(records.filter((record) => record.fallback).length / n) : 0,
  }
}

function round(value: number) {
  return Math.round(value * 1000) / 1000
}
