import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import { KeyedLock } from '../../src/core/keyed-lock'
import type { FactRow } from '../../src/facts'
import { reviseFact } from '../../src/facts'
import { MemoryFacts } from '../fakes/facts'

const t = (day: number) => new Date(Date.UTC(2026, 2, day))

function fact(patch: Partial<FactRow>): FactRow {
  return {
    id: 'f1',
    platform: 'qq',
    guildId: 'g1',
    channelId: 'c1',
    userId: 'alice',
    content: '住在成都',
    reason: '',
    version: 2,
    parentId: '',
    sourceIds: ['m1'],
    createdAt: t(1),
    updatedAt: t(2),
    validFrom: t(1),
    validTo: null,
    supersededBy: '',
    ...patch,
  }
}

function setup() {
  const facts = new MemoryFacts()
  const indexed: FactRow[] = []
  let n = 0
  const deps = {
    facts,
    factIndex: { put: async (rows: FactRow[]) => (indexed.push(...rows), true) },
    counters: new Counters(),
    newId: () => `new${++n}`,
    now: () => t(10),
    lock: new KeyedLock(),
  }
  return { facts, indexed, deps }
}

describe('reviseFact: an edit by hand is a new version, never an overwrite', () => {
  it('stores the statement as a new version and closes the old one, which keeps its words', async () => {
    const { facts, indexed, deps } = setup()
    await facts.insert(fact({}))
    const result = await reviseFact(deps, { platform: 'qq', userId: 'alice' }, 'f1', '  住在重庆 ', 'console:admin')
    expect(result.status).toBe('revised')
    const [old, added] = [facts.rows.get('f1')!, facts.rows.get('new1')!]
    expect(old).toMatchObject({ content: '住在成都', validTo: t(10), supersededBy: 'new1' })
    expect(added).toMatchObject({
      content: '住在重庆',
      version: 3,
      parentId: 'f1',
      guildId: 'g1',
      channelId: 'c1',
      sourceIds: ['m1'],
      validFrom: t(1),
      validTo: null,
      reason: 'edited by console:admin',
    })
    expect(indexed.map((row) => row.id)).toEqual(['new1'])
    expect(deps.counters.get('memorize.revised')).toBe(1)
  })

  it("refuses another user's fact, a closed fact and an empty statement; the same words change nothing", async () => {
    const { facts, deps } = setup()
    await facts.insert(fact({}))
    await facts.insert(fact({ id: 'f2', validTo: t(3), supersededBy: 'f1' }))
    const owner = { platform: 'qq', userId: 'alice' }
    expect((await reviseFact(deps, { platform: 'qq', userId: 'bob' }, 'f1', 'x', '')).status).toBe('not-found')
    expect((await reviseFact(deps, { platform: 'discord', userId: 'alice' }, 'f1', 'x', '')).status).toBe('not-found')
    expect((await reviseFact(deps, owner, 'nope', 'x', '')).status).toBe('not-found')
    expect((await reviseFact(deps, owner, 'f2', 'x', '')).status).toBe('closed')
    expect((await reviseFact(deps, owner, 'f1', ' \u0000 ', '')).status).toBe('empty')
    expect((await reviseFact(deps, owner, 'f1', '住在成都', '')).status).toBe('unchanged')
    expect(facts.rows.size).toBe(2)
  })

  it('two edits of one fact at once: one wins, the other finds it closed', async () => {
    const { facts, deps } = setup()
    await facts.insert(fact({}))
    const owner = { platform: 'qq', userId: 'alice' }
    const results = await Promise.all([reviseFact(deps, owner, 'f1', 'A', ''), reviseFact(deps, owner, 'f1', 'B', '')])
    expect(results.map((result) => result.status).sort()).toEqual(['closed', 'revised'])
    expect([...facts.rows.values()].filter((row) => !row.validTo)).toHaveLength(1)
  })
})
