import { describe, expect, it } from 'vitest'
import type { FactRow } from '../../src/facts'
import { factVersions } from '../../src/facts'
import { MemoryFacts } from '../fakes/facts'

const t = new Date(Date.UTC(2026, 2, 1))

function fact(id: string, parentId = '', supersededBy = ''): FactRow {
  return {
    id,
    platform: 'qq',
    guildId: 'g1',
    channelId: 'c1',
    userId: 'alice',
    content: id,
    reason: '',
    version: 1,
    parentId,
    sourceIds: [],
    createdAt: t,
    updatedAt: t,
    validFrom: t,
    validTo: supersededBy ? t : null,
    supersededBy,
  }
}

async function store(...rows: FactRow[]) {
  const facts = new MemoryFacts()
  for (const row of rows) await facts.insert(row)
  return facts
}

const ids = (rows: FactRow[]) => rows.map((row) => row.id)

describe('factVersions: a fact and the versions edits left behind it', () => {
  it('follows each parent the next version closed, newest first', async () => {
    const facts = await store(fact('v1', '', 'v2'), fact('v2', 'v1', 'v3'), fact('v3', 'v2'))
    expect(ids(await factVersions(facts, 'v3'))).toEqual(['v3', 'v2', 'v1'])
    expect(ids(await factVersions(facts, 'v2'))).toEqual(['v2', 'v1'])
  })

  it('stops at a parent the next version did not close, and is empty for an unknown id', async () => {
    const facts = await store(fact('v1', '', 'other'), fact('v2', 'v1'))
    expect(ids(await factVersions(facts, 'v2'))).toEqual(['v2'])
    expect(await factVersions(facts, 'nothing')).toEqual([])
  })

  it('follows a loop once and a long chain at most 100 versions', async () => {
    const loop = await store(fact('a', 'b', 'b'), fact('b', 'a', 'a'))
    expect(ids(await factVersions(loop, 'a'))).toEqual(['a', 'b'])
    const chain = Array.from({ length: 150 }, (_, i) => fact(`v${i}`, i ? `v${i - 1}` : '', i < 149 ? `v${i + 1}` : ''))
    const versions = await factVersions(await store(...chain), 'v149')
    expect(versions).toHaveLength(100)
    expect(versions[99].id).toBe('v50')
  })
})
