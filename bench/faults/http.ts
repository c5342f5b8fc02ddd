import type { App } from 'koishi'
import type { Family } from './family'
import { Tally } from './family'
import { bootApp, log } from '../lib/app'
import type { LLM } from '../../src/providers/types'
import type { GroupMemoryRow } from '../../src/group'
import { createGroupMemories } from '../../src/group'
import type { Answer, Sent } from './support'
import { client, listen, mulberry32, nonsenseWords, quiet, seedOf, send, Server } from './support'
import { internalsOf } from '../../src/compose'

/**
 * Abuse of the group-memory HTTP routes on a loopback port: missing and wrong tokens, ids with NUL,
 * lone surrogates and broken percent escapes, over-long ids, a 5 MB body, bodies that are not JSON,
 * a reason that is not a string, DELETE with a body (whole, chunked, and with no framing), path traversal, unknown
 * groups, and one group's route aimed at another group's memory. A trial passes when the answer has
 * the expected status (never 500) and a refused request changed nothing; a change made through
 * another group's route is a foreign op, any change by a refused request is lost data. A few valid
 * requests are the positive control: they must change exactly what they name.
 */

const TOKEN = 'http-fault-token'
const AUTH = { token: `Bearer ${TOKEN}` }

interface Case {
  name: string
  method: string
  path: string
  sent?: Sent
  /** Statuses that pass. */
  expect: number[]
  /** The ids a successful request may change (none for a refusal). */
  changes?: string[]
  /** Text the answer must not hold (another group's statements). */
  secret?: string[]
}

const json = (value: unknown, extra: Sent = {}): Sent => ({
  ...AUTH,
  ...extra,
  headers: { 'content-type': 'application/json', ...extra.headers },
  body: JSON.stringify(value),
})

export const run: Family = async () => {
  const tally = new Tally()
  const rng = mulberry32(seedOf(10_003))
  const words = nonsenseWords(rng, 20, 8)
  const g1 = { platform: 'mock', guildId: `g${words.pop()!.slice(1, 6)}` }
  const g2 = { platform: 'mock', guildId: `g${words.pop()!.slice(1, 6)}` }
  const key = (group: typeof g1) => `${group.platform}:${group.guildId}`
  const started = Date.now()

  const b = await bootApp(
    { api: { token: TOKEN }, memorize: { enabled: false }, group: { timer: false } },
    { extra: (app) => app.plugin(Server, {}) },
  )
  const app: App = b.app
  const server = await listen(app)
  try {
    // each group gets three memories through an evolution
    const model: LLM = {
      id: 'seed-model',
      async generate() {
        return [0, 1, 2].map(() => JSON.stringify({ action: 'create', statement: `群记忆 ${words.pop()}` })).join('\n')
      },
    }
    const groups = createGroupMemories(app, {
      index: internalsOf(app.memory).index,
      embedder: internalsOf(app.memory).providers.embedder,
      llm: () => model,
      counters: internalsOf(app.memory).counters,
      logger: quiet,
    })
    for (const group of [g1, g2]) {
      await client(app, group.platform, 'member', group.guildId).receive('我们群每周五聊新番')
      await app.memory.flush()
      const result = await groups.evolve(group, { days: 1 })
      if (result.stats.created !== 3) throw new Error(`seeding ${key(group)}: ${JSON.stringify(result)}`)
    }
    const snapshot = async () => new Map((await app.database.get('memory_group', {})).map((row) => [row.id, row]))
    const seeded = await snapshot()
    const of = (group: typeof g1) => [...seeded.values()].filter((row) => row.guildId === group.guildId)
    const [m1, m1b] = of(g1).map((row) => row.id)
    const [m2] = of(g2).map((row) => row.id)
    const g2Statements = of(g2).map((row) => row.statement)
    const k1 = encodeURIComponent(key(g1))
    const long = 'x'.repeat(300)
    const huge = JSON.stringify({ strength: 0.9, reason: 'big', pad: 'x'.repeat(5 * 1024 * 1024) })

    const cases: Case[] = [
      // tokens
      ...(
        ['GET /memory/list/' + k1, `DELETE /memory/${m1}`, `PUT /memory/${m1}/strength?strength=0.9`, `POST /memory/evolve/${k1}`] as const
      ).flatMap((route): Case[] => {
        const [method, path] = route.split(' ')
        return [
          { name: `no token ${route}`, method, path, expect: [401] },
          { name: `wrong token ${route}`, method, path, sent: { token: 'Bearer nope' }, expect: [401] },
          { name: `token with a suffix ${route}`, method, path, sent: { token: `Bearer ${TOKEN}x` }, expect: [401] },
          {
            name: `basic auth ${route}`,
            method,
            path,
            sent: { token: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
            expect: [401],
          },
          { name: `empty bearer ${route}`, method, path, sent: { token: 'Bearer ' }, expect: [401] },
        ]
      }),
      {
        name: '5 MB body without a token',
        method: 'PUT',
        path: `/memory/${m1}/strength`,
        sent: { token: 'Bearer nope', body: huge },
        expect: [401, 413],
      },
      // ids
      { name: 'NUL in a group', method: 'GET', path: `/memory/list/${k1}%00`, sent: AUTH, expect: [400] },
      { name: 'NUL in a memory id (DELETE)', method: 'DELETE', path: `/memory/${m1}%00`, sent: AUTH, expect: [400] },
      { name: 'NUL in ?group=', method: 'DELETE', path: `/memory/${m1}?group=${k1}%00`, sent: AUTH, expect: [400] },
      {
        name: 'lone high surrogate (UTF-8 bytes) in a group',
        method: 'GET',
        path: `/memory/list/${k1}%ED%A0%80`,
        sent: AUTH,
        expect: [400, 404],
      },
      {
        name: 'lone low surrogate (UTF-8 bytes) in a memory id',
        method: 'DELETE',
        path: `/memory/${m1}%ED%B0%80`,
        sent: AUTH,
        expect: [400, 404],
      },
      { name: '%uD800 escape in a memory id', method: 'PUT', path: `/memory/${m1}%uD800/restore`, sent: AUTH, expect: [400, 404] },
      { name: 'broken % escape in a group', method: 'GET', path: `/memory/search/${k1}%E0%A4%A?q=x`, sent: AUTH, expect: [400, 404] },
      { name: 'lone surrogate in ?q=', method: 'GET', path: `/memory/search/${k1}?q=%ED%A0%80`, sent: AUTH, expect: [200, 400] },
      { name: 'control character in a group', method: 'GET', path: `/memory/changes/${k1}%1B`, sent: AUTH, expect: [400] },
      { name: '300-character group', method: 'GET', path: `/memory/list/mock:${long}`, sent: AUTH, expect: [400] },
      { name: '300-character memory id', method: 'DELETE', path: `/memory/${long}`, sent: AUTH, expect: [400] },
      { name: '20k-character memory id', method: 'DELETE', path: `/memory/${'y'.repeat(20_000)}`, sent: AUTH, expect: [400, 414, 431] },
      // bodies
      {
        name: '5 MB body (declared)',
        method: 'PUT',
        path: `/memory/${m1}/strength`,
        sent: { ...AUTH, headers: { 'content-type': 'application/json' }, body: huge },
        expect: [413],
      },
      {
        name: '5 MB body (chunked DELETE)',
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: {
          ...AUTH,
          headers: { 'content-type': 'application/json' },
          chunks: ['{"reason": "', ...Array.from({ length: 80 }, () => 'z'.repeat(65_536)), '"}'],
        },
        expect: [413],
      },
      {
        name: 'body that is not JSON',
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: { ...AUTH, headers: { 'content-type': 'application/json' }, body: 'reason=gone' },
        expect: [400],
      },
      {
        name: 'body that is not UTF-8',
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: { ...AUTH, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
        expect: [400],
      },
      { name: 'reason a number', method: 'DELETE', path: `/memory/${m1}`, sent: json({ reason: 42 }), expect: [400] },
      {
        name: 'reason an object (chunked)',
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: { ...AUTH, headers: { 'content-type': 'application/json' }, chunks: ['{"reason":', ' {"$ne": ""}}'] },
        expect: [400],
      },
      { name: 'reason given twice in the query', method: 'DELETE', path: `/memory/${m1}?reason=a&reason=b`, sent: AUTH, expect: [400] },
      { name: 'strength out of range', method: 'PUT', path: `/memory/${m1}/strength`, sent: json({ strength: 9 }), expect: [400] },
      { name: 'strength not a number', method: 'PUT', path: `/memory/${m1}/strength`, sent: json({ strength: '0.5abc' }), expect: [400] },
      { name: 'strength NaN in the query', method: 'PUT', path: `/memory/${m1}/strength?strength=NaN`, sent: AUTH, expect: [400] },
      { name: 'body a JSON array', method: 'PUT', path: `/memory/${m1}/strength`, sent: json([{ strength: 0.2 }]), expect: [400] },
      { name: 'days negative', method: 'POST', path: `/memory/evolve/${k1}?days=-1`, sent: AUTH, expect: [400] },
      { name: 'days huge', method: 'POST', path: `/memory/evolve/${k1}?days=1e9`, sent: AUTH, expect: [400] },
      { name: 'limit not whole', method: 'GET', path: `/memory/list/${k1}?limit=1.5`, sent: AUTH, expect: [400] },
      { name: 'status unknown', method: 'GET', path: `/memory/list/${k1}?status=everything`, sent: AUTH, expect: [400] },
      // paths
      { name: 'traversal in a group', method: 'GET', path: `/memory/list/..%2F..%2Fetc%2Fpasswd`, sent: AUTH, expect: [400, 404] },
      { name: 'traversal in a memory id', method: 'DELETE', path: `/memory/..%2F${m2}`, sent: AUTH, expect: [400, 404] },
      { name: 'unknown group (list)', method: 'GET', path: `/memory/list/mock:nosuchgroup`, sent: AUTH, expect: [404] },
      { name: 'unknown group (evolve)', method: 'POST', path: `/memory/evolve/mock:nosuchgroup`, sent: AUTH, expect: [404] },
      { name: 'group without a platform', method: 'GET', path: `/memory/list/${g1.guildId}`, sent: AUTH, expect: [400, 404] },
      { name: 'unknown memory', method: 'DELETE', path: `/memory/nosuchmemory`, sent: AUTH, expect: [404] },
      { name: 'unknown method', method: 'PATCH', path: `/memory/${m1}/strength`, sent: json({ strength: 0.1 }), expect: [404, 405] },
      // another group's memory through a group's route
      {
        name: "g2's memory deleted via g1",
        method: 'DELETE',
        path: `/memory/${m2}?group=${k1}`,
        sent: json({ reason: 'x' }),
        expect: [404],
      },
      {
        name: "g2's memory strength via g1",
        method: 'PUT',
        path: `/memory/${m2}/strength?group=${k1}`,
        sent: json({ strength: 0.05 }),
        expect: [404],
      },
      { name: "g2's memory restored via g1", method: 'PUT', path: `/memory/${m2}/restore?group=${k1}`, sent: AUTH, expect: [404, 409] },
      {
        name: "g2's history via g1",
        method: 'GET',
        path: `/memory/history/${m2}?group=${k1}`,
        sent: AUTH,
        expect: [404],
        secret: g2Statements,
      },
      {
        name: "g2's memory via g1, group given twice",
        method: 'DELETE',
        path: `/memory/${m2}?group=${k1}&group=${k1}`,
        sent: AUTH,
        expect: [400],
      },
      {
        name: "g1's list searched for g2",
        method: 'GET',
        path: `/memory/search/${k1}?q=${encodeURIComponent(g2Statements[0])}&threshold=0`,
        sent: AUTH,
        expect: [200],
        secret: g2Statements,
      },
      // a body with neither Content-Length nor chunked framing is stray bytes after a bodiless request: Node answers 400
      ...[['{"reason": "过时了"}'], ['{"rea', 'son": 42}']].map((chunks): Case => ({
        name: `DELETE body without framing (${chunks.join('')})`,
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: { ...AUTH, headers: { 'content-type': 'application/json' }, chunks, unframed: true },
        expect: [400],
      })),
      // positive controls: valid requests change what they name, and only that
      {
        name: 'valid DELETE with a chunked body',
        method: 'DELETE',
        path: `/memory/${m1}`,
        sent: { ...AUTH, headers: { 'content-type': 'application/json' }, chunks: ['{"rea', 'son": "过时', '了"}'] },
        expect: [200],
        changes: [m1],
      },
      { name: 'valid restore', method: 'PUT', path: `/memory/${m1}/restore?group=${k1}`, sent: AUTH, expect: [200], changes: [m1] },
      {
        name: 'valid strength (form body)',
        method: 'PUT',
        path: `/memory/${m1b}/strength`,
        sent: { ...AUTH, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'strength=0.7' },
        expect: [200],
        changes: [m1b],
      },
      // dot segments are resolved (the same route as `/memory/:id`, on the memory's own group)
      { name: 'dot segments before a route', method: 'DELETE', path: `/memory/x/../${m2}`, sent: AUTH, expect: [200, 404], changes: [m2] },
      { name: 'valid restore on its own group', method: 'PUT', path: `/memory/${m2}/restore`, sent: AUTH, expect: [200], changes: [m2] },
      {
        name: 'valid DELETE, lone surrogate and NUL in the reason',
        method: 'DELETE',
        path: `/memory/${m1b}`,
        sent: json({ reason: 'a\u0000b\ud800c' }),
        expect: [200],
        changes: [m1b],
      },
    ]

    const fields = (row: GroupMemoryRow) =>
      JSON.stringify([row.statement, row.status, row.strength, row.supersededBy, row.deprecatedReason, row.version])
    for (const c of cases) {
      await tally.run(`http: ${c.name}`, async () => {
        const before = await snapshot()
        const changesBefore = (await app.database.get('memory_group_change', {})).length
        const answer: Answer = await send(server.base, c.method, c.path, c.sent)
        const after = await snapshot()
        const changed = [...new Set([...before.keys(), ...after.keys()])].filter((id) => {
          const a = before.get(id)
          const z = after.get(id)
          return !a || !z || fields(a) !== fields(z)
        })
        const changeLog = (await app.database.get('memory_group_change', {})).length - changesBefore
        const refused = answer.status >= 400
        const allowed = new Set(refused ? [] : (c.changes ?? []))
        const stray = changed.filter((id) => !allowed.has(id))
        const viaOther = (id: string) => {
          const row = after.get(id) ?? before.get(id)
          return Boolean(
            row &&
            /[?&]group=/.test(c.path) &&
            `${row.platform}:${row.guildId}` !== decodeURIComponent(c.path.split('group=')[1].split('&')[0]),
          )
        }
        const foreign = stray.filter(viaOther).length
        const other = stray.length - foreign
        // the answer repeats a search's query: only the rest counts
        const { query: _query, ...rest } = answer.json ?? {}
        const shown = (c.secret ?? []).filter((s) => JSON.stringify(answer.json ? rest : answer.text).includes(s)).length
        const problems: string[] = []
        if (!c.expect.includes(answer.status))
          problems.push(`status ${answer.status}, expected ${c.expect.join('/')}: ${answer.text.slice(0, 120)}`)
        if (!refused && c.changes?.length && !c.changes.every((id) => changed.includes(id)))
          problems.push('the valid request changed nothing')
        if (!refused && other) problems.push(`changed rows it did not name: ${stray.join(', ')}`)
        if (c.name.includes('lone surrogate and NUL') && !refused) {
          const reason = after.get(m1b)?.deprecatedReason ?? ''
          // eslint-disable-next-line no-control-regex -- a NUL must not be stored
          if (/\u0000|[\ud800-\udfff]/.test(reason)) problems.push(`stored reason ${JSON.stringify(reason)}`)
        }
        return {
          ok: problems.length === 0,
          // refused: a change through another group's route is a foreign op, any other change (or change-log row) lost data;
          // accepted: a change to a row the request did not name is a foreign op
          harm: refused
            ? { foreign_ops: foreign, lost: other + (stray.length ? 0 : Math.max(0, changeLog)), leaks: shown }
            : { foreign_ops: stray.length, leaks: shown },
          detail: [...problems, stray.length ? `changed ${stray.join(', ')}` : ''].filter(Boolean).join('; '),
        }
      })
    }
    // the server still answers after all of it
    await tally.run('http: still answering', async () => {
      const answer = await send(server.base, 'GET', `/memory/list/${k1}?status=all`, AUTH)
      return { ok: answer.status === 200 && (answer.json?.total as number) === 3, detail: `${answer.status} ${answer.text.slice(0, 80)}` }
    })
  } finally {
    await server.close()
    await b.stop()
  }
  log(`http: ${tally.result.tried} requests in ${Date.now() - started} ms`)
  return tally.result
}
