import { describe, expect, it, vi } from 'vitest'
import type { Context } from 'koishi'
import { startTimers } from '../../src/jobs/timers'

describe('startTimers', () => {
  it('never asks Node for a delay past its limit (a longer one would fire at once, over and over)', () => {
    const delays: number[] = []
    const ctx = {
      setInterval: (_: () => void, ms: number) => (delays.push(ms), () => {}),
      setTimeout: () => () => {},
    } as unknown as Context
    const jobs = {
      drainOutbox: vi.fn(),
      closeIdleTopics: vi.fn(),
      summarizeTopics: vi.fn(),
      evolveGroups: vi.fn(),
      endQuietDialogues: vi.fn(),
      reconcileIndexes: vi.fn(),
      consolidateProfiles: vi.fn(),
      expireReviews: vi.fn(),
    }
    startTimers(ctx, { retryIntervalSeconds: 30, closeIntervalMinutes: 1_000_000, summaryIntervalMinutes: 60, quietSeconds: 600 }, jobs)
    expect(delays).toHaveLength(7)
    expect(Math.max(...delays)).toBeLessThanOrEqual(2 ** 31 - 1)
    expect(delays[1]).toBe(2 ** 31 - 1)
    expect(jobs.drainOutbox).toHaveBeenCalledTimes(1)
    // overdue review proposals are closed at start too, then hourly
    expect(jobs.expireReviews).toHaveBeenCalledTimes(1)
    expect(delays).toContain(60 * 60_000)
  })
})
