import { describe, expect, it } from 'vitest'
import type { FactRow } from '../../src/facts/table'
import type { GroupChangeRow, GroupMemoryRow } from '../../src/group/types'
import type { EntityRow, ProfileRow, RelationRow } from '../../src/knowledge/types'
import { profileId } from '../../src/knowledge/types'
import type { TopicSummaryRow } from '../../src/topic-summaries/types'
import type { TopicRow } from '../../src/topics/table'
import { exportMemory, importMemory, mem0FactId, RECORD_KINDS } from '../../src/transfer'
import { memoryRow } from '../fakes/group-store'
import { row } from '../fakes/message-rows'
import { summaryRow } from '../fakes/summaries'
import { topicRow } from '../fakes/topics'
import { transferInstance } from '../fakes/transfer'

type Instance = ReturnType<typeof transferInstance>

const day = (n: number) => new Date(Date.UTC(2025, 0, n, 8))

/** The message ids the rows below name as sources, with whose and where each message is. */
const chat = new Map<string, { userId: string; guildId: string; channelId: string; messageId: string }>()

/** The id of a message `userId` said in `guildId` (their private chat when `''`). */
function said(userId: string, guildId: string, messageId: string): string {
  const channelId = guildId || `private:${userId}`
  const id = `qq:${channelId}:${messageId}`
  chat.set(id, { userId, guildId, channelId, messageId })
  return id
}

/** An instance's chat log: every message the rows name, as captured (an import keeps only sources it finds). */
function chatLog({ messages }: Instance) {
  for (const [id, where] of chat) messages.add(row(where.messageId, where.userId, 'said', 0, { ...where, id, platform: 'qq' }))
}

/** An instance whose chat log holds every message the rows name. */
function instance(options: Parameters<typeof transferInstance>[0] = {}): Instance {
  const made = transferInstance(options)
  const byIds = made.messages.byIds.bind(made.messages)
  made.messages.byIds = async (ids) => {
    chatLog(made)
    return byIds(ids)
  }
  return made
}

function fact(id: string, userId: string, guildId: string, content: string, n: number, extra: Partial<FactRow> = {}): FactRow {
  return {
    id,
    platform: 'qq',
    guildId,
    channelId: guildId || `private:${userId}`,
    userId,
    content,
    reason: 'stated',
    version: 1,
    parentId: '',
    sourceIds: [said(userId, guildId, `m${n}`)],
    createdAt: day(n),
    updatedAt: day(n),
    validFrom: day(n),
    validTo: null,
    supersededBy: '',
    ...extra,
  }
}

function change(id: string, memory: GroupMemoryRow, action: GroupChangeRow['action'], n: number, previousId = ''): GroupChangeRow {
  return {
    id,
    memoryId: memory.id,
    previousId,
    platform: memory.platform,
    guildId: memory.guildId,
    action,
    oldStatement: '',
    newStatement: memory.statement,
    reason: 'said so',
    version: memory.version,
    runId: 'run1',
    createdAt: day(n),
  }
}

function profile(userId: string, guildId: string, userName: string): ProfileRow {
  const ref = { platform: 'qq', guildId, userId }
  return {
    id: profileId(ref),
    ...ref,
    userName,
    profileText: `${userName} likes tea`,
    preferences: [
      {
        key: 'likes',
        value: 'tea',
        confidence: 0.8,
        sourceIds: [said(userId, guildId, `p1-${userId}`)],
        validFrom: day(1).getTime(),
        validTo: null,
      },
    ],
    traits: [{ name: 'calm', confidence: 0.6, sourceIds: [said(userId, guildId, `p2-${userId}`)] }],
    pending: 1,
    updatedAt: day(3),
    consolidatedAt: day(2),
  }
}

function entity(id: string, guildId: string, userId: string, name: string, type: EntityRow['type'], n: number): EntityRow {
  return {
    id,
    platform: 'qq',
    guildId,
    userId,
    name,
    key: name.toLowerCase(),
    type,
    aliases: [],
    description: '',
    confidence: 0.7,
    mentions: 2,
    firstSeen: day(n),
    lastSeen: day(n + 1),
    sourceIds: [said(userId || 'alice', guildId, `e${n}`)],
  }
}

const G1 = { platform: 'qq', guildId: 'g1' }
const G2 = { platform: 'qq', guildId: 'g2' }

/** A memory with something of every kind: a fact closed by a newer one, a group memory with two versions, a topic with two summaries… */
async function seed({ ports, groups, topics, summaries, knowledge, embedder }: Instance) {
  for (const row of [
    fact('f1', 'alice', '', 'Alice lives in Chengdu', 1, { validTo: day(4), supersededBy: 'f2' }),
    fact('f2', 'alice', '', 'Alice lives in Shanghai', 4),
    fact('f3', 'alice', 'g1', 'Alice likes hotpot', 5),
    fact('f4', 'bob', 'g1', 'Bob is a teacher', 6, { version: 2 }),
    fact('f5', 'carol', 'g2', 'Carol plays chess', 7),
  ])
    await ports.facts.insert(row)
  const gm1 = memoryRow(G1, 'gm1', 'The group plays games on Fridays', {
    status: 'deprecated',
    supersededBy: 'gm2',
    createdAt: day(1),
  })
  const gm2 = memoryRow(G1, 'gm2', 'The group plays games on Saturdays', { version: 2, parentId: 'gm1', createdAt: day(2) })
  const gm3 = memoryRow(G1, 'gm3', 'The group likes cats', { createdAt: day(3), tags: ['pets'], strength: 0.8 })
  const gm4 = memoryRow(G2, 'gm4', 'The second group studies maths', { createdAt: day(4) })
  for (const row of [gm1, gm2, gm3, gm4]) await groups.putMemory(row)
  for (const row of [
    change('run1.0', gm1, 'create', 1),
    change('run2.0', gm2, 'update', 2, 'gm1'),
    change('run2.1', gm3, 'create', 3),
    change('run3.0', gm4, 'create', 4),
  ])
    await groups.putChange(row)
  const topic: TopicRow = topicRow('t1', { title: 'weekend games', messageCount: 12, keywords: { games: 1 }, createdAt: day(1) })
  await topics.create(topic)
  await topics.create(topicRow('t2', { guildId: 'g2', channelId: 'g2', title: 'maths', createdAt: day(2) }))
  const summary = (fields: Partial<TopicSummaryRow> & { topicId: string }) => summaryRow({ embedder: embedder.id, ...fields })
  await summaries.insert(summary({ topicId: 't1', version: 1, summary: 'They plan games on Friday.' }))
  await summaries.insert(summary({ topicId: 't1', version: 2, summary: 'They moved games to Saturday.' }))
  await summaries.insert(summary({ topicId: 't2', version: 1, guildId: 'g2', channelId: 'g2', summary: 'Maths homework.' }))
  for (const row of [profile('alice', '', 'Alice'), profile('alice', 'g1', 'Alice'), profile('bob', 'g1', 'Bob')])
    await knowledge.upsertProfile(row)
  const alice = entity('e1', 'g1', '', 'Alice', 'PERSON', 1)
  const chengdu = entity('e2', 'g1', '', 'Chengdu', 'LOCATION', 2)
  await knowledge.upsertEntities([alice, chengdu, entity('e3', '', 'alice', 'Shanghai', 'LOCATION', 3)])
  const relation: RelationRow = {
    id: 'r1',
    platform: 'qq',
    guildId: 'g1',
    userId: '',
    subjectId: 'e1',
    predicate: 'lives in',
    objectId: 'e2',
    confidence: 0.8,
    sourceIds: [said('alice', 'g1', 'r1')],
    validFrom: day(1),
    validTo: null,
    createdAt: day(1),
  }
  await knowledge.upsertRelations([relation])
}

const lines = (text: string) => text.split('\n').filter(Boolean)

/**
 * An export with every id replaced by what the row says (a fact by its owner and words, a group memory
 * by its statement and version, …), references too: equal when the same content is there, whatever
 * ids had to change.
 */
function canonical(text: string): string[] {
  const records = lines(text).map((line) => JSON.parse(line) as { kind: string; data: Record<string, unknown> })
  const labels = new Map<string, string>()
  for (const { kind, data: d } of records) {
    if (kind === 'fact') labels.set(`fact:${d.id}`, `fact ${d.platform}/${d.userId}/${d.guildId}: ${d.content}`)
    if (kind === 'group-memory') labels.set(`gm:${d.id}`, `gm ${d.platform}/${d.guildId}: ${d.statement} v${d.version}`)
    if (kind === 'topic') labels.set(`topic:${d.id}`, `topic ${d.platform}/${d.channelId}: ${d.title}`)
    if (kind === 'entity') labels.set(`entity:${d.id}`, `entity ${d.platform}/${d.guildId}/${d.userId}: ${d.key}`)
  }
  const label = (space: string, id: unknown) => (id ? (labels.get(`${space}:${id}`) ?? `dangling ${id}`) : id)
  return records
    .map(({ kind, data }) => {
      const d = { ...data }
      if (kind === 'fact')
        Object.assign(d, { id: label('fact', d.id), parentId: label('fact', d.parentId), supersededBy: label('fact', d.supersededBy) })
      if (kind === 'group-memory')
        Object.assign(d, { id: label('gm', d.id), parentId: label('gm', d.parentId), supersededBy: label('gm', d.supersededBy) })
      if (kind === 'group-change') Object.assign(d, { id: '', memoryId: label('gm', d.memoryId), previousId: label('gm', d.previousId) })
      if (kind === 'topic') d.id = label('topic', d.id)
      if (kind === 'summary') Object.assign(d, { id: '', topicId: label('topic', d.topicId) })
      if (kind === 'entity') d.id = label('entity', d.id)
      if (kind === 'relation') Object.assign(d, { id: '', subjectId: label('entity', d.subjectId), objectId: label('entity', d.objectId) })
      return JSON.stringify({ kind, d })
    })
    .sort()
}

const totals = (counts: Record<string, { imported: number; skipped: number }>) =>
  Object.values(counts).reduce((sum, kind) => ({ imported: sum.imported + kind.imported, skipped: sum.skipped + kind.skipped }), {
    imported: 0,
    skipped: 0,
  })

describe('export', () => {
  it('writes one record a line, every kind, with versions, sources, history and the change log', async () => {
    const a = instance()
    await seed(a)
    const exported = await exportMemory(a.ports, { all: true })
    expect(exported.counts).toEqual({
      fact: 5,
      'group-memory': 4,
      'group-change': 4,
      topic: 2,
      summary: 3,
      profile: 3,
      entity: 3,
      relation: 1,
    })
    expect(exported.total).toBe(25)
    const records = lines(exported.text).map((line) => JSON.parse(line))
    expect(records.map((record) => record.kind)).toEqual(
      RECORD_KINDS.flatMap((kind) => Array(exported.counts[kind]).fill(kind) as string[]),
    )
    expect(records.every((record) => record.version === 1)).toBe(true)
    expect(records[0].data).toMatchObject({
      id: 'f1',
      content: 'Alice lives in Chengdu',
      sourceIds: ['qq:private:alice:m1'],
      validTo: day(4).toISOString(),
      supersededBy: 'f2',
    })
    // exporting again gives the same lines
    expect((await exportMemory(a.ports, { all: true })).text).toBe(exported.text)
  })

  it('exports one user: their facts in every guild, their profiles, the knowledge of their private chats', async () => {
    const a = instance()
    await seed(a)
    const exported = await exportMemory(a.ports, { user: { platform: 'qq', userId: 'alice' } })
    const records = lines(exported.text).map((line) => JSON.parse(line))
    expect(records.filter((r) => r.kind === 'fact').map((r) => r.data.id)).toEqual(['f1', 'f2', 'f3'])
    expect(records.filter((r) => r.kind === 'profile').map((r) => r.data.guildId)).toEqual(['', 'g1'])
    expect(records.filter((r) => r.kind === 'entity').map((r) => r.data.id)).toEqual(['e3'])
    expect(exported.counts).toMatchObject({ 'group-memory': 0, 'group-change': 0, topic: 0, summary: 0, relation: 0 })
  })

  it('exports one group: what was learnt there, its group memories with history, its topics and knowledge', async () => {
    const a = instance()
    await seed(a)
    const exported = await exportMemory(a.ports, { group: G1 })
    const ids = (kind: string) =>
      lines(exported.text)
        .map((line) => JSON.parse(line))
        .filter((r) => r.kind === kind)
        .map((r) => r.data.id)
    expect(ids('fact')).toEqual(['f3', 'f4'])
    expect(ids('group-memory')).toEqual(['gm1', 'gm2', 'gm3'])
    expect(ids('group-change')).toEqual(['run1.0', 'run2.0', 'run2.1'])
    expect(ids('topic')).toEqual(['t1'])
    expect(ids('summary')).toEqual(['t1#1', 't1#2'])
    expect(ids('entity')).toEqual(['e1', 'e2'])
    expect(ids('relation')).toEqual(['r1'])
    expect(exported.counts.profile).toBe(2)
  })
})

describe('import', () => {
  it('round trip: export → a fresh instance imports → export gives the same lines, every row indexed anew', async () => {
    const a = instance()
    await seed(a)
    const exported = await exportMemory(a.ports, { all: true })
    const b = instance()
    const result = await importMemory(b.ports, exported.text)
    expect(result.bad).toEqual([])
    expect(result.renamed).toBe(0)
    expect(result.formats).toEqual({ ours: 25, mem0: 0 })
    for (const kind of RECORD_KINDS) expect(result.counts[kind]).toEqual({ imported: exported.counts[kind], skipped: 0 })
    expect((await exportMemory(b.ports, { all: true })).text).toBe(exported.text)
    // indexed with this instance's embedder, as learnt rows are: every fact (closed ones too), the
    // active heads of group memories, the newest summary of each topic, every entity
    expect([...b.indexes.facts.rows.keys()].sort()).toEqual(['f1', 'f2', 'f3', 'f4', 'f5'])
    expect([...b.indexes.groups.rows.keys()].sort()).toEqual(['gm2', 'gm3', 'gm4'])
    expect([...b.indexes.summaries.rows.keys()].sort()).toEqual(['t1#2', 't2#1'])
    expect([...b.indexes.entities.rows.keys()].sort()).toEqual(['e1', 'e2', 'e3'])
    expect(b.indexes.facts.rows.get('f2')!.vector).toHaveLength(b.embedder.dims)
    expect(b.outbox.rows).toEqual([])
  })

  it('importing the same export again skips every row as a duplicate', async () => {
    const a = instance()
    await seed(a)
    const { text, total } = await exportMemory(a.ports, { all: true })
    const b = instance()
    await importMemory(b.ports, text)
    const again = await importMemory(b.ports, text)
    expect(totals(again.counts)).toEqual({ imported: 0, skipped: total })
    expect(again.bad).toEqual([])
    expect((await exportMemory(b.ports, { all: true })).text).toBe(text)
  })

  it('gives a taken id a fresh one and points versions, the change log, summaries and relations at it', async () => {
    const a = instance()
    await seed(a)
    const { text } = await exportMemory(a.ports, { all: true })
    // another instance whose rows already use some of those ids, for other things
    const b = instance({ ids: 'x' })
    const c = instance()
    for (const instance of [b, c]) {
      await instance.ports.facts.insert(fact('f1', 'dave', '', 'Dave rides a bike', 9))
      await instance.groups.putMemory(memoryRow({ platform: 'tg', guildId: 'g9' }, 'gm2', 'Another group keeps bees'))
      await instance.topics.create(topicRow('t1', { platform: 'tg', channelId: 'c9', title: 'bees' }))
      await instance.knowledge.upsertEntities([{ ...entity('e1', 'g9', '', 'Bees', 'OTHER', 9), platform: 'tg' }])
    }
    const result = await importMemory(b.ports, text)
    expect(result.bad).toEqual([])
    expect(result.renamed).toBe(4)
    expect(totals(result.counts)).toEqual({ imported: 25, skipped: 0 })
    const both = await exportMemory(b.ports, { all: true })
    const before = [...canonical(text), ...canonical((await exportMemory(c.ports, { all: true })).text)].sort()
    expect(canonical(both.text)).toEqual(before)
    // the closed fact points at its successor, which kept its id; the successor of gm1 got a fresh one
    const f1 = [...b.facts.rows.values()].find((row) => row.content === 'Alice lives in Chengdu')!
    expect(f1.id).toMatch(/^x\d+$/)
    expect(f1.supersededBy).toBe('f2')
    const gm2 = [...b.groups.memories.values()].find((row) => row.statement === 'The group plays games on Saturdays')!
    expect(gm2.id).toMatch(/^x\d+$/)
    expect(b.groups.memories.get('gm1')!.supersededBy).toBe(gm2.id)
    expect(b.groups.changes.get('run2.0')!.memoryId).toBe(gm2.id)
    const t1 = [...b.topics.rows.values()].find((row) => row.title === 'weekend games')!
    expect(await b.summaries.versions(t1.id)).toHaveLength(2)
    expect([...b.indexes.summaries.rows.keys()]).toContain(`${t1.id}#2`)
    const alice = [...b.knowledge.entityRows.values()].find((row) => row.name === 'Alice')!
    expect(b.knowledge.relationRows.get('r1')!.subjectId).toBe(alice.id)
    // the rows that were there are untouched
    expect(b.facts.rows.get('f1')!.content).toBe('Dave rides a bike')
    expect(b.groups.memories.get('gm2')!.statement).toBe('Another group keeps bees')
  })

  it('skips the same content in the same place, and imports it for someone else', async () => {
    const b = instance()
    await b.ports.facts.insert(fact('mine', 'alice', 'g1', 'Alice likes hotpot', 20))
    await b.groups.putMemory(memoryRow(G1, 'old', 'The group likes cats'))
    const a = instance()
    await seed(a)
    await a.ports.facts.insert(fact('f6', 'erin', 'g1', 'Alice likes hotpot', 8))
    const result = await importMemory(b.ports, (await exportMemory(a.ports, { all: true })).text)
    expect(result.counts.fact).toEqual({ imported: 5, skipped: 1 })
    expect(result.counts['group-memory']).toEqual({ imported: 3, skipped: 1 })
    expect(b.facts.rows.has('f3')).toBe(false)
    expect(b.facts.rows.get('f6')!.userId).toBe('erin')
    // the change log of the skipped memory now names the one that was there
    expect(b.groups.changes.get('run2.1')!.memoryId).toBe('old')
  })

  it('a corrupt line in the middle: the rest imports, the bad line is reported with its number', async () => {
    const a = instance()
    await seed(a)
    const exported = await exportMemory(a.ports, { all: true })
    const rows = lines(exported.text)
    rows[2] = rows[2].slice(0, 40) // cut off: not JSON
    rows.splice(6, 0, JSON.stringify({ kind: 'fact', version: 1, data: { id: 'x', content: 'no owner' } }))
    rows.splice(9, 0, JSON.stringify({ kind: 'memo', version: 1, data: {} }), '', JSON.stringify({ kind: 'fact', version: 2, data: {} }))
    const b = instance()
    const result = await importMemory(b.ports, rows.join('\n'))
    expect(result.bad.map(({ line, problem }) => ({ line, problem }))).toEqual([
      { line: 3, problem: 'not-json' },
      { line: 7, problem: 'invalid' },
      { line: 10, problem: 'unknown-kind' },
      { line: 12, problem: 'unsupported-version' },
    ])
    expect(result.bad[1].detail).toMatch(/platform/)
    // everything but the cut-off fact (f3)
    expect(result.counts.fact).toEqual({ imported: 4, skipped: 0 })
    expect(totals(result.counts).imported).toBe(exported.total - 1)
    expect(b.facts.rows.has('f3')).toBe(false)
    expect(b.facts.rows.get('f1')!.supersededBy).toBe('f2')
  })

  it('reports a row the database refuses with its line, and stores the others', async () => {
    const a = instance()
    await seed(a)
    const b = instance()
    const put = b.groups.putMemory.bind(b.groups)
    b.groups.putMemory = async (row) => {
      if (row.id === 'gm3') throw new Error('disk full')
      await put(row)
    }
    const exported = await exportMemory(a.ports, { all: true })
    const line = lines(exported.text).findIndex((row) => row.includes('"gm3"') && row.includes('"group-memory"')) + 1
    const result = await importMemory(b.ports, exported.text)
    expect(result.bad).toEqual([{ line, problem: 'store-failed', detail: 'disk full' }])
    expect(result.counts['group-memory']).toEqual({ imported: 3, skipped: 0 })
  })

  it('a summary indexed by another embedder is indexed by this one: its embedder says so', async () => {
    const a = instance()
    await seed(a)
    const text = (await exportMemory(a.ports, { group: G2 })).text.replaceAll(
      `"embedder":"${a.embedder.id}"`,
      '"embedder":"gemini-embedding-001"',
    )
    const b = instance()
    expect((await importMemory(b.ports, text)).counts.summary).toEqual({ imported: 1, skipped: 0 })
    expect(b.summaries.rows.get('t2#1')!.embedder).toBe(b.embedder.id)
    expect(b.indexes.summaries.rows.has('t2#1')).toBe(true)
  })

  it('an empty text or one of blank lines imports nothing and reports nothing', async () => {
    const b = instance()
    for (const text of ['', '\n\n  \n', '\uFEFF']) {
      const result = await importMemory(b.ports, text)
      expect(totals(result.counts)).toEqual({ imported: 0, skipped: 0 })
      expect(result.bad).toEqual([])
    }
  })

  it('text that is not an export: every line is reported', async () => {
    const b = instance()
    const result = await importMemory(b.ports, 'hello\n{"name": "not a memory"}\n[1, 2]')
    expect(result.bad.map((bad) => bad.problem)).toEqual(['not-json', 'unknown-format', 'unknown-format'])
    expect(totals(result.counts).imported).toBe(0)
  })
})

describe('import of a mem0 export', () => {
  const memories = [
    {
      id: '8a0c4d5e-1f2a-4b3c-9d8e-7f6a5b4c3d2e',
      memory: 'Likes green tea',
      user_id: 'alice',
      metadata: { source: 'chat' },
      categories: ['food'],
      hash: 'c1a2',
      created_at: '2024-07-20T01:23:45.678901-07:00',
      updated_at: '2024-08-01T10:00:00-07:00',
    },
    {
      id: '0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e',
      memory: 'Works as a nurse',
      user_id: 'bob',
      metadata: null,
      created_at: '2024-07-21T09:00:00-07:00',
      updated_at: null,
    },
  ]

  it('reads a JSON array, {results: […]} and JSON Lines: facts of each user_id on the given platform, times kept', async () => {
    for (const text of [
      JSON.stringify(memories),
      JSON.stringify({ results: memories, relations: [] }, null, 2),
      memories.map((memory) => JSON.stringify(memory)).join('\n'),
    ]) {
      const b = instance()
      const result = await importMemory(b.ports, text, { platform: 'qq' })
      expect(result.bad).toEqual([])
      expect(result.formats).toEqual({ ours: 0, mem0: 2 })
      expect(result.counts.fact).toEqual({ imported: 2, skipped: 0 })
      const tea = b.facts.rows.get(mem0FactId(memories[0].id))!
      expect(tea).toMatchObject({ platform: 'qq', userId: 'alice', guildId: '', content: 'Likes green tea', validTo: null })
      expect(tea.createdAt.toISOString()).toBe('2024-07-20T08:23:45.678Z')
      expect(tea.updatedAt.toISOString()).toBe('2024-08-01T17:00:00.000Z')
      expect(tea.validFrom!.toISOString()).toBe('2024-07-20T08:23:45.678Z')
      const nurse = b.facts.rows.get(mem0FactId(memories[1].id))!
      expect(nurse).toMatchObject({ userId: 'bob', content: 'Works as a nurse' })
      expect(nurse.updatedAt).toEqual(nurse.createdAt)
      expect(b.indexes.facts.rows.has(tea.id)).toBe(true)
      // again: nothing new
      const again = await importMemory(b.ports, text, { platform: 'qq' })
      expect(again.counts.fact).toEqual({ imported: 0, skipped: 2 })
    }
  })

  it('a bad mem0 line is reported with its number; without a platform nothing is guessed', async () => {
    const text = [JSON.stringify(memories[0]), '{"id": "x", "memory": ""}', JSON.stringify(memories[1])].join('\n')
    const b = instance()
    const result = await importMemory(b.ports, text, { platform: 'qq' })
    expect(result.bad).toMatchObject([{ line: 2, problem: 'invalid' }])
    expect(result.counts.fact.imported).toBe(2)
    const none = await importMemory(instance().ports, text)
    expect(none.bad.map((bad) => bad.problem)).toEqual(['mem0-no-platform', 'invalid', 'mem0-no-platform'])
  })

  it('takes every memory as one user when asked, and reports a memory without a user otherwise', async () => {
    const b = instance()
    const result = await importMemory(b.ports, JSON.stringify(memories), { platform: 'discord', userId: '42' })
    expect(result.counts.fact.imported).toBe(2)
    expect([...b.facts.rows.values()].map((row) => `${row.platform}/${row.userId}`)).toEqual(['discord/42', 'discord/42'])
    const anonymous = await importMemory(instance().ports, JSON.stringify([{ memory: 'Has a cat' }]), { platform: 'qq' })
    expect(anonymous.bad).toEqual([{ line: 1, problem: 'mem0-no-user' }])
    expect(anonymous.layout).toBe('array')
  })

  it('our lines and mem0 lines may share one file: each line is read as what it is', async () => {
    const a = instance()
    await seed(a)
    const ours = lines((await exportMemory(a.ports, { user: { platform: 'qq', userId: 'alice' } })).text)
    const text = [...ours, JSON.stringify(memories[1])].join('\n')
    const b = instance()
    const result = await importMemory(b.ports, text, { platform: 'qq' })
    expect(result.formats).toEqual({ ours: ours.length, mem0: 1 })
    expect(result.counts.fact.imported).toBe(4)
  })
})
