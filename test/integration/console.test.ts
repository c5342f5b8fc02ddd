import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EntryData, EvolutionState, FactView, GroupHit, HealthView, ImportView, UserDetails, UserHit } from '../../src/console'
import * as echo from './echo-bot'
import { FakeConsole } from './fake-console'
import type { Harness } from './harness'
import { boot, say } from './harness'
import type { ForgetReport } from '../../src/erase'

describe('the console page’s server side, on the real memory', () => {
  let h: Harness
  let con: FakeConsole
  const alice = { platform: 'mock', userId: 'alice' }

  beforeAll(async () => {
    h = await boot({ authority: { console: 2, listOthers: 3 } }, (app) => {
      app.plugin(echo)
      app.plugin(FakeConsole)
    })
    con = (h.app as unknown as { console: FakeConsole }).console
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 1)
    await say(h.app, 'alice', '我住在成都')
    await say(h.app, 'alice', '我是一名护士')
    await say(h.app, 'bob', 'I live in Osaka')
    await say(h.app, 'bob', 'we are planning a trip to Kyoto next month', 'g1')
    await h.app.memory.flush()
  })

  afterAll(() => h?.stop())

  it('registers each operation with the authority of its part, never below the page’s', () => {
    const authority = (name: string) => con.listeners[name].authority
    // console 2, listOthers 3, group.authority 3, stats 3, transfer 4
    expect(authority('memory/users')).toBe(3)
    expect(authority('memory/fact/edit')).toBe(3)
    expect(authority('memory/user/forget-all')).toBe(3)
    expect(authority('memory/group/restore')).toBe(3)
    expect(authority('memory/review/approve')).toBe(3)
    expect(authority('memory/health')).toBe(3)
    expect(authority('memory/export')).toBe(4)
    expect(authority('memory/import')).toBe(4)
    expect(Object.keys(con.listeners).every((name) => (con.listeners[name].authority ?? 0) >= 2)).toBe(true)
    const data = con.entries[0].data() as EntryData
    expect(data).toEqual({ authority: { page: 2, people: 3, groups: 3, health: 3, transfer: 4 } })
    expect(JSON.stringify(con.entries[0].files)).toMatch(/"prod":".*[/\\]dist"/)
  })

  it('finds a user by name or id, with their facts, sources, profile and entities', async () => {
    const hits = await con.call<UserHit[]>('memory/users', 'ALI')
    expect(hits).toEqual([expect.objectContaining({ platform: 'mock', userId: 'alice', facts: 2, guilds: [''] })])
    expect(await con.call<UserHit[]>('memory/users', '.*')).toEqual([])
    const details = await con.call<UserDetails>('memory/user', alice)
    expect(details.facts.map((fact) => fact.content).join(' ')).toMatch(/成都/)
    const fact = details.facts.find((one) => /成都/.test(one.content))!
    expect(fact.current).toBe(true)
    expect(fact.sourceIds.map((id) => details.sources[id]?.content)).toContain('我住在成都')
    expect(details.entities.map((entity) => entity.name)).toContain('成都')
    expect(JSON.stringify(details)).not.toMatch(/Osaka|Kyoto/)
    expect(details.waiting).toEqual({ messages: 0, dueAt: null, memorising: 0 })
  })

  it('edits a fact as a new version (the old one closed and kept), which memory.list then shows', async () => {
    const before = await con.call<UserDetails>('memory/user', alice)
    const city = before.facts.find((one) => /成都/.test(one.content))!
    expect(city.content).toBe('alice住在成都。')
    const edited = await con.call<FactView>('memory/fact/edit', alice, city.id, 'alice住在重庆。')
    expect(edited).toMatchObject({ content: 'alice住在重庆。', version: city.version + 1, parentId: city.id, current: true })
    expect(edited.diff).toEqual([
      { op: '=', text: 'alice住在' },
      { op: '-', text: '成都' },
      { op: '+', text: '重庆' },
      { op: '=', text: '。' },
    ])
    const after = await con.call<UserDetails>('memory/user', alice)
    expect(after.facts.find((one) => one.id === city.id)).toMatchObject({ current: false, supersededBy: edited.id })
    const [list] = await h.app.mock.client('alice').receive('memory.list')
    expect(list).toContain('alice住在重庆。')
    expect(list).not.toContain('成都')
    const [history] = await h.app.mock.client('alice').receive('memory.list -a')
    expect(history).toContain('成都')
    // a closed version cannot be edited again; nor can another user's fact through this user
    await expect(con.call('memory/fact/edit', alice, city.id, 'x')).rejects.toThrow('fact-closed')
    const [bobFact] = await h.app.database.get('memory_fact', { userId: 'bob' })
    await expect(con.call('memory/fact/edit', alice, bobFact.id, 'x')).rejects.toThrow('fact-not-found')
    await expect(con.call('memory/fact/forget', alice, bobFact.id)).rejects.toThrow('fact-not-found')
    expect(await h.app.database.get('memory_fact', { id: bobFact.id })).toHaveLength(1)
  })

  it('forgets one fact, gone from memory.list; an edited one with the versions before it', async () => {
    const details = await con.call<UserDetails>('memory/user', alice)
    const nurse = details.facts.find((one) => /护士/.test(one.content))!
    expect(await con.call('memory/fact/forget', alice, nurse.id)).toMatchObject({ facts: [nurse.id], removed: { facts: 1 } })
    const [list] = await h.app.mock.client('alice').receive('memory.list')
    expect(list).not.toContain('护士')

    const city = details.facts.find((one) => /重庆/.test(one.content))!
    expect((await con.call<ForgetReport>('memory/fact/forget', alice, city.id)).facts.sort()).toEqual([city.id, city.parentId].sort())
    const [history] = await h.app.mock.client('alice').receive('memory.list -a')
    expect(history).not.toMatch(/成都|重庆/)
  })

  it('lists groups, their memories, change log, topics and raw messages; evolve reports how it ended', async () => {
    const groups = await con.call<GroupHit[]>('memory/groups')
    expect(groups).toEqual([expect.objectContaining({ platform: 'mock', guildId: 'g1', memories: 0 })])
    const g1 = { platform: 'mock', guildId: 'g1' }
    expect(await con.call('memory/group/memories', g1, 'all')).toEqual({ total: 0, memories: [] })
    expect(await con.call('memory/group/changes', g1, 7)).toEqual([])
    const started = await con.call<EvolutionState>('memory/group/evolve', g1)
    expect(started.startedAt).toBeGreaterThan(0)
    let state = started
    for (let i = 0; i < 50 && state.running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      state = await con.call<EvolutionState>('memory/group/evolution', g1)
    }
    // the offline rules evolve no group: the page says so
    expect(state.result?.status).toBe('no-llm')
    const topics = await con.call<{ id: string }[]>('memory/group/topics', g1)
    expect(topics.length).toBeGreaterThan(0)
    const messages = await con.call<{ content: string }[]>('memory/topic/messages', g1, topics[0].id)
    expect(messages.map((message) => message.content)).toContain('we are planning a trip to Kyoto next month')
    // a topic is read only through its own group
    await expect(con.call('memory/topic/messages', { platform: 'mock', guildId: 'g2' }, topics[0].id)).rejects.toThrow('topic-not-found')
    await expect(con.call('memory/group/restore', g1, 'nope')).rejects.toThrow('group-not-found')
  })

  it('refuses malformed arguments', async () => {
    expect(await con.outcome('memory/user', { platform: 'mock' })).toMatchObject({ ok: false, error: 'bad-request' })
    expect(await con.outcome('memory/users', 42)).toMatchObject({ ok: false, error: 'bad-request' })
    expect(await con.outcome('memory/fact/forget', alice, 'a\u0000b')).toMatchObject({ ok: false, error: 'bad-request' })
  })

  it('sets a group to review, lists its queue, and says why a decision cannot be made', async () => {
    const g1 = { platform: 'mock', guildId: 'g1' }
    expect(await con.call('memory/review/mode', g1)).toBe('auto')
    expect(await con.call('memory/review/mode', g1, 'review')).toBe('review')
    expect((await con.call<GroupHit[]>('memory/groups')).find((group) => group.guildId === 'g1')?.mode).toBe('review')
    expect(await con.call('memory/review/queue', g1)).toEqual([])
    expect(await con.outcome('memory/review/approve', g1, 'abcdef0123')).toMatchObject({ ok: false, error: 'review-unknown' })
    expect(await con.outcome('memory/review/reject', g1, 'abcdef0123', 'no')).toMatchObject({ ok: false, error: 'review-unknown' })
    expect(await con.outcome('memory/review/mode', g1, 'sometimes')).toMatchObject({ ok: false, error: 'bad-request' })
    expect(await con.call('memory/review/mode', g1, 'auto')).toBe('auto')
  })

  it('shows health: providers, breakers, queues, index tables and the series', async () => {
    const health = await con.call<HealthView>('memory/health')
    expect(health.embedder).toMatchObject({ configured: 'offline', used: 'offline' })
    expect(health.llm).toMatchObject({ used: 'rules' })
    expect(health.breakers.map((one) => one.part)).toContain('vectorStore')
    expect(health.tables.map((one) => one.name)).toContain('facts')
    expect(health.tables.find((one) => one.name === 'facts')!.rows).toBeGreaterThan(0)
    expect(health.sampleSeconds).toBe(60)
  })

  it('exports (everything, a user, a group) and imports what it exported', async () => {
    const all = await con.call<{ fileName: string; text: string; total: number }>('memory/export', { kind: 'all' })
    expect(all.fileName).toMatch(/^memory-all-\d{8}-\d{6}\.jsonl$/)
    expect(all.text.trim().split('\n')).toHaveLength(all.total)
    const user = await con.call<{ text: string }>('memory/export', { kind: 'user', user: alice })
    expect(user.text).toContain('"userId":"alice"')
    expect(user.text).not.toMatch(/Osaka|"userId":"bob"/)
    const group = await con.call<{ fileName: string }>('memory/export', { kind: 'group', group: { platform: 'mock', guildId: 'g1' } })
    expect(group.fileName).toMatch(/^memory-group-mock-g1-/)
    const imported = await con.call<ImportView>('memory/import', all.text)
    expect(imported.formats.ours).toBe(all.total)
    expect(imported.counts.fact).toEqual({ imported: 0, skipped: expect.any(Number) })
    // what the page uploads is untrusted as a file is: a line naming another person's fact is refused
    const records = all.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; data: { id: string; userId: string } })
    const { id: theirs, userId: owner } = records.find((record) => record.kind === 'fact')!.data
    const at = '2026-01-01T00:00:00.000Z'
    const data = { id: 'c-x', platform: 'mock', userId: `not-${owner}`, content: 'Lived there', validTo: at, supersededBy: theirs }
    const foreign = await con.call<ImportView>(
      'memory/import',
      JSON.stringify({ kind: 'fact', version: 1, data: { ...data, createdAt: at, updatedAt: at } }),
    )
    expect(foreign.bad).toEqual([{ line: 1, problem: 'foreign-reference', detail: `supersededBy: ${theirs}` }])
    expect(await con.outcome('memory/import', 'not json\n')).toMatchObject({ ok: false, error: 'import-format' })
    expect(await con.outcome('memory/import', '  ')).toEqual({ ok: false, error: 'import-empty' })
  })

  it('forgets everything of a user with the cascade of memory.forget --all', async () => {
    await say(h.app, 'alice', '我喜欢打羽毛球')
    const report = await con.call<ForgetReport>('memory/user/forget-all', alice)
    expect(report.facts.length).toBeGreaterThan(0)
    expect(report.removed.messages).toBeGreaterThan(0)
    await h.app.memory.flush()
    expect(await h.app.database.get('memory_fact', { userId: 'alice' })).toEqual([])
    expect(await h.app.database.get('memory_message', { userId: 'alice' })).toEqual([])
    expect(await con.call<UserHit[]>('memory/users', 'alice')).toEqual([])
  })

  it('shows what of a person waits to be memorised, and by when', async () => {
    const carol = { platform: 'mock', userId: 'carol' }
    const said = Date.now()
    // no mention in a group: the echo bot does not answer, so the dialogue waits for the group's quiet time
    await say(h.app, 'carol', '我在杭州上班', 'g7')
    const details = await con.call<UserDetails>('memory/user', carol)
    expect(details.waiting.messages).toBe(1)
    expect(details.waiting.dueAt! - said).toBeGreaterThanOrEqual(599_000)
    expect(details.waiting.dueAt! - said).toBeLessThan(610_000)
    await h.app.memory.memorizeNow({ platform: 'mock', channelId: 'g7' })
    expect((await con.call<UserDetails>('memory/user', carol)).waiting).toEqual({ messages: 0, dueAt: null, memorising: 0 })
  })
})
