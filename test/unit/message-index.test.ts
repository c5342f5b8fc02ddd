import { afterEach, describe, expect, it, vi } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { MessageIndex, MESSAGES_TABLE } from '../../src/messages/message-index'
import { InMemoryMessageStore } from '../fakes/message-store'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { channel, row } from '../fakes/message-rows'

function setup(options: { batchSize?: number; maxPending?: number; maxAttempts?: number; lingerMs?: number } = {}) {
  const index = new ExactIndex()
  const embedder = FakeEmbedder.wrap(new OfflineEmbedder())
  const counters = new Counters()
  const store = new InMemoryMessageStore()
  const outbox = new MemoryOutbox()
  const messages = new MessageIndex({ index, embedder, counters, logger: quiet, rows: store, outbox, lingerMs: 0, ...options })
  return { index, embedder, counters, messages, store, outbox }
}

describe('MessageIndex', () => {
  it('indexes rows in batches with the speaker, guild and channel as scope', async () => {
    const { index, messages, counters } = setup({ batchSize: 2 })
    expect(messages.table).toBe(MESSAGES_TABLE)
    const rows = [
      row('m1', 'ann', 'the build is red', 0),
      row('m2', 'bob', 'I will fix the build', 1),
      row('m3', 'ann', 'thanks', 2),
      row('m4', 'bob', '', 3),
      row('m5', 'bob', '/help', 4, { isCommand: true }),
    ]
    expect(await messages.index(rows)).toBe(3)
    expect(index.rows.size).toBe(3)
    expect(index.rows.get(rows[1].id)).toMatchObject({
      text: 'I will fix the build',
      user_id: 'bob',
      guild_id: 'g1',
      channel_id: 'c1',
      platform: 'test',
    })
    expect(counters.get('messages.indexed')).toBe(3)
  })

  it('searches within one channel only', async () => {
    const { messages } = setup()
    await messages.index([
      row('m1', 'ann', 'the build is red again', 0),
      row('x1', 'eve', 'the build is red again', 0, { channelId: 'other' }),
    ])
    const hits = await messages.search(channel, 'build red', { limit: 10 })
    expect(hits.map((hit) => hit.id)).toEqual(['test:c1:m1'])
    expect(hits[0]).toMatchObject({ userId: 'ann', text: 'the build is red again' })
    expect(hits[0].createdAt).toBeInstanceOf(Date)
    expect(await messages.search(channel, '   ', { limit: 10 })).toEqual([])
  })

  it('keeps rows that failed and indexes them on the next drain', async () => {
    const { index, messages, embedder, counters } = setup()
    embedder.down = true
    messages.add([row('m1', 'ann', 'hello there', 0)])
    await messages.flush()
    expect(index.rows.size).toBe(0)
    expect(messages.waiting).toBe(1)
    expect(counters.get('messages.index-failed')).toBe(1)
    embedder.down = false
    messages.add([row('m2', 'bob', 'general kenobi', 1)])
    await messages.flush()
    expect(index.rows.size).toBe(2)
    expect(messages.waiting).toBe(0)
  })

  it('skips and counts a row after its attempts while the store is up', async () => {
    const { messages, embedder, counters } = setup({ maxAttempts: 2 })
    embedder.down = true
    messages.add([row('m1', 'ann', 'hello there', 0)])
    await messages.flush()
    await messages.flush()
    expect(messages.waiting).toBe(0)
    expect(counters.get('messages.index-skipped')).toBe(1)
  })

  it('does not spend attempts while the store is out, but bounds what waits', async () => {
    const { index, messages, counters } = setup({ maxAttempts: 1, maxPending: 3 })
    index.down = true
    index.state = 'open'
    for (let i = 0; i < 5; i++) {
      messages.add([row(`m${i}`, 'ann', `message number ${i}`, i)])
      await messages.flush()
    }
    expect(messages.waiting).toBe(3)
    expect(counters.get('messages.index-skipped')).toBe(2)
    index.down = false
    index.state = 'ready'
    await messages.flush()
    expect([...index.rows.keys()]).toEqual(['test:c1:m2', 'test:c1:m3', 'test:c1:m4'])
  })

  it('rebuilds from the database, leaving out commands, and removes rows', async () => {
    const { index, messages, store } = setup()
    store.add(
      row('m1', 'ann', 'one', 0),
      row('m2', 'bob', 'two', 1),
      row('m3', 'ann', 'three', 2),
      row('m4', 'ann', '/help', 3, { isCommand: true }),
    )
    await index.upsert(MESSAGES_TABLE, [
      {
        id: 'stale',
        text: 'gone',
        vector: new Float32Array(1),
        platform: 'test',
        user_id: 'x',
        guild_id: '',
        channel_id: 'c1',
        created_at: 0,
      },
    ])
    expect(await messages.indexed.rebuild()).toBe(3)
    expect(await messages.indexed.drain()).toEqual({ indexed: 3, pending: false })
    expect([...index.rows.keys()].sort()).toEqual(['test:c1:m1', 'test:c1:m2', 'test:c1:m3'])
    await messages.remove(['test:c1:m2'])
    expect([...index.rows.keys()].sort()).toEqual(['test:c1:m1', 'test:c1:m3'])
  })

  it('queues the removal of erased rows while the store is down, and the drain carries it out', async () => {
    const { index, outbox, counters, messages } = setup()
    const rows = [row('m1', 'ann', '我的手机号是 13800000000', 0), row('m2', 'bob', 'noted', 1)]
    await messages.index(rows)
    index.down = true
    await messages.remove([rows[0].id])
    expect(counters.get('messages.remove-failed')).toBe(1)
    expect(outbox.rows.map((r) => [r.table, r.rowId, r.op])).toEqual([[MESSAGES_TABLE, rows[0].id, 'delete']])
    expect(await messages.indexed.drain()).toEqual({ indexed: 0, pending: true })
    index.down = false
    expect(await messages.indexed.drain()).toEqual({ indexed: 1, pending: false })
    expect([...index.rows.keys()]).toEqual([rows[1].id])
    expect(outbox.rows).toEqual([])
  })

  it('throws from search when the index is down (the builder copes)', async () => {
    const { index, messages } = setup()
    await messages.index([row('m1', 'ann', 'hello', 0)])
    index.down = true
    await expect(messages.search(channel, 'hello', { limit: 3 })).rejects.toThrow()
  })

  describe('writes few, larger batches', () => {
    afterEach(() => vi.useRealTimers())

    /** The index's writes, each the ids it wrote; `hold` keeps the writes open until `release`. */
    function counted(index: ExactIndex) {
      const writes: string[][] = []
      let gate: Promise<void> | undefined
      let open = () => {}
      const upsert = index.upsert.bind(index)
      index.upsert = async (table, rows) => {
        writes.push(rows.map((r) => r.id))
        await gate
        return upsert(table, rows)
      }
      return {
        writes,
        hold: () => void (gate = new Promise((resolve) => (open = resolve))),
        release: () => {
          open()
          gate = undefined
        },
      }
    }

    it('lets new rows wait for more, and writes a full batch at once', async () => {
      vi.useFakeTimers()
      const { index, messages } = setup({ batchSize: 4, lingerMs: 1000 })
      const { writes } = counted(index)
      for (let i = 0; i < 3; i++) messages.add([row(`m${i}`, 'ann', `line ${i}`, i)])
      await vi.advanceTimersByTimeAsync(900)
      expect(writes).toEqual([])
      expect(messages.waiting).toBe(3)
      await vi.advanceTimersByTimeAsync(100)
      expect(writes).toEqual([['test:c1:m0', 'test:c1:m1', 'test:c1:m2']])
      // a full batch goes now; the part batch after it lingers
      messages.add([0, 1, 2, 3, 4].map((i) => row(`n${i}`, 'bob', `more ${i}`, 10 + i)))
      await vi.advanceTimersByTimeAsync(0)
      expect(writes.slice(1)).toEqual([['test:c1:n0', 'test:c1:n1', 'test:c1:n2', 'test:c1:n3']])
      expect(messages.waiting).toBe(1)
      await vi.advanceTimersByTimeAsync(1000)
      expect(writes.slice(2)).toEqual([['test:c1:n4']])
      expect(index.rows.size).toBe(8)
    })

    it('never writes a row that is forgotten while it waits', async () => {
      vi.useFakeTimers()
      const { index, messages } = setup({ batchSize: 4, lingerMs: 1000 })
      const { writes } = counted(index)
      messages.add([row('m1', 'ann', '我的手机号是 13800000000', 1), row('m2', 'ann', 'noted', 2)])
      await messages.remove(['test:c1:m1'])
      await vi.advanceTimersByTimeAsync(1000)
      expect(writes).toEqual([['test:c1:m2']])
      expect([...index.rows.keys()]).toEqual(['test:c1:m2'])
    })

    it('flush writes what waits now, and rows that come during a write wait for the next', async () => {
      vi.useFakeTimers()
      const { index, messages } = setup({ batchSize: 4, lingerMs: 1000 })
      const { writes, hold, release } = counted(index)
      messages.add([row('m1', 'ann', 'one', 1), row('m2', 'ann', 'two', 2)])
      hold()
      const flushed = messages.flush()
      await vi.advanceTimersByTimeAsync(0)
      expect(writes).toEqual([['test:c1:m1', 'test:c1:m2']])
      messages.add([row('m3', 'bob', 'three', 3)])
      release()
      await flushed
      expect(writes).toHaveLength(1)
      expect(messages.waiting).toBe(1)
      await vi.advanceTimersByTimeAsync(1000)
      expect(writes.slice(1)).toEqual([['test:c1:m3']])
      expect(messages.waiting).toBe(0)
    })
  })
})
