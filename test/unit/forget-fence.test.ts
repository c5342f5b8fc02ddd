import { describe, expect, it } from 'vitest'
import { KeyedLock } from '../../src/core/keyed-lock'
import { Counters } from '../../src/core/observability'
import type { FactRow, FactsPart } from '../../src/facts'
import type { KnowledgePart } from '../../src/knowledge'
import { createMemorizer } from '../../src/memorize/memorizer'
import type { ForgetMarks, ForgetRow } from '../../src/store/forget-fence'
import { ForgetFence } from '../../src/store/forget-fence'
import { MemoryFacts } from '../fakes/facts'
import { quiet } from '../fakes/logger'
import { memorizeDeps } from '../fakes/memorize-deps'

/** The marks table both instances read: one database. */
class SharedMarks implements ForgetMarks {
  rows = new Map<string, ForgetRow>()
  async write(row: ForgetRow) {
    this.rows.set(row.id, { ...row })
  }
  async read(ids: string[]) {
    return ids.flatMap((id) => (this.rows.has(id) ? [this.rows.get(id)!] : []))
  }
}

const now = new Date('2026-11-28T10:00:00Z')
const said = new Date('2026-11-28T09:59:00Z')
const dave = { platform: 'qq', userId: 'dave' }
const dialogue = {
  owner: { ...dave, guildId: '', channelId: 'private:dave' },
  turns: [{ role: 'user' as const, name: 'Dave', content: '我养了一只叫年糕的猫', time: said }],
  sourceIds: ['qq:private:dave:m1'],
}

/** Instance B's memorizer over `facts`, its fence reading `marks`. */
function instanceB(facts: MemoryFacts, marks: ForgetMarks) {
  const counters = new Counters()
  const deps = memorizeDeps(facts, counters, now)
  const part = { store: facts, index: deps.factIndex, judge: deps.judge, lock: new KeyedLock() } as unknown as FactsPart
  const memorize = createMemorizer(
    {
      facts: part,
      knowledge: {} as KnowledgePart,
      embedder: deps.embedder,
      fence: new ForgetFence(marks),
      counters,
      logger: quiet,
      newId: deps.newId,
      now: () => now,
    },
    { knowledge: false, dedupeThreshold: 0.85, commandPrefixes: [] },
  )
  return { memorize, counters }
}

describe('the forget fence, shared through the database', () => {
  it('stores the fact when nobody forgot the speaker (the control)', async () => {
    const facts = new MemoryFacts()
    await instanceB(facts, new SharedMarks()).memorize(dialogue)
    expect((await facts.ofUser('qq', 'dave')).map((row) => row.content).join()).toContain('年糕')
  })

  it('stores nothing when another instance forgot the speaker before the dialogue was memorised', async () => {
    const marks = new SharedMarks()
    await new ForgetFence(marks).mark(dave, now)
    const facts = new MemoryFacts()
    await instanceB(facts, marks).memorize(dialogue)
    expect(await facts.ofUser('qq', 'dave')).toEqual([])
  })

  it('takes back the fact when the other instance forgot the speaker while it was being written', async () => {
    const marks = new SharedMarks()
    // instance A's forget lands between B's check and B's write: A read the tables before this row existed
    class RacingFacts extends MemoryFacts {
      async insert(row: FactRow) {
        await new ForgetFence(marks).mark(dave, now)
        await super.insert(row)
      }
    }
    const facts = new RacingFacts()
    const { memorize, counters } = instanceB(facts, marks)
    await memorize(dialogue)
    expect(await facts.ofUser('qq', 'dave')).toEqual([])
    expect(counters.snapshot()['memorize.fenced-after']).toBe(1)
  })

  it('keeps what the speaker said after the forget', async () => {
    const marks = new SharedMarks()
    await new ForgetFence(marks).mark(dave, new Date('2026-11-28T09:00:00Z'))
    const facts = new MemoryFacts()
    await instanceB(facts, marks).memorize(dialogue)
    expect(await facts.ofUser('qq', 'dave')).toHaveLength(1)
  })
})
