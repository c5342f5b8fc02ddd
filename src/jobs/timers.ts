import type { Context } from 'koishi'

/** What the timers start; each job runs in the background and never throws. */
export interface TimedJobs {
  /** Index work waiting in the outbox. */
  drainOutbox(): void
  /** Topics idle for long are closed (and summarised). */
  closeIdleTopics(): void
  /** The scheduled pass over active topics' summaries. */
  summarizeTopics(): void
  /** Groups with new messages evolve their memory. */
  evolveGroups(): void
  /** Dialogues of users who have gone quiet end. */
  endQuietDialogues(): void
  /** Each index is compared with the database and what differs is queued. */
  reconcileIndexes(): void
  /** User profiles with enough new knowledge, or a day old, are rewritten. */
  consolidateProfiles(): void
  /** Group memory proposals that waited past their expiry are closed. */
  expireReviews(): void
}

export interface TimerSettings {
  retryIntervalSeconds: number
  closeIntervalMinutes: number
  /** 0: no scheduled summary pass. */
  summaryIntervalMinutes: number
  /** The local hour groups evolve at; undefined: no daily evolution. */
  evolutionHour?: number
  /** The shortest quiet time that ends a dialogue (0: none ends by silence). */
  quietSeconds: number
}

/** How often the indexes are compared with the database (ids on both sides): with several instances, how soon one learns what another wrote. */
const RECONCILE_MS = 10 * 60_000

/** How often user profiles that are due are consolidated. */
const CONSOLIDATE_MS = 60 * 60_000

/** Longest delay a Node timer takes; a longer one fires at once (after a 1 ms delay). */
const MAX_DELAY_MS = 2 ** 31 - 1

/** Starts the plugin's timers on `ctx`, so they stop with it. */
export function startTimers(ctx: Context, settings: TimerSettings, jobs: TimedJobs): void {
  const every = (ms: number, job: () => void) => ctx.setInterval(job, Math.min(ms, MAX_DELAY_MS))
  jobs.drainOutbox()
  jobs.expireReviews()
  every(settings.retryIntervalSeconds * 1000, () => jobs.drainOutbox())
  every(settings.closeIntervalMinutes * 60_000, () => jobs.closeIdleTopics())
  every(RECONCILE_MS, () => jobs.reconcileIndexes())
  // due profiles (past the threshold, or a day old) are found hourly, so none waits more than an hour past its due
  every(CONSOLIDATE_MS, () => jobs.consolidateProfiles())
  // review proposals expire within the hour after their expiry (a decision refuses an overdue one at once)
  every(CONSOLIDATE_MS, () => jobs.expireReviews())
  // checked a few times per quiet period, at most every 30 s
  if (settings.quietSeconds > 0) every(Math.min(30_000, Math.max(1000, settings.quietSeconds * 250)), () => jobs.endQuietDialogues())
  if (settings.summaryIntervalMinutes > 0) every(settings.summaryIntervalMinutes * 60_000, () => jobs.summarizeTopics())
  const { evolutionHour } = settings
  if (evolutionHour === undefined) return
  const daily = () => {
    ctx.setTimeout(
      () => {
        daily()
        jobs.evolveGroups()
      },
      msUntilHour(new Date(), evolutionHour),
    )
  }
  daily()
}

/** Milliseconds from `now` to the next `hour`:00 local time (tomorrow's when it has passed). */
export function msUntilHour(now: Date, hour: number): number {
  const next = new Date(now)
  next.setHours(hour, 0, 0, 0)
  if (next <= now) next.setDate(next.getDate() + 1)
  return next.getTime() - now.getTime()
}
