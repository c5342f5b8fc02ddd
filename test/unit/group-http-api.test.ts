import { Readable } from 'node:stream'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ApiRequest, ApiRoute, KoaLike } from '../../src/http/group-routes'
import { authorised, groupApiRoutes, registerRoutes } from '../../src/http/group-routes'
import { GroupMemories } from '../../src/group/memories'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryGroupStore, memoryRow } from '../fakes/group-store'

const TOKEN = 's3cret-token'
const group = { platform: 'qq', guildId: 'g1' }
const T0 = new Date('2025-01-15T12:00:00Z')
const auth = `Bearer ${TOKEN}`
const json = (value: unknown) => async () => value

function setup(prefix = '') {
  const store = new MemoryGroupStore()
  const llm = new FakeLLM(['{"action": "create", "statement": "成员多为前端开发者", "change_reason": "多次提到"}'])
  let n = 0
  const memories = new GroupMemories({
    store,
    embedder: new OfflineEmbedder({ dims: 64 }),
    llm: () => llm,
    vector: { index: new ExactIndex(), outbox: new MemoryOutbox() },
    counters: new Counters(),
    logger: quiet,
    now: () => T0,
    newId: () => `n${++n}`,
  })
  const routes = groupApiRoutes(memories, { token: TOKEN, prefix })
  const call = (method: ApiRoute['method'], path: string, request: Partial<ApiRequest> = {}) => {
    const route = routes.find((r) => r.method === method && r.path === path)
    if (!route) throw new Error(`no route ${method} ${path}`)
    return route.handle({ params: {}, query: {}, authorization: auth, ...request })
  }
  return { store, memories, routes, call }
}

describe('group memory HTTP routes', () => {
  let api: ReturnType<typeof setup>
  beforeEach(async () => {
    api = setup()
    await api.store.putMemory(memoryRow(group, 'm1', '不讨论政治话题'))
    await api.store.putMemory(memoryRow({ platform: 'qq', guildId: 'g2' }, 'o1', '别的群'))
    await api.memories.index!.sync(await api.store.getMemories(['m1', 'o1']), [])
  })

  it("declares design §6.6's eight routes, under a prefix when given", () => {
    expect(api.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`)).toEqual([
      'POST /memory/evolve/:group',
      'GET /memory/list/:group',
      'GET /memory/search/:group',
      'GET /memory/history/:memoryId',
      'GET /memory/changes/:group',
      'DELETE /memory/:memoryId',
      'PUT /memory/:memoryId/restore',
      'PUT /memory/:memoryId/strength',
    ])
    expect(setup('api/').routes[0].path).toBe('/api/memory/evolve/:group')
  })

  it('answers 401 to a missing or wrong token, on every route, and never runs the handler', async () => {
    for (const route of api.routes) {
      for (const authorization of [undefined, '', 'Bearer wrong', TOKEN, `Basic ${TOKEN}`]) {
        const response = await route.handle({ params: { group: 'qq:g1', memoryId: 'm1' }, query: { q: 'x' }, authorization })
        expect(response.status, `${route.path} with ${authorization}`).toBe(401)
        expect(response.headers).toEqual({ 'WWW-Authenticate': 'Bearer' })
      }
    }
    expect(api.store.memories.get('m1')!.status).toBe('active')
    expect(authorised(`bearer  ${TOKEN} `, TOKEN)).toBe(true)
    expect(authorised(auth, '')).toBe(false)
  })

  it("evolves a group and answers in design §6.6's shape", async () => {
    api.store.addMessages(group, [{ userName: 'A', content: '我是前端开发', at: new Date(T0.getTime() - 1000) }])
    const response = await api.call('post', '/memory/evolve/:group', { params: { group: 'qq:g1' }, query: { days: '2' } })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      success: true,
      group_id: 'qq:g1',
      evolution_time: T0.toISOString(),
      stats: { kept: 1, updated: 0, created: 1, deleted: 0 },
      changes: [{ action: 'create', statement: '成员多为前端开发者', change_reason: '多次提到', version: 1 }],
    })
    const again = await api.call('post', '/memory/evolve/:group', { params: { group: 'qq:g1' } })
    expect(again).toMatchObject({ status: 200, body: { success: true, status: 'no-new-messages' } })
  })

  it('answers 400 with a message for bad parameters', async () => {
    const cases: [ApiRoute['method'], string, Partial<ApiRequest>, RegExp][] = [
      ['post', '/memory/evolve/:group', { params: { group: 'qq' } }, /platform:guildId/],
      ['post', '/memory/evolve/:group', { params: { group: 'qq:g1' }, query: { days: 'abc' } }, /days/],
      ['post', '/memory/evolve/:group', { params: { group: 'qq:g1' }, query: { days: '-1' } }, /days/],
      ['post', '/memory/evolve/:group', { params: { group: 'qq:g1' }, query: { days: ['1', '2'] } }, /more than once/],
      ['get', '/memory/list/:group', { params: { group: 'qq:g1' }, query: { status: 'gone' } }, /status/],
      ['get', '/memory/list/:group', { params: { group: 'qq:g1' }, query: { limit: '2.5' } }, /limit/],
      ['get', '/memory/list/:group', { params: { group: 'qq:g1' }, query: { offset: '-3' } }, /offset/],
      ['get', '/memory/search/:group', { params: { group: 'qq:g1' }, query: {} }, /q/],
      ['get', '/memory/search/:group', { params: { group: 'qq:g1' }, query: { q: 'x', threshold: '2' } }, /threshold/],
      ['get', '/memory/changes/:group', { params: { group: ':g1' }, query: {} }, /platform:guildId/],
      ['put', '/memory/:memoryId/strength', { params: { memoryId: 'm1' }, body: json({}) }, /strength/],
      ['put', '/memory/:memoryId/strength', { params: { memoryId: 'm1' }, body: json({ strength: 3 }) }, /strength/],
      ['put', '/memory/:memoryId/strength', { params: { memoryId: 'm1' }, body: json({ strength: 'high' }) }, /strength/],
      ['delete', '/memory/:memoryId', { params: { memoryId: 'm1' }, body: json({ reason: 42 }) }, /reason/],
      ['get', '/memory/list/:group', { params: { group: 'qq:g1\ud800' } }, /group.*lone surrogate/],
      ['get', '/memory/list/:group', { params: { group: 'qq:\udc00g1' } }, /group.*lone surrogate/],
      ['get', '/memory/list/:group', { params: { group: 'qq:g1\u0007' } }, /group.*control character/],
      ['get', '/memory/list/:group', { params: { group: `qq:${'1'.repeat(300)}` } }, /group.*255/],
      ['get', '/memory/history/:memoryId', { params: { memoryId: 'm1\udfff' } }, /memoryId.*lone surrogate/],
      ['put', '/memory/:memoryId/restore', { params: { memoryId: 'm'.repeat(256) } }, /memoryId.*255/],
      ['delete', '/memory/:memoryId', { params: { memoryId: 'm1' }, query: { group: 'qq:g1\u0000' } }, /group.*control/],
    ]
    for (const [method, path, request, message] of cases) {
      const response = await api.call(method, path, request)
      expect(response.status, `${method} ${path} ${JSON.stringify(request)}`).toBe(400)
      expect(response.body).toMatchObject({ success: false, error: expect.stringMatching(message) })
    }
  })

  it("lists, searches and shows changes in design §6.6's shapes", async () => {
    const list = await api.call('get', '/memory/list/:group', {
      params: { group: 'qq:g1' },
      query: { status: 'all', limit: '10', offset: '0' },
    })
    expect(list).toMatchObject({
      status: 200,
      body: {
        success: true,
        group_id: 'qq:g1',
        total: 1,
        memories: [{ memory_id: 'm1', statement: '不讨论政治话题', version: 1, status: 'active', strength: 0.5, parent_id: null }],
      },
    })
    const search = await api.call('get', '/memory/search/:group', {
      params: { group: 'qq:g1' },
      query: { q: '政治话题', limit: '3', threshold: '0.1' },
    })
    expect(search).toMatchObject({ status: 200, body: { success: true, query: '政治话题', results: [{ memory_id: 'm1', version: 1 }] } })
    const changes = await api.call('get', '/memory/changes/:group', { params: { group: 'qq:g1' }, query: { days: '7' } })
    expect(changes).toMatchObject({
      status: 200,
      body: { success: true, group_id: 'qq:g1', period: '2025-01-08 to 2025-01-15', changes: [] },
    })
  })

  it('acts on a memory by id in its own group: delete, restore, strength, history', async () => {
    const deleted = await api.call('delete', '/memory/:memoryId', { params: { memoryId: 'm1' }, query: { reason: '过时' } })
    expect(deleted).toMatchObject({
      status: 200,
      body: { success: true, group_id: 'qq:g1', memory: { memory_id: 'm1', status: 'deprecated', deprecated_reason: '过时' } },
    })
    expect((await api.call('delete', '/memory/:memoryId', { params: { memoryId: 'm1' } })).status).toBe(409)
    expect(await api.call('put', '/memory/:memoryId/restore', { params: { memoryId: 'm1' } })).toMatchObject({
      status: 200,
      body: { memory: { status: 'active' } },
    })
    expect(
      await api.call('put', '/memory/:memoryId/strength', { params: { memoryId: 'm1' }, body: json({ strength: 0.9 }) }),
    ).toMatchObject({
      status: 200,
      body: { memory: { strength: 0.9 } },
    })
    expect(await api.call('put', '/memory/:memoryId/strength', { params: { memoryId: 'm1' }, query: { strength: '0.3' } })).toMatchObject({
      status: 200,
      body: { memory: { strength: 0.3 } },
    })
    const history = await api.call('get', '/memory/history/:memoryId', { params: { memoryId: 'm1' } })
    expect(history).toMatchObject({
      status: 200,
      body: { success: true, memory_id: 'm1', current_version: 1, history: [{ version: 1, memory_id: 'm1', parent_id: null }] },
    })
  })

  it('answers 404 for an unknown memory, or one outside the group named by ?group=', async () => {
    expect((await api.call('get', '/memory/history/:memoryId', { params: { memoryId: 'nope' } })).status).toBe(404)
    expect((await api.call('delete', '/memory/:memoryId', { params: { memoryId: 'o1' }, query: { group: 'qq:g1' } })).status).toBe(404)
    expect(api.store.memories.get('o1')!.status).toBe('active')
  })

  it('answers 503 when group memory is not built yet, 500 without details on an internal error', async () => {
    const [route] = groupApiRoutes(() => undefined, { token: TOKEN })
    expect((await route.handle({ params: { group: 'qq:g1' }, query: {}, authorization: auth })).status).toBe(503)
    api.store.getMemories = async () => {
      throw new Error('SQLITE_BUSY: secret path /data/x')
    }
    const response = await api.call('get', '/memory/history/:memoryId', { params: { memoryId: 'm1' } })
    expect(response).toEqual({ status: 500, body: { success: false, error: 'internal error' } })
  })

  it('maps evolution outcomes to statuses: busy 409, no-llm 503, failed 502', async () => {
    api.store.addMessages(group, [{ userName: 'A', content: 'hi', at: new Date(T0.getTime() - 1000) }])
    await api.store.acquireLease(group, 'other', T0, new Date(T0.getTime() + 60_000))
    expect((await api.call('post', '/memory/evolve/:group', { params: { group: 'qq:g1' } })).status).toBe(409)
    const noLlm = groupApiRoutes(
      new GroupMemories({
        store: api.store,
        embedder: new OfflineEmbedder({ dims: 64 }),
        llm: () => undefined,
        counters: new Counters(),
        logger: quiet,
        now: () => new Date(T0.getTime() + 120_000),
      }),
      { token: TOKEN },
    )
    expect((await noLlm[0].handle({ params: { group: 'qq:g1' }, query: {}, authorization: auth })).status).toBe(503)
  })
})

describe('registerRoutes on a koa-style router', () => {
  it('passes params, query, body and the Authorization header through and writes status, body and headers', async () => {
    const handlers = new Map<string, (koa: KoaLike) => Promise<void>>()
    const router = {
      get: (path: string, h: (koa: KoaLike) => Promise<void>) => handlers.set(`GET ${path}`, h),
      post: (path: string, h: (koa: KoaLike) => Promise<void>) => handlers.set(`POST ${path}`, h),
      put: (path: string, h: (koa: KoaLike) => Promise<void>) => handlers.set(`PUT ${path}`, h),
      delete: (path: string, h: (koa: KoaLike) => Promise<void>) => handlers.set(`DELETE ${path}`, h),
    }
    const { routes, store } = setup()
    await store.putMemory(memoryRow(group, 'm1', '不讨论政治话题'))
    registerRoutes(router, routes)
    expect(handlers.size).toBe(8)
    const koa = (headers: Record<string, string>, extra: Partial<KoaLike>): KoaLike & { headers: Record<string, string> } => {
      const sent: Record<string, string> = {}
      return {
        params: {},
        query: {},
        req: Readable.from([]),
        get: (name) => headers[name.toLowerCase()] ?? '',
        set: (n, v) => {
          sent[n] = v
        },
        status: 404,
        body: undefined,
        headers: sent,
        ...extra,
      }
    }
    const ok = koa(
      { authorization: auth, 'content-type': 'application/json' },
      { params: { memoryId: 'm1' }, req: Readable.from([Buffer.from('{"strength": 0.7}')]) },
    )
    await handlers.get('PUT /memory/:memoryId/strength')!(ok)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ memory: { strength: 0.7 } })
    const denied = koa({}, { params: { group: 'qq:g1' } })
    await handlers.get('GET /memory/list/:group')!(denied)
    expect(denied.status).toBe(401)
    expect(denied.headers).toEqual({ 'WWW-Authenticate': 'Bearer' })
  })
})

describe('groups whose ids hold colons', () => {
  it("reads the console sandbox's group (platform sandbox:<id>) by the split that exists, and 404s a group that does not", async () => {
    const api = setup()
    const sandbox = { platform: 'sandbox:xrgyupmu65', guildId: '#' }
    api.store.addMessages(sandbox, [{ content: '我们前端组周五聚餐', userId: 'u1', at: new Date(T0.getTime() - 60_000) }])
    expect(await api.memories.resolve('sandbox:xrgyupmu65:#')).toEqual(sandbox)
    expect(await api.memories.resolve('sandbox:xrgyupmu65:#', 'other')).toEqual(sandbox)

    const evolved = await api.call('post', '/memory/evolve/:group', { params: { group: 'sandbox:xrgyupmu65:#' } })
    expect(evolved.status).toBe(200)
    expect([...api.store.leaseRows.values()].map((row) => `${row.platform}|${row.guildId}`)).toEqual(['sandbox:xrgyupmu65|#'])

    const missing = await api.call('post', '/memory/evolve/:group', { params: { group: 'sandbox:nobody:#' } })
    expect(missing.status).toBe(404)
    const listed = await api.call('get', '/memory/list/:group', { params: { group: 'qq:nowhere' } })
    expect(listed.status).toBe(404)
    expect(api.store.leaseRows.size).toBe(1)
    expect(await api.store.knows({ platform: 'sandbox', guildId: 'xrgyupmu65:#' })).toBe(false)
  })
})
