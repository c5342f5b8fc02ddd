import type { Server as HttpServer } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { App, Context } from 'koishi'
import { mountGroupApi } from '../../src/http'
import { GroupMemories } from '../../src/group'
import type { GroupMemoryStore } from '../../src/group'
import { createGroupMemories, KoishiGroupStore } from '../../src/group'
import { defineGroupTables } from '../../src/group'
import type { EvolutionInput } from '../fakes/llm'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { memoryRow } from '../fakes/group-store'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

// the CommonJS build, so the server plugin shares Koishi's copy of cordis (as `koishi` is aliased)
const Server = createRequire(__filename)('@koishijs/plugin-server').default

const TOKEN = 'test-token'
const GROUP = 'mock:g1'

/** Group memory wired onto a booted app the way the service will: its index, embedder and counters. */
function wire(app: App, llm: FakeLLM<EvolutionInput>, extra: Partial<Parameters<typeof createGroupMemories>[1]> = {}) {
  return createGroupMemories(app, {
    index: internalsOf(app.memory).index,
    embedder: internalsOf(app.memory).providers.embedder,
    llm: () => llm,
    counters: internalsOf(app.memory).counters,
    logger: quiet,
    ...extra,
  })
}

/** Koishi's koa app on an ephemeral local port. */
async function listen(app: App): Promise<{ url: string; http: HttpServer }> {
  const koa = (app as unknown as { server: { _koa: { callback(): Parameters<typeof createServer>[1] } } }).server._koa
  const http = createServer(koa.callback())
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, http }
}

describe('group memory on Koishi (sqlite + LanceDB)', () => {
  let h: Harness
  let http: HttpServer | undefined

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(Server, {}))
  })

  afterEach(async () => {
    await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)))
    http = undefined
    await h.stop()
  })

  it('evolves a group from captured messages, versions an update and searches the LanceDB index', async () => {
    const { app } = h
    const llm = new FakeLLM<EvolutionInput>([
      '```json\n{"action": "create", "statement": "成员多为前端开发者", "change_reason": "多人提到"}\n{"action": "create", "statement": "每周五晚上讨论新番动漫", "change_reason": "约定"}\n```',
      ({ input }) =>
        `{"action": "update", "old_id": ${input.existing_memories.find((m) => m.statement.includes('新番'))!.id}, "statement": "每周五晚上讨论新番动漫，偏好科幻题材", "change_reason": "明确了偏好"}`,
    ])
    const group = wire(app, llm)
    await say(app, 'alice', '我是做前端开发的', 'g1')
    await say(app, 'bob', '我也是前端，周五晚上一起聊新番吧', 'g1')
    await say(app, 'carol', '另一个群的话题', 'g2')
    await say(app, 'dave', '私聊的内容')

    const first = await group.evolve(GROUP, { days: 1 })
    expect(first).toMatchObject({ success: true, status: 'evolved', group_id: GROUP, stats: { created: 2 } })
    expect(llm.calls[0].input.new_discussions).toEqual(['alice: 我是做前端开发的', 'bob: 我也是前端，周五晚上一起聊新番吧'])
    expect(await app.database.get('memory_group', { platform: 'mock', guildId: 'g1' })).toHaveLength(2)

    await say(app, 'alice', '这季的科幻新番最好看', 'g1')
    const second = await group.evolve(GROUP)
    expect(second.stats).toEqual({ kept: 1, updated: 1, created: 0, deleted: 0 })
    expect(llm.calls[1].input.new_discussions).toEqual(['alice: 这季的科幻新番最好看'])
    const update = second.changes[0] as { new_id: string; old_id: string }
    const rows = await app.database.get('memory_group', {})
    expect(rows).toHaveLength(3)
    expect(rows.find((r) => r.id === update.new_id)).toMatchObject({ version: 2, parentId: update.old_id, status: 'active' })
    expect(rows.find((r) => r.id === update.old_id)).toMatchObject({ status: 'deprecated', supersededBy: update.new_id })
    expect(await app.database.get('memory_group_change', {})).toHaveLength(3)

    const history = await group.history(GROUP, update.new_id)
    expect(history.history.map((entry) => entry.version)).toEqual([1, 2])

    // the real LanceDB table, scoped to the group; the replaced version is gone from it
    const found = await group.search(GROUP, '科幻新番')
    expect(found.source).toBe('index')
    expect(found.results.map((r) => r.statement)).toEqual(['每周五晚上讨论新番动漫，偏好科幻题材'])
    expect(await internalsOf(app.memory).index.texts('group_memories', [update.old_id])).toEqual([])
    expect((await group.search('mock:g2', '科幻新番')).results).toEqual([])

    expect((await group.evolve(GROUP)).status).toBe('no-new-messages')
    expect(llm.calls).toHaveLength(2)
    expect((await group.groupsWithNewMessages(1)).map((g) => g.guildId)).toEqual(['g2'])
  })

  it('lets only one of two instances sharing the database evolve a group; the other takes over after the lease expires', async () => {
    const { app } = h
    let now = new Date()
    const clock = () => now
    const a = wire(app, new FakeLLM<EvolutionInput>(['{"action": "create", "statement": "喜欢火锅"}']), {
      instanceId: 'A',
      now: clock,
      options: { leaseMs: 60_000 },
    })
    const llmB = new FakeLLM<EvolutionInput>(['{"action": "create", "statement": "喜欢爬山"}'])
    const b = wire(app, llmB, { instanceId: 'B', now: clock, options: { leaseMs: 60_000 } })
    await say(app, 'alice', '今晚吃火锅', 'g1')

    let release!: () => void
    const llmA = (a as unknown as { deps: { llm: () => FakeLLM<EvolutionInput> } }).deps.llm()
    llmA.gate = new Promise((resolve) => (release = resolve))
    const running = a.evolve(GROUP)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await b.evolve(GROUP)).status).toBe('busy')
    release()
    expect((await running).status).toBe('evolved')

    // A takes the lease again and dies holding it
    const store = new KoishiGroupStore(app)
    expect(await store.acquireLease({ platform: 'mock', guildId: 'g1' }, 'A:dead', now, new Date(now.getTime() + 60_000))).toBe(true)
    await say(app, 'bob', '周末去爬山', 'g1')
    expect((await b.evolve(GROUP)).status).toBe('busy')
    now = new Date(now.getTime() + 61_000)
    expect(await b.evolve(GROUP)).toMatchObject({ status: 'evolved', stats: { created: 1 } })
    expect(llmB.calls[0].input.new_discussions).toEqual(['bob: 周末去爬山'])
  })

  it('repairs a run that failed half-way on the Koishi database, without duplicate versions', async () => {
    const { app } = h
    defineGroupTables(app)
    const real = new KoishiGroupStore(app)
    let writes = 0
    let failAt = 3
    // the Koishi store, failing its third write once
    const flaky = new Proxy(real, {
      get(target, key: keyof GroupMemoryStore) {
        const value = target[key]
        if (typeof value !== 'function') return value
        if (!['putMemory', 'patchMemory', 'putChange', 'patchLease'].includes(key)) return value.bind(target)
        return async (...args: unknown[]) => {
          if (++writes === failAt) throw new Error('connection lost')
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
    const answer =
      '{"action": "create", "statement": "喜欢火锅"}\n{"action": "update", "old_id": 1, "statement": "每周五晚上讨论新番，偏好科幻", "change_reason": "明确"}'
    const llm = new FakeLLM<EvolutionInput>([answer])
    const group = new GroupMemories({
      store: flaky,
      embedder: internalsOf(app.memory).providers.embedder,
      llm: () => llm,
      counters: internalsOf(app.memory).counters,
      logger: quiet,
    })
    const now = new Date()
    await real.putMemory(memoryRow({ platform: 'mock', guildId: 'g1' }, 'seed1', '每周五晚上讨论新番', { createdAt: now }))
    await say(app, 'alice', '火锅和科幻新番', 'g1')
    expect((await group.evolve(GROUP)).status).toBe('failed')
    failAt = -1
    const rerun = await group.evolve(GROUP)
    expect(rerun).toMatchObject({ status: 'no-new-messages', repaired: { stats: { created: 1, updated: 1 } } })
    expect(llm.calls).toHaveLength(1)
    const rows = await app.database.get('memory_group', {})
    expect(rows.map((r) => `${r.statement}@${r.version}:${r.status}`).sort()).toEqual([
      '喜欢火锅@1:active',
      '每周五晚上讨论新番@1:deprecated',
      '每周五晚上讨论新番，偏好科幻@2:active',
    ])
    expect(await app.database.get('memory_group_change', {})).toHaveLength(2)
    expect(await app.database.get('memory_group_lease', {})).toMatchObject([{ owner: '', pending: '' }])
  })

  it("serves the HTTP API on Koishi's server with a bearer token", async () => {
    const { app } = h
    const llm = new FakeLLM<EvolutionInput>(['{"action": "create", "statement": "成员多为前端开发者", "change_reason": "多人提到"}'])
    const group = wire(app, llm)
    expect(mountGroupApi(app, group, { token: TOKEN, prefix: '/api' })).toBe(true)
    const server = await listen(app)
    http = server.http
    const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) =>
      fetch(`${server.url}/api${path}`, {
        method,
        headers: {
          ...(options.token === undefined
            ? { authorization: `Bearer ${TOKEN}` }
            : options.token
              ? { authorization: `Bearer ${options.token}` }
              : {}),
          ...(options.body ? { 'content-type': 'application/json' } : {}),
        },
        body: options.body ? JSON.stringify(options.body) : undefined,
      })

    await say(app, 'alice', '我是前端开发', 'g1')
    expect((await call('POST', `/memory/evolve/${encodeURIComponent(GROUP)}?days=1`, { token: '' })).status).toBe(401)
    expect((await call('POST', `/memory/evolve/${encodeURIComponent(GROUP)}?days=1`, { token: 'nope' })).status).toBe(401)
    const evolved = await call('POST', `/memory/evolve/${encodeURIComponent(GROUP)}?days=1`)
    expect(evolved.status).toBe(200)
    const body = (await evolved.json()) as { changes: { new_id: string }[] }
    expect(body).toMatchObject({ success: true, group_id: GROUP, stats: { kept: 0, updated: 0, created: 1, deleted: 0 } })
    const id = body.changes[0].new_id

    expect(await (await call('GET', `/memory/list/${GROUP}?status=all`)).json()).toMatchObject({
      success: true,
      total: 1,
      memories: [{ memory_id: id, statement: '成员多为前端开发者' }],
    })
    expect(
      await (await call('GET', `/memory/search/${GROUP}?q=${encodeURIComponent('前端开发')}&limit=3&threshold=0.1`)).json(),
    ).toMatchObject({ results: [{ memory_id: id }] })
    const bad = await call('GET', `/memory/search/${GROUP}?q=x&limit=zero`)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ success: false, error: expect.stringContaining('limit') })
    expect((await call('PUT', `/memory/${id}/strength`, { body: { strength: 0.9 } })).status).toBe(200)
    expect((await call('PUT', `/memory/${id}/strength`, { body: { strength: 9 } })).status).toBe(400)
    expect((await call('DELETE', `/memory/${id}?reason=test`)).status).toBe(200)
    expect((await call('PUT', `/memory/${id}/restore`)).status).toBe(200)
    expect(await (await call('GET', `/memory/history/${id}`)).json()).toMatchObject({ current_version: 1, history: [{ memory_id: id }] })
    const changes = (await (await call('GET', `/memory/changes/${GROUP}?days=7`)).json()) as { changes: { action: string }[] }
    expect(changes.changes.map((c) => c.action)).toEqual(['restore', 'delete', 'strength', 'create'])
    expect((await call('GET', '/memory/history/unknown')).status).toBe(404)
  })

  it('mounts nothing without a token', async () => {
    const { app } = h
    const group = wire(app, new FakeLLM<EvolutionInput>([]))
    expect(mountGroupApi(app as Context, group, { token: '' })).toBe(false)
    const server = await listen(app)
    http = server.http
    expect((await fetch(`${server.url}/memory/list/${GROUP}`, { headers: { authorization: 'Bearer ' } })).status).toBe(404)
  })
})
