import { describe, expect, it } from 'vitest'
import { questionAim, recallKnowledge } from '../../src/knowledge/recall'
import type { EntityRow, ProfileRow, RelationRow } from '../../src/knowledge/types'

const scope = { platform: 'qq', guildId: 'g1', userId: '' }

function entity(id: string, name: string, type: EntityRow['type'] = 'LOCATION'): EntityRow {
  return {
    ...scope,
    id,
    name,
    key: name.toLowerCase(),
    type,
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

const alice = entity('e1', 'alice', 'PERSON')
const chengdu = entity('e2', '成都')
const shanghai = entity('e3', '上海')
const mimi = entity('e4', '咪咪', 'OTHER')
const tencent = entity('e5', '腾讯', 'ORGANIZATION')
const rows = [alice, chengdu, shanghai, mimi, tencent]
const store = {
  relationsTouching: async (_: unknown, ids: string[]) =>
    [
      relation('r1', 'e1', '住在', 'e2', true),
      relation('r2', 'e1', '住在', 'e3'),
      relation('r3', 'e1', '猫', 'e4'),
      relation('r4', 'e1', '工作于', 'e5'),
    ].filter((row) => ids.includes(row.subjectId) || ids.includes(row.objectId)),
  entities: async (ids: string[]) => rows.filter((row) => ids.includes(row.id)),
  entitiesOf: async () => rows,
}
const profile = {
  userName: 'alice',
  userId: 'u-alice',
  preferences: [
    { key: '喜欢', value: '火锅', confidence: 0.8, sourceIds: ['p1'], validFrom: 0, validTo: null },
    { key: '喜欢', value: '爬山', confidence: 0.8, sourceIds: ['p2'], validFrom: 0, validTo: null },
    { key: '喜欢', value: '寿司', confidence: 0.8, sourceIds: ['p3'], validFrom: 0, validTo: 5 },
  ],
} as unknown as ProfileRow

describe('recallKnowledge', () => {
  it('keeps the facts in order, adds the current relations and the preferences the query shares terms with, and leaves out closed ones', async () => {
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
    // the facts keep their order; the relation that answers "where" about the person named comes with them
    expect(found.filter((item) => item.kind === 'fact').map((item) => item.text)).toEqual(['alice住在上海。', 'alice是老师。'])
    expect(found.slice(0, 3).map((item) => item.text)).toContain('alice 住在 上海')
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

  const facts = [
    'alice今天去公园散步了。',
    'alice觉得天气不错。',
    'alice在学吉他。',
    'alice周末看了电影。',
    'alice喜欢猫。',
    'alice有点困。',
  ].map((text, i) => ({ text, sourceIds: [`f${i}`] }))

  it('answers "where do I live" with the asker’s current place among the top 5, first, the facts after it', async () => {
    const found = await recallKnowledge(store, scope, '我住在哪里？', { facts, entities: [], profile }, 5)
    const texts = found.map((item) => item.text)
    expect(texts).toContain('alice 住在 上海')
    expect(texts).not.toContain('alice 住在 成都')
    expect(texts.indexOf('alice 住在 上海')).toBeLessThan(
      texts.indexOf('alice 工作于 腾讯') === -1 ? 5 : texts.indexOf('alice 工作于 腾讯'),
    )
    // it answers the question and shares its words: first
    expect(found[0]).toMatchObject({ kind: 'relation', text: 'alice 住在 上海', sourceIds: ['src-r2'] })
    expect(found.filter((item) => item.kind === 'fact').length).toBeGreaterThanOrEqual(3)
  })

  it('answers "what is my cat called" and "what do I like" from the relations and the profile', async () => {
    const named = await recallKnowledge(store, scope, '我的猫叫什么名字', { facts, entities: [], profile }, 5)
    expect(named.map((item) => item.text)).toContain('alice 猫 咪咪')
    const likes = await recallKnowledge(store, scope, 'What food do I like?', { facts, entities: [], profile }, 5)
    expect(likes.filter((item) => item.kind === 'preference').length).toBeGreaterThanOrEqual(1)
  })

  it('adds nothing aimed to a question about someone else or to small talk', async () => {
    const other = await recallKnowledge(store, scope, '小明住在哪里', { facts, entities: [], profile }, 5)
    expect(other.map((item) => item.kind)).toEqual(['fact', 'fact', 'fact', 'fact', 'fact'])
    const talk = await recallKnowledge(store, scope, '今天天气不错', { facts, entities: [], profile }, 5)
    expect(talk.every((item) => item.kind === 'fact')).toBe(true)
  })

  it('reads the aim of a question in both languages', () => {
    expect(questionAim('我住在哪里？')).toMatchObject({ types: ['LOCATION', 'ORGANIZATION'], firstPerson: true })
    expect(questionAim('Where do I work?')).toMatchObject({ types: ['LOCATION', 'ORGANIZATION'], firstPerson: true })
    expect(questionAim('Who is my brother?')).toMatchObject({ types: ['PERSON', 'OTHER'], firstPerson: true })
    expect(questionAim('我喜欢吃什么')).toMatchObject({ likes: true, firstPerson: true })
    expect(questionAim('今天天气不错')).toEqual({ types: [], likes: false, firstPerson: false })
  })

  it('answers "where did <a named person> go" from that person’s relations', async () => {
    const found = await recallKnowledge(
      store,
      scope,
      'Where does alice work?',
      { facts, entities: [{ entity: alice, score: 1, named: true }] },
      5,
    )
    expect(found.slice(0, 2).map((item) => item.text)).toContain('alice 工作于 腾讯')
  })
})
