import type { Server as HttpServer } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { knowledgeApiRoutes } from '../../src/http'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'

// the CommonJS build, so the server plugin shares Koishi's copy of cordis (as `koishi` is aliased)
const Server = createRequire(__filename)('@koishijs/plugin-server').default

const TOKEN = 'knowledge-token'
const AT = '<at id="514"/> '

interface Answer {
  status: number
  json: Record<string, any>
}

describe('knowledge HTTP API, mounted by the plugin beside the group routes', () => {
  let h: Harness
  let http: HttpServer
  let base: string

  const get = async (path: string, token: string | null = TOKEN): Promise<Answer> => {
    const response = await fetch(`${base}/api${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } })
    return { status: response.status, json: (await response.json()) as Answer['json'] }
  }

  beforeAll(async () => {
    // the default offline config, with the API's token and a prefix
    h = await boot({ api: { token: TOKEN, prefix: '/api' } }, (app) => {
      app.plugin(Server, {})
      app.plugin(echo)
    })
    const { app } = h
    await app.mock.initUser('alice', 1)
    await app.mock.initUser('bob', 1)
    await say(app, 'alice', AT + '我住在成都，我喜欢吃火锅', 'g1')
    await say(app, 'bob', AT + '我住在重庆，我喜欢吃串串', 'g2')
    await say(app, 'alice', '我在腾讯工作')
    const koa = (app as unknown as { server: { _koa: { callback(): Parameters<typeof createServer>[1] } } }).server._koa
    http = createServer(koa.callback())
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await new Promise((resolve) => http?.close(resolve))
    await h?.stop()
  })

  it('answers 401 without the token or with a wrong one, on every route', async () => {
    for (const path of [
      '/knowledge/entities?platform=mock&guildId=g1&q=成都',
      '/knowledge/entity?platform=mock&guildId=g1&name=成都',
      '/knowledge/graph?platform=mock&guildId=g1&name=alice',
      '/knowledge/profile?platform=mock&userId=alice&guildId=g1',
    ]) {
      for (const token of [null, 'nope']) {
        const answer = await get(path, token)
        expect(answer.status, `${path} ${token}`).toBe(401)
        expect(answer.json).toEqual({ success: false, error: expect.stringMatching(/token/) })
      }
    }
  })

  it('finds the entities a user named in the group, filtered by type, and nothing of another group', async () => {
    const found = await get('/knowledge/entities?platform=mock&guildId=g1&q=' + encodeURIComponent('成都'))
    expect(found.status).toBe(200)
    expect(found.json.success).toBe(true)
    expect(found.json.entities[0]).toMatchObject({ name: '成都', type: 'LOCATION', platform: 'mock', guildId: 'g1', named: true })

    const people = await get('/knowledge/entities?platform=mock&guildId=g1&types=person&q=' + encodeURIComponent('成都'))
    expect(people.status).toBe(200)
    expect(people.json.entities.map((row: { type: string }) => row.type)).not.toContain('LOCATION')

    const elsewhere = await get('/knowledge/entities?platform=mock&guildId=g2&q=' + encodeURIComponent('成都'))
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.json.entities.map((row: { name: string }) => row.name)).not.toContain('成都')
    expect(elsewhere.json.entities.every((row: { guildId: string }) => row.guildId === 'g2')).toBe(true)
  })

  it('shows an entity with its relations and their other ends; 404 in a scope that lacks it', async () => {
    const answer = await get('/knowledge/entity?platform=mock&guildId=g1&name=' + encodeURIComponent('成都'))
    expect(answer.status).toBe(200)
    expect(answer.json.entity).toMatchObject({ name: '成都', type: 'LOCATION', guildId: 'g1' })
    expect(answer.json.relations).toEqual(
      expect.arrayContaining([expect.objectContaining({ subject: 'alice', predicate: '住在', object: '成都' })]),
    )
    expect(answer.json.others.map((row: { name: string }) => row.name)).toContain('alice')

    const other = await get('/knowledge/entity?platform=mock&guildId=g2&name=' + encodeURIComponent('成都'))
    expect(other.status).toBe(404)
    expect(other.json).toEqual({ success: false, error: expect.stringContaining('成都') })
  })

  it('keeps the private chat apart: 腾讯 is in alice’s private scope, not in the group', async () => {
    const own = await get('/knowledge/entity?platform=mock&userId=alice&name=' + encodeURIComponent('腾讯'))
    expect(own.status).toBe(200)
    expect(own.json.relations).toEqual(
      expect.arrayContaining([expect.objectContaining({ subject: 'alice', predicate: '工作于', object: '腾讯' })]),
    )
    expect((await get('/knowledge/entity?platform=mock&guildId=g1&name=' + encodeURIComponent('腾讯'))).status).toBe(404)
    expect((await get('/knowledge/entity?platform=mock&userId=bob&name=' + encodeURIComponent('腾讯'))).status).toBe(404)
  })

  it('walks the graph around an entity within its bounds', async () => {
    const graph = await get('/knowledge/graph?platform=mock&guildId=g1&name=alice&depth=1&maxNodes=10')
    expect(graph.status).toBe(200)
    expect(graph.json.root).toMatchObject({ name: 'alice' })
    expect(graph.json.nodes.map((node: { entity: { name: string } }) => node.entity.name)).toContain('成都')
    expect(graph.json.nodes.map((node: { entity: { name: string } }) => node.entity.name)).not.toContain('重庆')
    expect(graph.json.truncated).toBe(false)
    const bob = await get('/knowledge/graph?platform=mock&guildId=g2&name=bob')
    expect(bob.json.nodes.map((node: { entity: { name: string } }) => node.entity.name)).toContain('重庆')
    expect((await get('/knowledge/graph?platform=mock&guildId=g2&name=alice')).status).toBe(404)
  })

  it('gives a user’s profile in a group or in private, and 404 where nothing was learnt', async () => {
    const inGroup = await get('/knowledge/profile?platform=mock&userId=alice&guildId=g1')
    expect(inGroup.status).toBe(200)
    expect(inGroup.json.profile).toMatchObject({ userId: 'alice', guildId: 'g1' })
    expect(JSON.stringify(inGroup.json.profile.preferences)).toContain('火锅')
    expect(JSON.stringify(inGroup.json.profile)).not.toContain('腾讯')

    const inPrivate = await get('/knowledge/profile?platform=mock&userId=alice')
    expect(inPrivate.status).toBe(200)
    expect(inPrivate.json.profile).toMatchObject({ userId: 'alice', guildId: '' })
    expect(JSON.stringify(inPrivate.json.profile)).toContain('腾讯')
    expect(JSON.stringify(inPrivate.json.profile)).not.toContain('火锅')

    expect((await get('/knowledge/profile?platform=mock&userId=alice&guildId=g2')).status).toBe(404)
    expect((await get('/knowledge/profile?platform=mock&userId=nobody')).status).toBe(404)
  })

  it('answers 400 with a JSON error, never 500, to bad parameters', async () => {
    const long = 'x'.repeat(300)
    const cases: [string, RegExp][] = [
      ['/knowledge/entities?platform=mock&guildId=g1%00&q=a', /guildId/],
      ['/knowledge/entities?platform=mo%00ck&guildId=g1&q=a', /platform/],
      ['/knowledge/entities?platform=mock&userId=alice%00&q=a', /userId/],
      [`/knowledge/entities?platform=mock&guildId=${long}&q=a`, /guildId.*255/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a%00b', /\bq\b/],
      [`/knowledge/entities?platform=mock&guildId=g1&q=${'y'.repeat(1001)}`, /\bq\b.*1000/],
      ['/knowledge/entities?platform=mock&guildId=g1', /\bq\b/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&types=PERSON,PLANET', /type.*PLANET/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&types=', /type/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&limit=0', /limit/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&limit=51', /limit/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&limit=2.5', /limit/],
      ['/knowledge/entities?platform=mock&guildId=g1&q=a&limit=1&limit=2', /limit.*more than once/],
      ['/knowledge/entities?platform=mock&guildId=g1&userId=alice&q=a', /exactly one/],
      ['/knowledge/entities?platform=mock&q=a', /exactly one/],
      ['/knowledge/entities?guildId=g1&q=a', /platform/],
      ['/knowledge/entities?scope=mock:g1&q=a', /unknown parameter "scope"/],
      ['/knowledge/entity?platform=mock&guildId=g1', /name/],
      ['/knowledge/entity?platform=mock&guildId=g1&name=%E6%88%90%00', /name/],
      [`/knowledge/entity?platform=mock&guildId=g1&name=${long}`, /name/],
      ['/knowledge/graph?platform=mock&guildId=g1&name=alice&depth=9', /depth/],
      ['/knowledge/graph?platform=mock&guildId=g1&name=alice&depth=abc', /depth/],
      ['/knowledge/graph?platform=mock&guildId=g1&name=alice&maxNodes=100000', /maxNodes/],
      ['/knowledge/profile?platform=mock&guildId=g1', /userId/],
      ['/knowledge/profile?platform=mock&userId=alice&guildId=g1%00', /guildId/],
      [`/knowledge/profile?platform=mock&userId=${long}`, /userId/],
    ]
    for (const [path, field] of cases) {
      const answer = await get(path)
      expect(answer.status, path).toBe(400)
      expect(answer.json, path).toEqual({ success: false, error: expect.stringMatching(field) })
    }
  })

  it('refuses lone surrogates (which a URL cannot carry as UTF-8) in any id or name', async () => {
    const routes = knowledgeApiRoutes(h.app.memory, { token: TOKEN })
    const handle = (path: string, query: Record<string, string>) =>
      routes.find((route) => route.path === path)!.handle({ params: {}, query, authorization: `Bearer ${TOKEN}` })
    const lone = 'g\ud800'
    for (const [path, query, field] of [
      ['/knowledge/entities', { platform: 'mock', guildId: lone, q: 'a' }, /guildId/],
      ['/knowledge/entities', { platform: 'mock', guildId: 'g1', q: 'a\udc00' }, /\bq\b/],
      ['/knowledge/entity', { platform: 'mock', guildId: 'g1', name: lone }, /name/],
      ['/knowledge/graph', { platform: lone, guildId: 'g1', name: 'alice' }, /platform/],
      ['/knowledge/profile', { platform: 'mock', userId: lone }, /userId/],
    ] as const) {
      const answer = await handle(path, query)
      expect(answer.status, JSON.stringify(query)).toBe(400)
      expect(answer.body).toEqual({ success: false, error: expect.stringMatching(field) })
    }
    // the same handler answers a well-formed request
    expect((await handle('/knowledge/entity', { platform: 'mock', guildId: 'g1', name: '成都' })).status).toBe(200)
  })
})
