import type { App } from 'koishi'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { KoishiMessageStore } from '../../src/messages'
import type { MessageRow } from '../../src/messages'
import { at } from '../fakes/clock'
import { message } from '../fakes/message-rows'
import { messageDatabase } from './database'

const channel = { platform: 'qq', guildId: 'g1', channelId: 'g1' }
const said = (messageId: string, seconds: number, extra: Partial<MessageRow> = {}) =>
  message({ messageId, userId: 'ann', content: `line ${messageId}`, at: seconds, ...extra })
const names = (rows: MessageRow[]) => rows.map((row) => `${row.messageId}:${row.topicId}`)
const MB = 2 ** 20

/** Reads of the message table (the clock's are not). */
function messageReads(app: App) {
  const get = vi.spyOn(app.database, 'get')
  return {
    count: () => get.mock.calls.filter((call) => call[0] === 'memory_message').length,
    restore: () => get.mockRestore(),
  }
}

describe('KoishiMessageStore: channels held in memory', () => {
  let app: App
  let close: () => Promise<void>
  let store: KoishiMessageStore
  /** Another instance on the same database. */
  let other: KoishiMessageStore

  beforeAll(async () => {
    ;({ app, close } = await messageDatabase('memory-mirror-'))
  })

  afterAll(async () => {
    await close()
  })

  afterEach(() => {
    vi.restoreAllMocks()
  })

  beforeEach(async () => {
    await app.database.remove('memory_message', {})
    other = new KoishiMessageStore(app)
    await other.upsert(Array.from({ length: 40 }, (_, i) => said(`m${i}`, i * 10, { topicId: i % 2 ? 't1' : 't2' })))
    await other.settled()
    store = new KoishiMessageStore(app, { heldBytes: MB })
    // the first read loads the channel beside it
    await store.window(channel, { before: at(1000), limit: 5 })
    await store.settled()
  })

  it('answers a held channel without reading the message table, the same as the table', async () => {
    const plain = new KoishiMessageStore(app)
    const reads = messageReads(app)
    const window = await store.window(channel, { since: at(100), before: at(300), limit: 8 })
    const topic = await store.byTopic('t1', { before: at(200), limit: 3, channel })
    const around = await store.around(channel, [at(200)], 2)
    const byIds = await store.byIds(['qq:g1:m3', 'qq:g1:m7'])
    const thread = await store.byRoot(channel, 'm4', { before: at(1000), limit: 5 })
    expect(reads.count()).toBe(0)
    reads.restore()
    expect(names(window)).toEqual(names(await plain.window(channel, { since: at(100), before: at(300), limit: 8 })))
    expect(names(window)).toHaveLength(8)
    expect(names(topic)).toEqual(['m15:t1', 'm17:t1', 'm19:t1'])
    expect(names(topic)).toEqual(names(await plain.byTopic('t1', { before: at(200), limit: 3 })))
    expect(around).toEqual(await plain.around(channel, [at(200)], 2))
    expect(names(byIds)).toEqual(['m3:t1', 'm7:t1'])
    // an id no held channel has is looked for in the table
    expect(await store.byIds(['qq:g1:nope'])).toEqual([])
    expect(names(thread)).toEqual(['m4:t2'])
    expect(store.held()).toMatchObject({ channels: 1, rows: 40 })
  })

  it('keeps its own writes, erasures and topics in step with the table', async () => {
    await store.upsert([said('new', 500)])
    await store.remove(['qq:g1:m0'])
    await store.setTopic(['qq:g1:m1'], 't9')
    await store.settled()
    const reads = messageReads(app)
    const window = await store.window(channel, { before: at(1000), limit: 100 })
    expect(reads.count()).toBe(0)
    reads.restore()
    expect(names(window)).toEqual(names(await new KoishiMessageStore(app).window(channel, { before: at(1000), limit: 100 })))
    expect(names(window).slice(0, 1)).toEqual(['m1:t9'])
    expect(names(window).at(-1)).toBe('new:')
  })

  it('reads the table again once another instance wrote the channel: nothing it erased comes back', async () => {
    await other.remove(['qq:g1:m5'])
    await other.setTopic(['qq:g1:m6'], 't7')
    await other.settled()
    expect(names(await store.byIds(['qq:g1:m5', 'qq:g1:m6']))).toEqual(['m6:t7'])
    expect(names(await store.window(channel, { before: at(70), limit: 2 }))).toEqual(['m4:t2', 'm6:t7'])
    expect(store.held()).toMatchObject({ channels: 0 })
  })

  it('does not keep a load that another instance wrote during, and leaves the channel to the table', async () => {
    const late = new KoishiMessageStore(app, { heldBytes: MB })
    const get = app.database.get.bind(app.database)
    let wrote = false
    vi.spyOn(app.database, 'get').mockImplementation(async (table: any, query: any, options?: any) => {
      // the other instance writes while the load reads its page
      if (table === 'memory_message' && options?.sort?.id === 'asc' && !wrote) {
        wrote = true
        await other.upsert([said('during', 900)])
        await other.settled()
      }
      return get(table, query, options)
    })
    await late.window(channel, { before: at(1000), limit: 5 })
    await late.settled()
    expect(wrote).toBe(true)
    expect(late.held()).toMatchObject({ channels: 0 })
    expect(names(await late.window(channel, { before: at(1000), limit: 1 }))).toEqual(['during:'])
  })

  it('holds no channel bigger than its memory, and none with no memory', async () => {
    const small = new KoishiMessageStore(app, { heldBytes: 1000 })
    await small.window(channel, { before: at(1000), limit: 5 })
    await small.settled()
    expect(small.held()).toMatchObject({ channels: 0 })
    const none = new KoishiMessageStore(app)
    await none.window(channel, { before: at(1000), limit: 5 })
    await none.settled()
    expect(none.held()).toMatchObject({ channels: 0, capBytes: 0 })
  })

  it('drops a channel whose write failed, since the table may hold part of it', async () => {
    const upsert = vi.spyOn(app.database, 'upsert').mockRejectedValueOnce(new Error('disk full'))
    await expect(store.upsert([said('lost', 600)])).rejects.toThrow('disk full')
    upsert.mockRestore()
    expect(store.held()).toMatchObject({ channels: 0 })
    expect(names(await store.window(channel, { before: at(1000), limit: 1 }))).toEqual(['m39:t1'])
  })
})
