/**
 * A small time series of what the memory costs and does, for the console's charts: sampled on a timer,
 * kept in memory (it starts again with the plugin), one point per interval. Counters are cumulative
 * since the plugin started; a point holds what changed within its interval.
 */

/** Kinds of model call the charts tell apart. */
export const CALL_KINDS = ['extract', 'evolve', 'summary', 'topic', 'profile', 'reply'] as const
export type CallKind = (typeof CALL_KINDS)[number]

export interface SeriesPoint {
  /** End of the interval, epoch ms. */
  at: number
  /** Length of the interval, ms. */
  span: number
  /** Contexts built in the interval. */
  contexts: number
  /** Their mean build time, ms (0 without contexts). */
  buildMs: number
  /** Their mean size, tokens. */
  tokens: number
  /** 1 − tokens used / tokens of the whole recent history they stood for (0 without contexts). */
  tokenSavings: number
  /** Model calls by kind (the offline rules make none). */
  calls: Record<CallKind, number>
  /** Dialogues that left at least one fact. */
  memorised: number
  /** Dialogues the judge found nothing worth keeping in. */
  rejected: number
  /** Dialogues the prefilter skipped (greetings, commands, noise). */
  skipped: number
}

/** What one sample reads. */
export interface Reading {
  /** The memory's counters, cumulative. */
  counters: Record<string, number>
  /** Contexts built in the interval. */
  contexts: { contexts: number; averageBuildMs: number; averageTokens: number; tokenSavings: number }
  /** Replies in the interval: how many, how many without a model, how many tool rounds. */
  replies: { replies: number; offline: number; toolCalls: number }
  /** Whether the memory's own model is a model (not the offline rules). */
  modelled: boolean
}

export interface SeriesOptions {
  /** Points kept; the oldest go first. */
  capacity: number
  read(since: Date, now: Date): Promise<Reading>
  now?: () => Date
}

const sumOf = (counters: Record<string, number>, test: (name: string) => boolean) =>
  Object.entries(counters).reduce((sum, [name, value]) => (test(name) ? sum + value : sum), 0)

/** The cumulative figures a point is the difference of. */
function totals(reading: Reading) {
  const c = (name: string) => reading.counters[name] ?? 0
  return {
    extract: reading.modelled ? c('memorize.extractions') : 0,
    evolve: c('group.llm-call'),
    summary: c('summary.llm'),
    topic: c('topic.judged') + c('topic.judged-new'),
    profile: reading.modelled ? c('knowledge.profiles-consolidated') : 0,
    memorised: c('memorize.dialogues-stored'),
    rejected: c('memorize.rejected'),
    skipped: sumOf(reading.counters, (name) => name.startsWith('memorize.skipped.')),
  }
}

type Totals = ReturnType<typeof totals>

export class MetricsSeries {
  private readonly points: SeriesPoint[] = []
  private last?: { at: number; totals: Totals }

  constructor(private readonly options: SeriesOptions) {}

  private now() {
    return this.options.now?.() ?? new Date()
  }

  /** The point from the last sample up to now; the first call only sets where the series starts. */
  private async measure(): Promise<{ point?: SeriesPoint; at: number; totals: Totals }> {
    const now = this.now()
    const since = new Date(this.last?.at ?? now.getTime())
    const reading = await this.options.read(since, now)
    const current = totals(reading)
    if (!this.last) return { at: now.getTime(), totals: current }
    const before = this.last.totals
    const delta = (key: keyof Totals) => Math.max(0, current[key] - before[key])
    const { contexts, replies } = reading
    const point: SeriesPoint = {
      at: now.getTime(),
      span: now.getTime() - this.last.at,
      contexts: contexts.contexts,
      buildMs: contexts.averageBuildMs,
      tokens: contexts.averageTokens,
      tokenSavings: contexts.tokenSavings,
      calls: {
        extract: delta('extract'),
        evolve: delta('evolve'),
        summary: delta('summary'),
        topic: delta('topic'),
        profile: delta('profile'),
        reply: Math.max(0, replies.replies - replies.offline) + replies.toolCalls,
      },
      memorised: delta('memorised'),
      rejected: delta('rejected'),
      skipped: delta('skipped'),
    }
    return { point, at: now.getTime(), totals: current }
  }

  /** Takes a sample: a point for the interval since the last one (none on the first call). */
  async sample(): Promise<SeriesPoint | undefined> {
    const { point, at, totals } = await this.measure()
    this.last = { at, totals }
    if (!point) return undefined
    this.points.push(point)
    if (this.points.length > this.options.capacity) this.points.splice(0, this.points.length - this.options.capacity)
    return point
  }

  /** The points kept, and the interval under way as a last point (not kept). */
  async read(): Promise<SeriesPoint[]> {
    if (!this.last) return [...this.points]
    const { point } = await this.measure()
    return point && point.span > 0 ? [...this.points, point] : [...this.points]
  }
}
