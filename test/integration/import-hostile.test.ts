import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FIELD_MAX_BYTES, utf8Bytes } from '../../src/text/field-limit'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'

const line = (kind: string, data: Record<string, unknown>) => JSON.stringify({ kind, version: 1, data })
const T = '2026-01-01T00:00:00.000Z'
const factLine = (data: Record<string, unknown>) =>
  line('fact', { platform: 'mock', guildId: '', channelId: '', createdAt: T, updatedAt: T, ...data })

/** Writes `lines` to `data/<name>` of the app and imports it with `memory.import`; the reply. */
async function importFile(h: Harness, name: string, lines: string[]): Promise<string> {
  mkdirSync(join(h.dir, 'data'), { recursive: true })
  writeFileSync(join(h.dir, 'data', name), lines.join('\n') + '\n')
  const [reply] = await h.app.mock.client('root').receive(`memory.import data/${name}`)
  await h.app.memory.flush()
  return reply
}

describe('an import is untrusted input', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    h.app.baseDir = h.dir
    await h.app.mock.initUser('root', 4, { locales: ['en-US'] })
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 1)
  })

  afterEach(async () => {
    await h?.stop()
  })

  it('a fact of 100,000 characters is reported by its line and never stored; the database answers afterwards', async () => {
    const reply = await importFile(h, 'big.jsonl', [
      factLine({ id: 'ok1', userId: 'alice', content: 'Alice keeps bees' }),
      factLine({ id: 'big1', userId: 'alice', content: '我'.repeat(100_000) }),
      line('group-memory', {
        id: 'gbig',
        platform: 'mock',
        guildId: 'g1',
        statement: 'x'.repeat(FIELD_MAX_BYTES + 1),
        status: 'active',
        createdAt: T,
        updatedAt: T,
      }),
    ])
    expect(reply).toContain('line 2: a field longer than the database keeps')
    expect(reply).toContain('content: 300000 bytes, at most 16384')
    expect(reply).toContain('line 3: a field longer')
    expect((await h.app.database.get('memory_fact', {})).map((row) => row.id)).toEqual(['ok1'])
    // the same database still answers: a query, capture, a command
    await say(h.app, 'alice', '我喜欢吃火锅')
    expect((await h.app.database.get('memory_message', { userId: 'alice' })).length).toBeGreaterThan(0)
    const [listed] = await h.app.mock.client('alice').receive('memory.list')
    expect(listed).toContain('Alice keeps bees')
  })

  it('a fact naming as many long source ids as its column holds is looked up in small queries; the database answers', async () => {
    const ids = Array.from({ length: 91 }, (_, i) => `mock:private:alice:${i}-${'我'.repeat(230)}`)
    const reply = await importFile(h, 'ids.jsonl', [factLine({ id: 'f1', userId: 'alice', content: 'Alice reads', sourceIds: ids })])
    expect(reply).toContain('- facts: 1 imported, 0 already there')
    expect(reply).toContain(
      'References left out because they name nothing stored or in the file (a source message that was not exported, say): 91',
    )
    await say(h.app, 'alice', '我喜欢读书')
    expect((await h.app.database.get('memory_message', { userId: 'alice' })).length).toBeGreaterThan(0)
  })

  it('a chat message longer than the limit is stored cut to it, and the database answers afterwards', async () => {
    await say(h.app, 'alice', '长'.repeat(1_000_000))
    const [row] = await h.app.database.get('memory_message', { userId: 'alice' })
    expect(utf8Bytes(row.content)).toBeLessThanOrEqual(FIELD_MAX_BYTES)
    expect(row.content.length).toBe(Math.floor(FIELD_MAX_BYTES / 3))
    await say(h.app, 'alice', '我住在成都')
    expect(await h.app.database.get('memory_message', { userId: 'alice' })).toHaveLength(2)
  })

  it("a closed fact of bob's that names alice's fact as its successor is refused: bob never sees alice's fact", async () => {
    await say(h.app, 'alice', '我住在成都')
    const [alice] = await h.app.database.get('memory_fact', { userId: 'alice' })
    expect(alice.content).toContain('成都')
    const reply = await importFile(h, 'cross.jsonl', [
      factLine({ id: 'bob1', userId: 'bob', content: 'Bob lives in Paris', validTo: T, supersededBy: alice.id }),
      factLine({ id: 'bob2', userId: 'bob', content: 'Bob has a dog', parentId: alice.id }),
    ])
    expect(reply).toContain(`line 1: it names a row of another person or group, which an import may not touch (supersededBy: ${alice.id})`)
    expect(reply).toContain(`line 2: it names a row of another person or group, which an import may not touch (parentId: ${alice.id})`)
    expect(await h.app.database.get('memory_fact', { userId: 'bob' })).toEqual([])
    for (const query of ['住在哪', 'Paris', '成都']) {
      const found = await h.app.memory.retrieve('bob', query, { platform: 'mock', history: true })
      expect(found.map((memory) => memory.content).join('\n')).not.toContain('成都')
    }
    const context = await h.app.memory.buildContext({
      platform: 'mock',
      guildId: '',
      channelId: 'private:bob',
      userId: 'bob',
      content: '我住在哪里',
      time: new Date(),
    })
    expect(JSON.stringify(context)).not.toContain('成都')
    const [recalled] = await h.app.mock.client('bob').receive('memory.recall 住在哪')
    expect(recalled ?? '').not.toContain('成都')
  })

  it("a fact of alice's whose sources are bob's messages is refused: alice's forget --all leaves bob's messages", async () => {
    await say(h.app, 'bob', '我养了一只猫')
    const bobs = await h.app.database.get('memory_message', { userId: 'bob' })
    expect(bobs.length).toBeGreaterThan(0)
    await say(h.app, 'alice', '我喜欢爬山')
    const own = await h.app.database.get('memory_message', { userId: 'alice' })
    const reply = await importFile(h, 'sources.jsonl', [
      factLine({ id: 'al1', userId: 'alice', channelId: 'private:alice', content: 'Alice has a cat', sourceIds: [own[0].id, bobs[0].id] }),
      factLine({
        id: 'al2',
        userId: 'alice',
        channelId: 'private:alice',
        content: 'Alice skis',
        sourceIds: [own[0].id, 'mock:private:alice:gone'],
      }),
    ])
    expect(reply).toContain(`line 1: it names a row of another person or group, which an import may not touch (sourceIds: ${bobs[0].id})`)
    expect(reply).toContain(
      'References left out because they name nothing stored or in the file (a source message that was not exported, say): 1',
    )
    expect(await h.app.database.get('memory_fact', { id: 'al1' })).toEqual([])
    const [kept] = await h.app.database.get('memory_fact', { id: 'al2' })
    expect(kept.sourceIds).toEqual([own[0].id])
    await h.app.mock.client('alice').receive('memory.forget --all -y')
    await h.app.memory.flush()
    const after = await h.app.database.get('memory_message', { id: bobs.map((row) => row.id) })
    expect(after.map((row) => row.content)).toEqual(bobs.map((row) => row.content))
  })

  it('two lines with one id: the same content is counted as already there, other content is reported', async () => {
    const first = factLine({ id: 'd1', userId: 'alice', content: 'Alice plays go' })
    const reply = await importFile(h, 'dups.jsonl', [
      first,
      first,
      factLine({ id: 'd1', userId: 'alice', content: 'Alice plays chess' }),
      factLine({ id: 'd1', userId: 'bob', content: 'Alice plays go' }),
    ])
    expect(reply).toContain('- facts: 1 imported, 1 already there')
    expect(reply).toContain('line 3: the same id as an earlier line, with other content (the earlier line is kept) (line 1)')
    expect(reply).toContain('line 4: the same id as an earlier line')
    expect((await h.app.database.get('memory_fact', {})).map((row) => row.content)).toEqual(['Alice plays go'])
  })

  it('one JSON array too large to read whole is refused with what to do instead, and nothing is imported', async () => {
    const entry = JSON.stringify({ memory: 'm'.repeat(1000), user_id: 'alice' })
    const reply = await importFile(h, 'huge.json', ['[', ...Array.from({ length: 17_000 }, () => `${entry},`), `${entry}]`])
    expect(reply).toBe(
      'data/huge.json is one JSON value larger than 16 MB characters; write it as JSON Lines (one record a line) and import that.',
    )
    expect(await h.app.database.get('memory_fact', {})).toEqual([])
  })

  it('streams a file larger than a read chunk, lines split across chunks, with malformed lines reported', async () => {
    const lines: string[] = []
    for (let i = 0; i < 1500; i++)
      lines.push(factLine({ id: `s${i}`, userId: `u${i % 7}`, content: `Person ${i} likes ${'tea '.repeat(30)}` }))
    lines.splice(750, 0, '{"kind": "fact", "version": 1, "data": {', 'not json at all')
    const reply = await importFile(h, 'stream.jsonl', lines)
    expect(reply).toContain('- facts: 1500 imported, 0 already there')
    expect(reply).toContain('line 751: not JSON')
    expect(reply).toContain('line 752: not JSON')
    expect(await h.app.database.get('memory_fact', {})).toHaveLength(1500)
  })
})
