import { describe, expect, it } from 'vitest'
import { MessageRecorder } from '../../src/capture/recorder'
import { Counters } from '../../src/core/observability'
import type { MessageRow } from '../../src/messages/table'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

function row(messageId: string, extra: Partial<MessageRow> = {}): MessageRow {
  return {
    id: `qq:c:${messageId}`,
    messageId,
    platform: 'qq',
    guildId: 'g',
    channelId: 'c',
    userId: 'u',
    userName: 'U',
    content: messageId,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: messageId,
    topicId: '',
    createdAt: new Date(0),
    ...extra,
  }
}

function recorder(write: (rows: MessageRow[]) => Promise<void>, batchSize = 3, maxBuffered = 100) {
  const timers: (() => void)[] = []
  const counters = new Counters()
  const r = new MessageRecorder(
    { write },
    {
      batchSize,
      intervalMs: 10,
      maxBuffered,
      rootCacheSize: 2,
      counters,
      logger: quiet,
      schedule: (callback) => {
        timers.push(callback)
        return () => timers.splice(timers.indexOf(callback), 1)
      },
    },
  )
  return { r, timers, counters }
}

describe('MessageRecorder', () => {
  it('writes in batches, and on the timer what is left', async () => {
    const batches: string[][] = []
    const { r, timers } = recorder(async (rows) => void batches.push(rows.map((x) => x.messageId)))
    for (const id of ['1', '2', '3', '4']) r.add(row(id))
    await r.flush()
    expect(batches).toEqual([['1', '2', '3'], ['4']])
    r.add(row('5'))
    expect(timers).toHaveLength(1)
    timers[0]()
    await r.flush()
    expect(batches.at(-1)).toEqual(['5'])
  })

  it('keeps rows whose write failed for the next flush', async () => {
    let fail = true
    const written: string[] = []
    const { r, counters } = recorder(async (rows) => {
      if (fail) throw new Error('db down')
      written.push(...rows.map((x) => x.messageId))
    }, 10)
    r.add(row('1'))
    r.add(row('2'))
    await r.flush()
    expect(counters.get('capture.write-failed')).toBe(1)
    fail = false
    await r.flush()
    expect(written).toEqual(['1', '2'])
  })

  it('drops a row the database refuses and writes the rest of its batch, never retrying it forever', async () => {
    const written: string[] = []
    const { r, counters } = recorder(async (rows) => {
      if (rows.some((x) => x.content.includes('\u0000'))) throw new Error('unrecognized token')
      written.push(...rows.map((x) => x.messageId))
    }, 10)
    r.add(row('1'))
    r.add(row('2', { content: 'bad\u0000row' }))
    r.add(row('3'))
    await r.flush()
    expect(written).toEqual(['1', '3'])
    expect(counters.get('capture.rejected')).toBe(1)
    expect(r.pending).toBe(0)
    r.add(row('4'))
    await r.flush()
    expect(written).toEqual(['1', '3', '4'])
  })

  it('sets aside a row the database refuses alone while it answers reads, rather than retrying it at every flush', async () => {
    const aside: unknown[] = []
    const counters = new Counters()
    let writes = 0
    const r = new MessageRecorder(
      {
        write: async () => {
          writes++
          throw new Error('unrecognized token')
        },
        answers: async () => true,
      },
      {
        batchSize: 10,
        intervalMs: 10,
        maxBuffered: 100,
        rootCacheSize: 2,
        counters,
        logger: quiet,
        schedule: () => () => {},
        journal: { append() {}, seal: () => undefined, release() {}, setAside: (_name, rows) => (aside.push(...rows), 'rejected-x.jsonl') },
      },
    )
    r.add(row('1', { content: 'bad\u0000row' }))
    await r.flush()
    expect(r.pending).toBe(0)
    expect(aside).toMatchObject([{ row: { messageId: '1' }, reason: 'unrecognized token' }])
    expect(counters.get('capture.rejected')).toBe(1)
    await r.flush()
    expect(writes).toBe(1)
  })

  it('drops and counts past the buffer bound', async () => {
    const { r, counters } = recorder(() => new Promise(() => {}), 100, 2)
    for (const id of ['1', '2', '3']) r.add(row(id))
    expect(r.pending).toBe(2)
    expect(counters.get('capture.dropped')).toBe(1)
  })

  it('resolves the root of a reply chain from recent messages', () => {
    const { r } = recorder(async () => {})
    r.add(row('1'))
    r.add(row('2', { replyMessageId: '1', rootMessageId: r.rootOf('qq', 'c', '1') }))
    expect(r.rootOf('qq', 'c', '2')).toBe('1')
    expect(r.rootOf('qq', 'c', 'unknown')).toBe('unknown')
  })

  it('forgets buffered rows of a user', async () => {
    const written: string[] = []
    const { r } = recorder(async (rows) => void written.push(...rows.map((x) => x.messageId)), 10)
    r.add(row('1', { userId: 'a' }))
    r.add(row('2', { userId: 'b' }))
    r.dropUser('qq', 'a')
    await r.flush()
    expect(written).toEqual(['2'])
  })
})
