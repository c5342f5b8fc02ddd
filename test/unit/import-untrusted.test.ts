import { describe, expect, it } from 'vitest'
import type { MessageRow } from '../../src/messages/table'
import { clipToField, FIELD_MAX_BYTES, fitsField, utf8Bytes } from '../../src/text/field-limit'
import { importMemory } from '../../src/transfer'
import { checkRecord } from '../../src/transfer/records'
import { mayDrawOn } from '../../src/transfer/references'
import { chunks, ID_CHUNK_BYTES } from '../../src/core/chunks'
import type { ImportSource } from '../../src/transfer/source'
import { layoutOf, LINE_MAX_CHARS, readEntries, readLines, WHOLE_MAX_CHARS, WholeTooLarge } from '../../src/transfer/source'
import { row } from '../fakes/message-rows'
import { transferInstance } from '../fakes/transfer'

const T = '2026-01-01T00:00:00.000Z'
const fact = (data: Record<string, unknown>) =>
  JSON.stringify({ kind: 'fact', version: 1, data: { platform: 'qq', guildId: '', channelId: '', createdAt: T, updatedAt: T, ...data } })

/** A source handing out `text` in pieces of `size` characters, counting how often it is opened. */
function pieces(text: string, size: number): ImportSource & { opened: number } {
  const source = {
    opened: 0,
    async *open() {
      source.opened++
      for (let at = 0; at < text.length; at += size) yield Buffer.from(text.slice(at, at + size))
    },
  }
  return source
}

const collect = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

describe('the field limit', () => {
  it('counts UTF-8 bytes: ASCII, CJK (3 bytes) and emoji (4 bytes)', () => {
    expect(fitsField('a'.repeat(FIELD_MAX_BYTES))).toBe(true)
    expect(fitsField('a'.repeat(FIELD_MAX_BYTES + 1))).toBe(false)
    expect(fitsField('我'.repeat(Math.floor(FIELD_MAX_BYTES / 3)))).toBe(true)
    expect(fitsField('我'.repeat(Math.floor(FIELD_MAX_BYTES / 3) + 1))).toBe(false)
    expect(fitsField('😀'.repeat(FIELD_MAX_BYTES / 4 + 1))).toBe(false)
  })

  it('clips to the limit and never inside a character', () => {
    const clipped = clipToField('a' + '😀'.repeat(FIELD_MAX_BYTES))
    expect(utf8Bytes(clipped)).toBeLessThanOrEqual(FIELD_MAX_BYTES)
    expect(utf8Bytes(clipped)).toBeGreaterThan(FIELD_MAX_BYTES - 4)
    expect(clipped).not.toMatch(/[\ud800-\udbff]$/)
    expect(clipToField('short')).toBe('short')
  })

  it("a record's text beyond the limit is too-long, with the field and its size; JSON beyond a column too", () => {
    const long = checkRecord(JSON.parse(fact({ id: 'f', userId: 'u', content: '我'.repeat(6000) })))
    expect(long).toEqual({ ok: false, problem: 'too-long', detail: 'content: 18000 bytes, at most 16384' })
    const ids = Array.from({ length: 3000 }, (_, i) => `qq:private:u:${i}-${'m'.repeat(20)}`)
    const sources = checkRecord(JSON.parse(fact({ id: 'f', userId: 'u', content: 'ok', sourceIds: ids })))
    expect(sources).toMatchObject({
      ok: false,
      problem: 'too-long',
      detail: expect.stringMatching(/^sourceIds: \d+ bytes as JSON, at most 65535$/),
    })
    const wrong = checkRecord(JSON.parse(fact({ id: 'f', content: 'x'.repeat(FIELD_MAX_BYTES + 1) })))
    // another problem is reported as it was, not as too-long
    expect(wrong).toMatchObject({ ok: false, problem: 'too-long' })
    expect(checkRecord(JSON.parse(fact({ id: 'f', content: 'ok' })))).toMatchObject({ ok: false, problem: 'invalid' })
  })
})

describe('ids looked up', () => {
  it('in slices of at most 500 ids and ID_CHUNK_BYTES of UTF-8, every id once, in order', () => {
    const short = Array.from({ length: 1200 }, (_, i) => `id${i}`)
    expect(chunks(short).map((part) => part.length)).toEqual([500, 500, 200])
    const long = Array.from({ length: 91 }, (_, i) => `${i}-${'我'.repeat(230)}`)
    const parts = chunks(long)
    expect(parts.flat()).toEqual(long)
    for (const part of parts) expect(part.reduce((sum, id) => sum + utf8Bytes(id) + 4, 0)).toBeLessThanOrEqual(ID_CHUNK_BYTES)
  })
})

describe('reading a source', () => {
  it('splits lines across chunks and multi-byte characters, drops a BOM and CRs, reports an overlong line unread', async () => {
    const text = '\uFEFF{"a":"我们"}\r\n\n' + 'x'.repeat(LINE_MAX_CHARS + 5) + '\n{"b":1}'
    const lines = await collect(readLines(pieces(text, 7)))
    expect(lines).toEqual([
      { line: 1, text: '{"a":"我们"}' },
      { line: 2, text: '' },
      { line: 3, text: undefined },
      { line: 4, text: '{"b":1}' },
    ])
    const entries = await collect(readEntries(pieces(text, 7), 'lines'))
    expect(entries).toEqual([
      { entry: { line: 1, value: { a: '我们' } } },
      { bad: { line: 3, problem: 'line-too-long' } },
      { entry: { line: 4, value: { b: 1 } } },
    ])
  })

  it('tells one JSON value from JSON Lines by the first line, and refuses a value too large to read whole', async () => {
    expect(await layoutOf(pieces('{"memory": "a"}\n{"memory": "b"}\n', 3))).toBe('lines')
    expect(await layoutOf(pieces('[\n {"memory": "a"}\n]', 3))).toBe('array')
    expect(await layoutOf(pieces('{"results": [{"memory": "a"}]}', 3))).toBe('array')
    expect(await layoutOf(pieces('{\n "kind": "fact"\n}', 3))).toBe('array')
    const huge = `[${Array.from({ length: WHOLE_MAX_CHARS / 1000 + 10 }, () => JSON.stringify({ memory: 'm'.repeat(1000) })).join(',\n')}]`
    await expect(collect(readEntries(pieces(huge, 1 << 20), 'array'))).rejects.toBeInstanceOf(WholeTooLarge)
  })
})

describe('whose messages a row may draw on', () => {
  const message = (extra: Partial<MessageRow>) =>
    row('m1', 'alice', 'hi', 0, { platform: 'qq', guildId: '', channelId: 'private:alice', ...extra })
  const alice = { platform: 'qq', userId: 'alice', guildId: '', channelId: 'g1' }

  it("a user's row: their own words, and the bot's replies in their channel or private chat", () => {
    expect(mayDrawOn(alice, message({}))).toBe(true)
    expect(mayDrawOn(alice, message({ userId: 'bob', channelId: 'private:bob' }))).toBe(false)
    expect(mayDrawOn(alice, message({ platform: 'tg' }))).toBe(false)
    expect(mayDrawOn(alice, message({ userId: 'bot', role: 'assistant' }))).toBe(true)
    expect(mayDrawOn(alice, message({ userId: 'bot', role: 'assistant', guildId: 'g1', channelId: 'g1' }))).toBe(true)
    expect(mayDrawOn(alice, message({ userId: 'bot', role: 'assistant', channelId: 'private:bob' }))).toBe(false)
    expect(mayDrawOn(alice, message({ userId: 'bot', role: 'assistant', guildId: 'g2', channelId: 'g2' }))).toBe(false)
  })

  it("a group's row: what was said in that group", () => {
    const group = { platform: 'qq', userId: '', guildId: 'g1' }
    expect(mayDrawOn(group, message({ userId: 'bob', guildId: 'g1', channelId: 'g1' }))).toBe(true)
    expect(mayDrawOn(group, message({ userId: 'bob', guildId: 'g2', channelId: 'g2' }))).toBe(false)
    expect(mayDrawOn(group, message({}))).toBe(false)
  })
})

describe('an import resolves references only to the same owner', () => {
  it("refuses a line that names another owner's row, in the file or stored; keeps one's own; leaves out what names nothing", async () => {
    const b = transferInstance()
    await b.ports.facts.insert({
      id: 'alice1',
      platform: 'qq',
      guildId: '',
      channelId: 'private:alice',
      userId: 'alice',
      content: 'Alice lives in Chengdu',
      reason: '',
      version: 1,
      parentId: '',
      sourceIds: [],
      createdAt: new Date(T),
      updatedAt: new Date(T),
      validFrom: new Date(T),
      validTo: null,
      supersededBy: '',
    })
    b.messages.add(row('m9', 'bob', 'a cat', 0, { platform: 'qq', guildId: '', channelId: 'private:bob' }))
    const text = [
      fact({ id: 'b1', userId: 'bob', content: 'Bob lived in Paris', validTo: T, supersededBy: 'alice1' }),
      fact({ id: 'b2', userId: 'bob', content: 'Bob lived in Rome', validTo: T, supersededBy: 'a2' }),
      fact({ id: 'a2', userId: 'alice', content: 'Alice is a nurse' }),
      fact({ id: 'b3', userId: 'bob', content: 'Bob lived in Oslo', validTo: T, supersededBy: 'b4', sourceIds: ['qq:private:bob:m9'] }),
      fact({ id: 'b4', userId: 'bob', content: 'Bob lives in Bergen', parentId: 'gone' }),
      fact({ id: 'a3', userId: 'alice', channelId: 'private:alice', content: 'Alice has a cat', sourceIds: ['qq:private:bob:m9'] }),
    ].join('\n')
    const result = await importMemory(b.ports, text)
    expect(result.bad).toEqual([
      { line: 1, problem: 'foreign-reference', detail: 'supersededBy: alice1' },
      { line: 2, problem: 'foreign-reference', detail: 'supersededBy: a2' },
      { line: 6, problem: 'foreign-reference', detail: 'sourceIds: qq:private:bob:m9' },
    ])
    expect(result.unlinked).toBe(1)
    expect([...b.facts.rows.keys()].sort()).toEqual(['a2', 'alice1', 'b3', 'b4'])
    expect(b.facts.rows.get('b3')).toMatchObject({ supersededBy: 'b4', sourceIds: ['qq:private:bob:m9'] })
    expect(b.facts.rows.get('b4')!.parentId).toBe('')
  })

  it("refuses a summary of another channel's topic, a relation between another scope's entities, a change of another group's memory", async () => {
    const b = transferInstance()
    const line = (kind: string, data: Record<string, unknown>) => JSON.stringify({ kind, version: 1, data })
    const text = [
      line('group-memory', {
        id: 'gm1',
        platform: 'qq',
        guildId: 'g1',
        statement: 'g1 sings',
        status: 'active',
        createdAt: T,
        updatedAt: T,
      }),
      line('group-change', { id: 'c1', platform: 'qq', guildId: 'g2', memoryId: 'gm1', action: 'delete', createdAt: T }),
      line('topic', {
        id: 't1',
        platform: 'qq',
        guildId: 'g1',
        channelId: 'g1',
        title: 'songs',
        createdAt: T,
        updatedAt: T,
        lastMessageAt: T,
      }),
      line('summary', {
        topicId: 't1',
        platform: 'qq',
        guildId: 'g2',
        channelId: 'g2',
        version: 1,
        summary: 's',
        firstMessageAt: T,
        lastMessageAt: T,
        createdAt: T,
      }),
      line('summary', {
        topicId: 'none',
        platform: 'qq',
        guildId: 'g1',
        channelId: 'g1',
        version: 1,
        summary: 's',
        firstMessageAt: T,
        lastMessageAt: T,
        createdAt: T,
      }),
      line('entity', {
        id: 'e1',
        platform: 'qq',
        guildId: '',
        userId: 'alice',
        name: 'A',
        key: 'a',
        type: 'OTHER',
        firstSeen: T,
        lastSeen: T,
      }),
      line('entity', {
        id: 'e2',
        platform: 'qq',
        guildId: '',
        userId: 'bob',
        name: 'B',
        key: 'b',
        type: 'OTHER',
        firstSeen: T,
        lastSeen: T,
      }),
      line('relation', {
        id: 'r1',
        platform: 'qq',
        guildId: '',
        userId: 'bob',
        subjectId: 'e2',
        predicate: 'knows',
        objectId: 'e1',
        createdAt: T,
      }),
    ].join('\n')
    const result = await importMemory(b.ports, text)
    expect(result.bad).toEqual([
      { line: 2, problem: 'foreign-reference', detail: 'memoryId: gm1' },
      { line: 4, problem: 'foreign-reference', detail: 'topicId: t1' },
      { line: 5, problem: 'missing-reference', detail: 'topicId: none' },
      { line: 8, problem: 'foreign-reference', detail: 'objectId: e1' },
    ])
    expect(b.groups.changes.size).toBe(0)
    expect(b.knowledge.relationRows.size).toBe(0)
  })

  it('reads a file twice and holds neither: a source opened once to look, then once per pass', async () => {
    const b = transferInstance()
    const source = pieces(Array.from({ length: 200 }, (_, i) => fact({ id: `f${i}`, userId: 'u', content: `fact ${i}` })).join('\n'), 1000)
    const result = await importMemory(b.ports, source)
    expect(result.counts.fact).toEqual({ imported: 200, skipped: 0 })
    expect(source.opened).toBe(3)
  })
})
