import { describe, expect, it } from 'vitest'
import { recallKnowledge } from '../../src/knowledge/recall'
import type { EntityRow, ProfileRow, RelationRow } from '../../src/knowledge/types'

const scope = { platform: 'qq', guildId: 'g1', userId: '' }

function entity(id: string, name: string): EntityRow {
  return {
    ...scope,
    id,
    name,
    key: name,
    type: 'LOCATION',
    aliases: [],
    description: '',
    confidence: 0.8,
    mentions: 1,
    firstSeen: new Date(0),
    lastSeen: new Date(0),
    sourceIds: [`src-${id}`],
  }
}

function relation(id: string, subjectId: string, predicate: string, objectId: string, closed = false): RelationRow {
  return {
    ...scope,
    id,
    subjectId,
    predicate,
    objectId,
    confidence: 0.8,
    sourceIds: [`src-${id}`],
    validFrom: new Date(0),
    validTo: closed ? new Date(1) : null,
    createdAt: new Date(0),
  }
}

const alice = entity('e1', 'alice')
const chengdu = entity('e2', '成都')
const shanghai = entity('e3', '上海')
const store = {
  relationsTouching: async () => [relation('r1', 'e1', '住在', 'e2', true), relation('r2', 'e1', '住在', 'e3')],
  entities: async (ids: string[]) => [alice, chengdu, shanghai].filter((row) => ids.includes(row.id)),
}
const profile = {
  userName: 'alice',
  preferences: [
    { key: '喜欢', value: '火锅', confidence: 0.8, sourceIds: ['p1'], validFrom: 0, validTo: null },
    { key: '喜欢', value: '爬山', confidence: 0.8, sourceIds: ['p2'], validFrom: 0, validTo: null },
    { key: '喜欢', value: '寿司', confidence: 0.8, sourceIds: ['p3'], validFrom: 0, validTo: 5 },
  ],
} as unknown as ProfileRow

describe('recallKnowledge', () => {
  it('keeps the facts ahead, adds the current relations and the preferences the query shares terms with, and leaves out closed ones', async () => {
    const facts = [
      { text: 'alice住在上海。', sourceIds: ['f1'] },
      { text: 'alice是老师。', sourceIds: ['f2'] },
    ]
    const found = await recallKnowledge(
      store,
      scope,
      'alice住在哪里，喜欢吃火锅吗',
      { facts, entities: [{ entity: alice, score: 1, named: true }], profile },
      10,
    )
    expect(found.slice(0, 2).map((item) => item.text)).toEqual(['alice住在上海。', 'alice是老师。'])
    const texts = found.map((item) => item.text)
    expect(texts).toContain('alice 住在 上海')
    expect(texts).not.toContain('alice 住在 成都')
    expect(texts).toContain('alice 喜欢 火锅')
    expect(texts.some((text) => text.includes('寿司'))).toBe(false)
    // a preference sharing only the verb comes after the one the query names
    expect(texts.indexOf('alice 喜欢 火锅')).toBeLessThan(texts.indexOf('alice 喜欢 爬山'))
    expect(found.find((item) => item.kind === 'relation')?.sourceIds).toEqual(['src-r2'])
  })

  it('fills in from the knowledge where there are no facts, and leaves out entities the query does not name', async () => {
    const found = await recallKnowledge(
      store,
      scope,
      '火锅',
      { facts: [], entities: [{ entity: shanghai, score: 0.02, named: false }], profile },
      5,
    )
    expect(found.map((item) => [item.kind, item.text])).toEqual([['preference', 'alice 喜欢 火锅']])
  })
})
