import type { Server as HttpServer } from 'node:http'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { App } from 'koishi'
import { mountGroupApi } from '../../src/http'
import { createGroupMemories, KoishiGroupStore } from '../../src/group'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { memoryRow } from '../fakes/group-store'
import type { Harness } from './harness'
import { boot } from './harness'
import { internalsOf } from '../../src/compose'

// the CommonJS build, so the server plugin shares Koishi's copy of cordis (as `koishi` is aliased)
const Server = createRequire(__filename)('@koishijs/plugin-server').default

const TOKEN = 'edge-token'
const GROUP = { platform: 'mock', guildId: 'g1' }

interface Sent {
  headers?: Record<string, string>
  /** Sent with a Content-Length. */
  body?: string | Buffer
  /** Sent chunked, one write per part. */
  chunks?: string[]
}

interface Answer {
  status: number
  json: Record<string, unknown> | undefined
  headers: Record<string, string | string[] | undefined>
}

/** One request on a fresh connection, by hand, so chunked and oversized bodies go out as written. */
function send(base: string, method: string, path: string, sent: Sent = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      agent: false,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        // a Node client frames a DELETE body only when told how
        ...(sent.chunks ? { 'transfer-encoding': 'chunked' } : {}),
        ...(sent.body !== undefined ? { 'content-length': String(Buffer.byteLength(sent.body)) } : {}),
        ...sent.headers,
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (part: string) => (text += part))
      res.on('end', () => {
        let json: Answer['json']
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode!, json, headers: res.headers })
      })
    })
    // the server may answer 413 and close before an oversized body is all written: its answer is what counts
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
    })
    if (sent.chunks) for (const part of sent.chunks) req.write(part)
    req.end(sent.body)
  })
}

/** Node's client told nothing about a DELETE body: it writes the body bytes with neither Content-Length nor chunked framing. */
function sendUnframed(base: string, path: string, parts: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method: 'DELETE',
      agent: false,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (part: Buffer) => (text += part))
      res.on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', reject)
    for (const part of parts) req.write(part)
    req.end()
  })
}

/** Bytes written as given on one connection (left open: a client's end would close the server's side too); what came back before the server closed it. */
function sendRaw(base: string, bytes: string): Promise<string> {
  const { port } = new URL(base)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let text = ''
    socket.on('data', (part) => (text += part))
    socket.on('close', () => resolve(text))
    socket.on('error', () => resolve(text))
    socket.write(bytes)
  })
}

const json = (value: unknown): Sent => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) })

describe('group memory HTTP API at its edges', () => {
  let h: Harness
  let http: HttpServer
  let base: string
  let store: KoishiGroupStore
  let app: App

  beforeAll(async () => {
    h = await boot({}, (a) => a.plugin(Server, {}))
    app = h.app
    const group = createGroupMemories(app, {
      index: internalsOf(app.memory).index,
      embedder: internalsOf(app.memory).providers.embedder,
      llm: () => new FakeLLM([]),
      counters: internalsOf(app.memory).counters,
      logger: quiet,
    })
    mountGroupApi(app, group, { token: TOKEN })
    const koa = (app as unknown as { server: { _koa: { callback(): Parameters<typeof createServer>[1] } } }).server._koa
    http = createServer(koa.callback())
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    store = new KoishiGroupStore(app)
  })

  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve))
    await h.stop()
  })

  beforeEach(async () => {
    await app.database.remove('memory_group', {})
    await app.database.remove('memory_group_change', {})
    await store.putMemory(memoryRow(GROUP, 'm1', '每周五晚上讨论新番'))
  })

  const status = async () => (await store.getMemories(['m1']))[0]

  it('answers 400 with a JSON error, never 500, to ids holding NUL or too long', async () => {
    const long = 'x'.repeat(300)
    const cases: [string, string, RegExp][] = [
      ['GET', '/memory/list/mock:g1%00', /group/],
      ['GET', '/memory/list/mock%00:g1', /group/],
      ['GET', '/memory/search/mock:g%00?q=x', /group/],
      ['GET', '/memory/changes/mock:g1%00', /group/],
      ['POST', '/memory/evolve/mock:g1%00', /group/],
      ['GET', `/memory/list/mock:${long}`, /group/],
      ['GET', '/memory/history/m1%00', /memoryId/],
      ['DELETE', '/memory/m1%00', /memoryId/],
      ['PUT', '/memory/m1%00/restore', /memoryId/],
      ['PUT', '/memory/m1%00/strength?strength=0.5', /memoryId/],
      ['GET', `/memory/history/${long}`, /memoryId/],
      ['DELETE', '/memory/m1?group=mock:g1%00', /group/],
    ]
    for (const [method, path, field] of cases) {
      const answer = await send(base, method, path)
      expect(answer.status, `${method} ${path}`).toBe(400)
      expect(answer.json, `${method} ${path}`).toMatchObject({ success: false, error: expect.stringMatching(field) })
    }
    expect((await status()).status).toBe('active')
  })

  it('takes free text with NUL in a query or a reason without failing', async () => {
    expect((await send(base, 'GET', '/memory/search/mock:g1?q=%E6%96%B0%E7%95%AA%00')).status).toBe(200)
    const deleted = await send(base, 'DELETE', '/memory/m1', json({ reason: 'a\u0000b' }))
    expect(deleted.status).toBe(200)
    expect((await status()).deprecatedReason).toBe('ab')
  })

  it('reads the documented DELETE body {reason}, sent whole or chunked', async () => {
    const whole = await send(base, 'DELETE', '/memory/m1', json({ reason: '过时了' }))
    expect(whole.status).toBe(200)
    expect(whole.json).toMatchObject({ memory: { status: 'deprecated', deprecated_reason: '过时了' } })
    expect((await status()).deprecatedReason).toBe('过时了')

    await store.patchMemory('m1', { status: 'active', deprecatedReason: '' })
    const chunked = await send(base, 'DELETE', '/memory/m1', {
      headers: { 'content-type': 'application/json' },
      chunks: ['{"rea', 'son": "分', '块"}'],
    })
    expect(chunked.status).toBe(200)
    expect(chunked.json).toMatchObject({ memory: { status: 'deprecated', deprecated_reason: '分块' } })
  })

  it('answers 400 to a reason that is not a string, or a body that is not JSON, and changes nothing', async () => {
    for (const sent of [
      json({ reason: 42 }),
      json({ reason: ['a'] }),
      json({ reason: null }),
      { headers: { 'content-type': 'application/json' }, chunks: ['{"reason":', ' {"x": 1}}'] },
      { headers: { 'content-type': 'application/json' }, body: '{"reason": "unterminated' },
    ]) {
      const answer = await send(base, 'DELETE', '/memory/m1', sent)
      expect(answer.status, JSON.stringify(sent)).toBe(400)
      expect(answer.json).toMatchObject({ success: false, error: expect.stringMatching(/reason|JSON/) })
    }
    expect(await status()).toMatchObject({ status: 'active', deprecatedReason: '' })
    expect(await app.database.get('memory_group_change', {})).toEqual([])
  })

  it('refuses bodies over 64 KB with 413, whether declared or chunked, and changes nothing', async () => {
    const big = JSON.stringify({ strength: 0.9, pad: 'x'.repeat(5 * 1024 * 1024) })
    const declared = await send(base, 'PUT', '/memory/m1/strength', { headers: { 'content-type': 'application/json' }, body: big })
    expect(declared.status).toBe(413)
    expect(declared.json).toMatchObject({ success: false, error: expect.stringMatching(/64 KB/) })
    expect(declared.headers.connection).toBe('close')
    const stranger = await send(base, 'PUT', '/memory/m1/strength', { headers: { authorization: 'Bearer nope' }, body: big })
    expect(stranger.status).toBe(401)

    const parts = [`{"reason": "big", "pad": "`, ...Array.from({ length: 20 }, () => 'y'.repeat(8192)), '"}']
    const chunked = await send(base, 'DELETE', '/memory/m1', { headers: { 'content-type': 'application/json' }, chunks: parts })
    expect(chunked.status).toBe(413)
    expect(await status()).toMatchObject({ status: 'active', strength: 0.5 })

    const fits = await send(base, 'PUT', '/memory/m1/strength', json({ strength: 0.8, pad: 'z'.repeat(60_000) }))
    expect(fits.status).toBe(200)
    expect((await status()).strength).toBe(0.8)
  })

  it('reads a chunked PUT body as the same body with a Content-Length: valid is applied, invalid refused with its reason', async () => {
    const headers = { 'content-type': 'application/json' }
    const refused = await send(base, 'PUT', '/memory/m1/strength', { headers, chunks: ['{"stren', 'gth": "lots"}'] })
    expect(refused.status).toBe(400)
    expect(refused.json).toMatchObject({ success: false, error: expect.stringMatching(/strength/) })
    const broken = await send(base, 'PUT', '/memory/m1/strength', { headers, chunks: ['{"strength": 0.', '3'] })
    expect(broken.status).toBe(400)
    expect(broken.json).toMatchObject({ success: false, error: expect.stringMatching(/JSON/) })
    expect((await status()).strength).toBe(0.5)
    const applied = await send(base, 'PUT', '/memory/m1/strength', { headers, chunks: ['{"stren', 'gth": 0.3}'] })
    expect(applied.status).toBe(200)
    expect((await status()).strength).toBe(0.3)
  })

  it('changes nothing when a body comes without Content-Length or chunked framing (Node answers the stray bytes with 400)', async () => {
    for (const parts of [['{"reason": "过时了"}'], ['{"rea', 'son": 42}']]) {
      const answer = await sendUnframed(base, '/memory/m1', parts)
      expect(answer.status).toBe(400)
      expect(await status()).toMatchObject({ status: 'active', deprecatedReason: '' })
    }
    await store.patchMemory('m1', { status: 'deprecated' })
    const head = `PUT /memory/m1/restore HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n\r\n`
    expect(await sendRaw(base, `${head}{"why": "stray"}`)).toMatch(/^HTTP\/1\.1 400/)
    expect((await status()).status).toBe('deprecated')
    expect(await app.database.get('memory_group_change', {})).toEqual([])
    // the same request well formed goes through
    expect(await sendRaw(base, head.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200/)
    expect((await status()).status).toBe('active')
  })

  it('still takes a form body (curl -d) for the strength', async () => {
    const answer = await send(base, 'PUT', '/memory/m1/strength', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'strength=0.7',
    })
    expect(answer.status).toBe(200)
    expect((await status()).strength).toBe(0.7)
  })
})
