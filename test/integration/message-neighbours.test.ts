import type { App } from 'koishi'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { KoishiMessageStore } from '../../src/messages'
import { InMemoryMessageStore } from '../fakes/message-store'
import type { MessageRow } from '../../src/messages'
import type { Neighbours } from '../../src/messages'
import type { MessageStore } from '../../src/messages'
import { at } from '../fakes/clock'
import { message } from '../fakes/message-rows'
import { messageDatabase } from './database'

const channel = { platform: 'qq', guildId: 'g1', channelId: 'g1' }
const DAY = 86_400

/** A message of qq/g1 `seconds` after the test start. */
const said = (messageId: string, seconds: number, extra: Partial<MessageRow> = {}) =>
  message({ messageId, userId: 'ann', content: `line ${messageId}`, at: seconds, ...extra })

const ids = (found: Neighbours[]) => found.map(({ before, after }) => [before.map((r) => r.messageId), after.map((r) => r.messageId)])

/** The turns around `time` as the port defines them, computed the plain way: every row, sorted. */
function reference(rows: MessageRow[], time: Date, turns: number): [string[], string[]] {
  const sorted = rows
    .filter((r) => r.platform === channel.platform && r.channelId === channel.channelId)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const before = sorted.filter((r) => r.createdAt < time)
  const after = sorted.filter((r) => r.createdAt > time).slice(0, turns)
  return [before.slice(Math.max(0, before.length - turns)).map((r) => r.messageId), after.map((r) => r.messageId)]
}

/** A small seeded generator, so a failing spread of messages can be run again. */
function random(seed: number) {
  let a = seed
  return () => {
    a = (a * 1_103_515_245 + 12_345) % 2 ** 31
    return a / 2 ** 31
  }
}

describe.each(['database', 'in memory'] as const)('MessageStore.around (%s)', (kind) => {
  let app: App
  let close: () => Promise<void>
  let store: MessageStore
  let add: (...rows: MessageRow[]) => Promise<void>

  beforeAll(async () => {
    if (kind !== 'database') return
    ;({ app, close } = await messageDatabase('memory-neighbours-'))
  })

  afterAll(async () => {
    if (kind !== 'database') return
    await close()
  })

  beforeEach(async () => {
    if (kind === 'database') {
      await app.database.remove('memory_message', {})
      const koishi = new KoishiMessageStore(app)
      store = koishi
      add = (...rows) => koishi.upsert(rows)
    } else {
      const memory = new InMemoryMessageStore()
      store = memory
      add = async (...rows) => memory.add(...rows)
    }
  })

  it('gives the turns before and after each moment, oldest first, and never the messages at that moment', async () => {
    await add(...Array.from({ length: 10 }, (_, i) => said(`m${i}`, i * 10)))
    expect(ids(await store.around(channel, [at(50)], 2))).toEqual([
      [
        ['m3', 'm4'],
        ['m6', 'm7'],
      ],
    ])
    // a moment between two messages
    expect(ids(await store.around(channel, [at(55)], 1))).toEqual([[['m5'], ['m6']]])
    expect(ids(await store.around(channel, [at(50)], 0))).toEqual([[[], []]])
  })

  it('stops at the start and the end of the channel', async () => {
    await add(...Array.from({ length: 5 }, (_, i) => said(`m${i}`, i * 10)))
    expect(ids(await store.around(channel, [at(0), at(40), at(-100), at(1000)], 3))).toEqual([
      [[], ['m1', 'm2', 'm3']],
      [['m1', 'm2', 'm3'], []],
      [[], ['m0', 'm1', 'm2']],
      [['m2', 'm3', 'm4'], []],
    ])
  })

  it('answers moments whose turns overlap, repeated moments and moments in any order', async () => {
    await add(...Array.from({ length: 8 }, (_, i) => said(`m${i}`, i * 10)))
    expect(ids(await store.around(channel, [at(40), at(30), at(40)], 2))).toEqual([
      [
        ['m2', 'm3'],
        ['m5', 'm6'],
      ],
      [
        ['m1', 'm2'],
        ['m4', 'm5'],
      ],
      [
        ['m2', 'm3'],
        ['m5', 'm6'],
      ],
    ])
  })

  it('orders messages that share a time by row id and leaves those at the moment out', async () => {
    await add(said('z', 0), said('c', 10), said('a', 10), said('b', 10), said('d', 20))
    expect(ids(await store.around(channel, [at(10)], 2))).toEqual([[['z'], ['d']]])
    expect(ids(await store.around(channel, [at(20)], 2))).toEqual([[['b', 'c'], []]])
    expect(ids(await store.around(channel, [at(0)], 2))).toEqual([[[], ['a', 'b']]])
  })

  it('finds turns days away (the first words after a silence) and keeps to the channel', async () => {
    await add(
      said('m0', 0),
      said('m1', 3 * DAY),
      said('m2', 3 * DAY + 5),
      said('m3', 9 * DAY),
      said('o1', 3 * DAY + 1, { channelId: 'other', id: 'qq:other:o1' }),
      said('p1', 3 * DAY + 2, { platform: 'discord', id: 'discord:g1:p1' }),
    )
    expect(ids(await store.around(channel, [at(3 * DAY + 5), at(3 * DAY)], 2))).toEqual([
      [['m0', 'm1'], ['m3']],
      [['m0'], ['m2', 'm3']],
    ])
  })

  it('keeps bot commands in the turns (the context builder leaves them out)', async () => {
    await add(said('m0', 0), said('cmd', 10, { content: 'memory.stats', isCommand: true }), said('m2', 20))
    expect(ids(await store.around(channel, [at(20)], 2))).toEqual([[['m0', 'cmd'], []]])
  })

  it('agrees with reading every row, over busy, slow and simultaneous talk', async () => {
    const next = random(kind === 'database' ? 7 : 11)
    const rows: MessageRow[] = []
    let time = 0
    for (let i = 0; i < 400; i++) {
      const roll = next()
      // a message in the same second, seconds later, or after minutes, hours or days of silence
      time += roll < 0.1 ? 0 : roll < 0.7 ? Math.ceil(next() * 30) : roll < 0.9 ? Math.ceil(next() * 3600) : Math.ceil(next() * 5 * DAY)
      rows.push(said(`m${i}`, time, { userId: `u${i % 3}` }))
    }
    await add(...rows)
    const times = [...Array.from({ length: 24 }, () => rows[Math.floor(next() * rows.length)].createdAt), at(-1), at(time + 1)]
    for (const turns of [1, 3, 5]) {
      expect(ids(await store.around(channel, times, turns))).toEqual(times.map((t) => reference(rows, t, turns)))
    }
  })
})

describe('KoishiMessageStore.around reads', () => {
  let app: App
  let close: () => Promise<void>
  let store: KoishiMessageStore

  beforeAll(async () => {
    ;({ app, close } = await messageDatabase('memory-neighbours-'))
    store = new KoishiMessageStore(app)
  })

  afterAll(async () => {
    await close()
  })

  it('the turns of many moments of a busy chat in two queries, and not the rows the caller has', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => said(`m${i}`, i * 3))
    await store.upsert(rows)
    const hits = Array.from({ length: 24 }, (_, i) => rows[i * 25 + 3])
    const get = vi.spyOn(app.database, 'get')
    // the turn right before the first hit
    const known = { ...rows[2], content: 'as the caller read it' }
    const found = await store.around(
      channel,
      hits.map((row) => row.createdAt),
      3,
      [known],
    )
    expect(get).toHaveBeenCalledTimes(2)
    get.mockRestore()
    expect(found.map(({ before, after }) => [...before, ...after].length)).toEqual(hits.map(() => 6))
    expect(found[0].before.at(-1)).toBe(known)
  })

  it('starts where the channel needed last time: a slow chat is read in fewer queries the second time', async () => {
    const slow = { ...channel, channelId: 'slow' }
    const rows = Array.from({ length: 60 }, (_, i) => said(`s${i}`, DAY + i * 600, { channelId: 'slow', id: `qq:slow:s${i}` }))
    await store.upsert(rows)
    const get = vi.spyOn(app.database, 'get')
    // reads of ids and times, not of rows
    const timelineReads = () => get.mock.calls.filter((call) => JSON.stringify(call[2] ?? null).includes('createdAt')).length
    const moments = (from: number) => Array.from({ length: 8 }, (_, i) => rows[from + i * 5].createdAt)
    const first = await store.around(slow, moments(5), 3)
    const firstReads = timelineReads()
    get.mockClear()
    const second = await store.around(slow, moments(6), 3)
    expect(timelineReads()).toBe(1)
    expect(firstReads).toBeGreaterThan(8)
    get.mockRestore()
    for (const [i, found] of [...first, ...second].entries()) {
      const at = (i < 8 ? 5 : 6) + (i % 8) * 5
      expect([found.before, found.after].map((list) => list.map((r) => r.messageId))).toEqual([
        [at - 3, at - 2, at - 1].map((n) => `s${n}`),
        [at + 1, at + 2, at + 3].map((n) => `s${n}`),
      ])
    }
  })
})

describe('KoishiMessageStore: rows served from its cache', () => {
  let app: App
  let close: () => Promise<void>
  let store: KoishiMessageStore

  beforeAll(async () => {
    ;({ app, close } = await messageDatabase('memory-row-cache-'))
  })

  beforeEach(async () => {
    await app.database.remove('memory_message', {})
    store = new KoishiMessageStore(app)
    await store.upsert([said('m1', 0), said('m2', 10), said('m3', 20)])
    // read once: now cached
    await store.byIds(['qq:g1:m1', 'qq:g1:m2', 'qq:g1:m3'])
  })

  afterAll(async () => {
    await close()
  })

  const contents = async (...ids: string[]) =>
    (await store.byIds(ids.map((id) => `qq:g1:${id}`))).map((r) => `${r.messageId}:${r.content}:${r.topicId}`)

  it('leaves out what another writer erased and shows the topic another writer set', async () => {
    // another instance on the same database: the table changes without this store
    await app.database.remove('memory_message', { id: 'qq:g1:m2' })
    await app.database.set('memory_message', { id: 'qq:g1:m3' }, { topicId: 't9' })
    expect(await contents('m1', 'm2', 'm3')).toEqual(['m1:line m1:', 'm3:line m3:t9'])
  })

  it('reads a message again once it was erased or written again through the store', async () => {
    await store.remove(['qq:g1:m1'])
    // the same id comes back with other words (written behind the store's back, so only a dropped cache shows them)
    await app.database.upsert('memory_message', [said('m1', 0, { content: 'said anew' })])
    await store.upsert([said('m2', 10, { content: 'edited' })])
    expect(await contents('m1', 'm2')).toEqual(['m1:said anew:', 'm2:edited:'])
  })

  it('reads only the ids and topics of cached rows, and whole rows past its memory', async () => {
    const get = vi.spyOn(app.database, 'get')
    await contents('m1', 'm3')
    expect(get.mock.calls.map((call) => call[2])).toEqual([['id', 'topicId']])
    get.mockRestore()

    // room for two rows of this size, not three
    const probe = new KoishiMessageStore(app)
    await probe.byIds(['qq:g1:m1'])
    const small = new KoishiMessageStore(app, { rowBytes: Math.floor(2.5 * probe.cachedRows().bytes) })
    await small.byIds(['qq:g1:m1'])
    await small.byIds(['qq:g1:m2', 'qq:g1:m3'])
    const again = vi.spyOn(app.database, 'get')
    expect((await small.byIds(['qq:g1:m1', 'qq:g1:m3'])).map((r) => r.messageId)).toEqual(['m1', 'm3'])
    // m1 was dropped for the newer two: read whole; m3 only checked
    expect(again.mock.calls.map((call) => call[2])).toEqual([['id', 'topicId'], undefined])
    again.mockRestore()
  })
})

describe('KoishiMessageStore: lists of rows', () => {
  let app: App
  let close: () => Promise<void>

  beforeAll(async () => {
    ;({ app, close } = await messageDatabase('memory-row-lists-'))
  })

  afterAll(async () => {
    await close()
  })

  it('reads the window, a topic and a thread as ids and topics when its rows are cached, and the others whole', async () => {
    await app.database.remove('memory_message', {})
    const store = new KoishiMessageStore(app)
    const rows = [0, 10, 20, 30].map((at, i) => said(`w${i}`, at, { topicId: 't1', rootMessageId: 'w0' }))
    // w3 written behind the store's back: not cached
    await store.upsert(rows.slice(0, 3))
    await app.database.upsert('memory_message', [rows[3]])
    // another writer erases w1 and moves w2 to another topic
    await app.database.remove('memory_message', { id: 'qq:g1:w1' })
    await app.database.set('memory_message', { id: 'qq:g1:w2' }, { topicId: 't2' })
    const get = vi.spyOn(app.database, 'get')
    const window = await store.window(channel, { before: at(3600), limit: 10 })
    expect(window.map((r) => `${r.messageId}:${r.topicId}`)).toEqual(['w0:t1', 'w2:t2', 'w3:t1'])
    expect(get.mock.calls.map((call) => (call[2] as { fields?: string[] })?.fields)).toEqual([['id', 'topicId'], undefined])
    get.mockClear()
    expect((await store.byTopic('t1', { limit: 10 })).map((r) => r.messageId)).toEqual(['w0', 'w3'])
    expect((await store.byRoot(channel, 'w0', { before: at(25), limit: 10 })).map((r) => r.messageId)).toEqual(['w0', 'w2'])
    // every row is cached now: one read of ids and topics each
    expect(get).toHaveBeenCalledTimes(2)
    get.mockRestore()
  })
})
