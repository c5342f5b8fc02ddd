import { describe, expect, it } from 'vitest'
import type { FinishedDialogue } from '../../src/capture/dialogue-tracker'
import { MemorizeBacklog } from '../../src/capture/memorize-backlog'
import { Counters } from '../../src/core/observability'
import type { MemorizeOutcome } from '../../src/facts'
import { KeyedQueue } from '../../src/core/keyed-queue'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const owner = { platform: 'qq', userId: 'alice', guildId: '', channelId: 'private:alice' }

function dialogue(text: string, userId = 'alice', at = 1): FinishedDialogue {
  return {
    owner: { ...owner, userId },
    turns: [{ role: 'user', name: userId, content: text, userId }],
    sourceIds: [`m-${text}`],
    until: new Date(at),
  }
}

function setup(answer: (d: FinishedDialogue) => Promise<MemorizeOutcome>, limit = 100) {
  const counters = new Counters()
  const queue = new KeyedQueue({ limit, concurrency: 1, counters, onError: () => {} })
  const timers: { ms: number; run: () => void }[] = []
  const memorised: string[] = []
  const done: string[] = []
  const backlog = new MemorizeBacklog({
    queue,
    memorize: async (d) => {
      const outcome = await answer(d)
      if (outcome.status === 'stored') memorised.push(d.turns.map((t) => t.content).join('|'))
      return outcome
    },
    done: async (d) => void done.push(d.turns.map((t) => t.content).join('|')),
    before: async () => {},
    schedule: (run, ms) => {
      const timer = { ms, run }
      timers.push(timer)
      return () => timers.splice(timers.indexOf(timer), 1)
    },
    retryMs: 1000,
    maxAttempts: 3,
    counters,
    logger: quiet,
  })
  return { backlog, queue, timers, memorised, done, counters }
}

const stored: MemorizeOutcome = { status: 'stored', facts: [] }
const failed: MemorizeOutcome = { status: 'failed', stage: 'extract', error: 'HTTP 429' }

describe('MemorizeBacklog', () => {
  it('retries a failed dialogue with a doubling wait and holds its channel back meanwhile', async () => {
    let down = true
    const t = setup(async () => (down ? failed : stored))
    t.backlog.add('c', dialogue('a', 'alice', 1))
    t.backlog.add('c', dialogue('b', 'alice', 2))
    await t.queue.idle()
    expect(t.done).toEqual([])
    expect(t.timers.map((timer) => timer.ms)).toEqual([1000])
    t.timers.shift()!.run()
    await t.queue.idle()
    expect(t.timers.map((timer) => timer.ms)).toEqual([2000])
    down = false
    t.timers.shift()!.run()
    await t.queue.idle()
    // in order: the watermark never passes a dialogue not memorised
    expect(t.done).toEqual(['a', 'b'])
    expect(t.memorised).toEqual(['a', 'b'])
    expect(t.backlog.size).toBe(0)
    expect(t.counters.get('memorize.retry')).toBe(2)
  })

  it('treats a thrown error as a failure', async () => {
    let calls = 0
    const t = setup(async () => {
      if (calls++ === 0) throw new Error('database locked')
      return stored
    })
    t.backlog.add('c', dialogue('a'))
    await t.queue.idle()
    expect(t.done).toEqual([])
    t.timers.shift()!.run()
    await t.queue.idle()
    expect(t.done).toEqual(['a'])
  })

  it('gives a dialogue up after the last attempt and moves on', async () => {
    const t = setup(async (d) => (d.turns[0].content === 'bad' ? failed : stored))
    t.backlog.add('c', dialogue('bad'))
    t.backlog.add('c', dialogue('good'))
    await t.queue.idle()
    for (let i = 0; i < 2; i++) {
      t.timers.shift()!.run()
      await t.queue.idle()
    }
    expect(t.timers).toHaveLength(0)
    expect(t.done).toEqual(['bad', 'good'])
    expect(t.memorised).toEqual(['good'])
    expect(t.counters.get('memorize.abandoned')).toBe(1)
  })

  it('keeps what a full queue turns away and memorises it when a job ends', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const t = setup(async () => {
      await gate
      return stored
    }, 1)
    for (let i = 0; i < 20; i++) t.backlog.add(`c${i}`, dialogue(`d${i}`))
    expect(t.counters.get('memorize.waiting')).toBeGreaterThan(0)
    release()
    await t.queue.idle()
    await new Promise((resolve) => setTimeout(resolve, 0))
    await t.queue.idle()
    expect(t.memorised.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `d${i}`).sort())
  })

  it("drops a forgotten user's lines from what waits", async () => {
    let down = true
    const seen: string[][] = []
    const t = setup(async (d) => {
      seen.push(d.turns.map((turn) => `${turn.userId}:${turn.content}`))
      return down ? failed : stored
    })
    const both: FinishedDialogue = {
      owner: { ...owner, channelId: 'g1', guildId: 'g' },
      turns: [
        { role: 'user', name: 'alice', content: 'x', userId: 'alice' },
        { role: 'user', name: 'bob', content: 'y', userId: 'bob' },
      ],
      sourceIds: ['1', '2'],
      until: new Date(5),
    }
    t.backlog.add('g1', both)
    t.backlog.add('c', dialogue('only alice'))
    await t.queue.idle()
    t.backlog.dropUser('qq', 'alice')
    down = false
    for (const timer of t.timers.splice(0)) timer.run()
    await t.queue.idle()
    expect(seen.at(-1)).toEqual(['bob:y'])
    expect(t.backlog.size).toBe(0)
  })
})

describe('MemorizeBacklog under recalls and edits', () => {
  it('takes a recalled turn out of a waiting dialogue, drops a dialogue left with no user turn, and leaves the one being memorised', async () => {
    let release!: () => void
    const first = new Promise<void>((resolve) => (release = resolve))
    const t = setup(async (d) => {
      if (d.turns[0].content === 'a') await first
      return stored
    })
    t.backlog.add('c', dialogue('a', 'alice', 1))
    t.backlog.add('c', {
      ...dialogue('b', 'alice', 2),
      turns: [...dialogue('b').turns, { role: 'assistant', name: 'bot', content: '思考中' }],
      sourceIds: ['m-b', 'think'],
    })
    t.backlog.add('c', dialogue('gone', 'alice', 3))
    await new Promise((resolve) => setTimeout(resolve, 0))
    // 'a' is being memorised: a recall leaves it to `settled`
    expect(t.backlog.withdraw('c', 'm-a')).toBe(false)
    expect(t.backlog.withdraw('c', 'think')).toBe(true)
    expect(t.backlog.withdraw('c', 'm-gone')).toBe(true)
    expect(t.backlog.revise('c', 'm-b', 'b2')).toBe(true)
    let settled = false
    const waiting = t.backlog.settled('c').then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(settled).toBe(false)
    release()
    await waiting
    await t.queue.idle()
    expect(t.memorised).toEqual(['a', 'b2'])
  })
})
