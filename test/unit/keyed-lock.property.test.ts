import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { KeyedLock } from '../../src/core/keyed-lock'

const job = fc.record({ key: fc.constantFrom('a', 'b', 'c'), steps: fc.integer({ min: 0, max: 3 }), fails: fc.boolean() })

describe('KeyedLock (property)', () => {
  it('under any interleaving runs the jobs of one key one at a time, in the order they were asked for, failures included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(job, { maxLength: 10 }), async (s, jobs) => {
        const lock = new KeyedLock()
        const running = new Map<string, number>()
        const asked = new Map<string, number[]>()
        const started = new Map<string, number[]>()
        let overlap = false
        const push = (map: Map<string, number[]>, key: string, i: number) => map.set(key, [...(map.get(key) ?? []), i])

        // each job is asked for at a moment the scheduler picks, and yields to it `steps` times while it runs
        const results = jobs.map((spec, i) =>
          s.schedule(Promise.resolve(), `ask ${i}`).then(() => {
            push(asked, spec.key, i)
            return lock.run(spec.key, async () => {
              push(started, spec.key, i)
              running.set(spec.key, (running.get(spec.key) ?? 0) + 1)
              if (running.get(spec.key)! > 1) overlap = true
              for (let step = 0; step < spec.steps; step++) await s.schedule(Promise.resolve(), `job ${i} step ${step}`)
              running.set(spec.key, running.get(spec.key)! - 1)
              if (spec.fails) throw new Error(`job ${i} failed`)
              return i
            })
          }),
        )
        await s.waitFor(Promise.allSettled(results))
        const settled = await Promise.allSettled(results)

        expect(overlap).toBe(false)
        expect(started).toEqual(asked)
        settled.forEach((result, i) => expect(result.status).toBe(jobs[i].fails ? 'rejected' : 'fulfilled'))
        await new Promise((resolve) => setImmediate(resolve))
        for (const key of ['a', 'b', 'c']) expect(lock.held(key)).toBe(false)
      }),
      { numRuns: 100 },
    )
  })
})
