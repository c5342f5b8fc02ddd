import { describe, expect, it } from 'vitest'
import { termStatsOf } from '../../src/text/bm25'
import { TermStats } from '../../src/context/term-stats'
import { InMemoryMessageStore } from '../fakes/message-store'
import { at } from '../fakes/clock'
import { channel, row, T0 } from '../fakes/message-rows'

describe('TermStats', () => {
  it('weights rare terms above common ones, per channel', () => {
    const stats = new TermStats()
    for (let i = 0; i < 30; i++) stats.add(channel, i % 10 ? 'the build is green' : 'the build is red, deploy blocked')
    const view = stats.view(channel)!
    expect(view.documents).toBe(30)
    expect(view.idf('red')).toBeGreaterThan(view.idf('build'))
    expect(view.idf('never')).toBeGreaterThan(view.idf('red'))
    expect(view.averageLength).toBeGreaterThan(1)
    expect(stats.view({ ...channel, channelId: 'other' })).toBeUndefined()
    expect(stats.view(channel, 100)).toBeUndefined()
  })

  it('keeps within its bytes: the least recently fed channel leaves first, a channel past a quarter halves', () => {
    const feed = (stats: TermStats, id: string) => {
      for (let i = 0; i < 20; i++) stats.add({ platform: 'p', channelId: id }, `word${i} shared`)
    }
    const one = new TermStats()
    feed(one, 'a')
    const channelBytes = one.held().bytes
    // room for four such channels, not five
    const stats = new TermStats({ capBytes: Math.floor(4.5 * channelBytes) })
    for (const id of ['a', 'b', 'c', 'd']) feed(stats, id)
    expect(stats.held().entries).toBe(4)
    // a was fed longest ago: fed again it stays, and b leaves when e needs the room
    stats.add({ platform: 'p', channelId: 'a' }, 'word1 shared')
    feed(stats, 'e')
    expect(stats.held().bytes).toBeLessThanOrEqual(4.5 * channelBytes)
    expect(['a', 'b', 'c', 'd', 'e'].filter((id) => stats.view({ platform: 'p', channelId: id }, 1))).toEqual(['a', 'c', 'd', 'e'])
    // one channel never takes more than a quarter: its counts halve and its rarest terms drop out
    for (let i = 0; i < 200; i++) stats.add({ platform: 'p', channelId: 'big' }, `term${i} shared`)
    expect(stats.held().bytes).toBeLessThanOrEqual(4.5 * channelBytes)
    const big = stats.view({ platform: 'p', channelId: 'big' }, 1)!
    expect(big.idf('term3')).toBeGreaterThan(big.idf('term199'))
  })

  it('keeps nothing with a cap of 0', () => {
    const stats = new TermStats({ capBytes: 0 })
    for (let i = 0; i < 30; i++) stats.add(channel, 'the build is green')
    expect(stats.view(channel)).toBeUndefined()
    expect(stats.held()).toEqual({ bytes: 0, entries: 0 })
  })

  it('needs enough messages before it speaks for a channel, and computes pool statistics', () => {
    const stats = new TermStats()
    for (let i = 0; i < 19; i++) stats.add(channel, 'hello world')
    expect(stats.view(channel)).toBeUndefined()
    stats.add(channel, 'goodbye moon')
    expect(stats.view(channel)?.documents).toBe(20)
    const pool = termStatsOf(['cat dog', 'cat', '', 'bird'])
    expect(pool.documents).toBe(3)
    expect(pool.idf('bird')).toBeGreaterThan(pool.idf('cat'))
  })
})

describe('InMemoryMessageStore', () => {
  it('answers the MessageStore port oldest first', async () => {
    const store = new InMemoryMessageStore()
    store.add(
      row('m2', 'b', 'two', 2),
      row('m1', 'a', 'one', 1),
      row('m3', 'a', 'three', 3, { replyMessageId: 'm1', topicId: 't' }),
      row('x', 'a', 'x', 2, { channelId: 'other' }),
    )
    expect((await store.window(channel, { before: at(3 * 60, T0), limit: 5 })).map((r) => r.messageId)).toEqual(['m1', 'm2'])
    expect((await store.window(channel, { before: at(9 * 60, T0), limit: 2 })).map((r) => r.messageId)).toEqual(['m2', 'm3'])
    expect((await store.window(channel, { since: at(2 * 60, T0), before: at(9 * 60, T0), limit: 5 })).map((r) => r.messageId)).toEqual([
      'm2',
      'm3',
    ])
    const [near] = await store.around(channel, [at(2 * 60, T0)], 1)
    expect([near.before, near.after].map((list) => list.map((r) => r.messageId))).toEqual([['m1'], ['m3']])
    expect((await store.byMessageIds(channel, ['m3', 'x'])).map((r) => r.messageId)).toEqual(['m3'])
    expect((await store.byIds(['test:c1:m3', 'test:c1:m1'])).map((r) => r.messageId)).toEqual(['m1', 'm3'])
    expect((await store.byRoot(channel, 'm1', { before: at(9 * 60, T0), limit: 5 })).map((r) => r.messageId)).toEqual(['m1', 'm3'])
    expect((await store.byTopic('t', { before: at(9 * 60, T0), limit: 5 })).map((r) => r.messageId)).toEqual(['m3'])
    await store.setTopic(['test:c1:m1'], 't')
    expect((await store.byTopic('t', { before: at(9 * 60, T0), limit: 5 })).map((r) => r.messageId)).toEqual(['m1', 'm3'])
    store.add(row('m1', 'a', 'one edited', 5))
    expect(store.size).toBe(4)
    expect((await store.window(channel, { before: at(9 * 60, T0), limit: 9 })).map((r) => r.messageId)).toEqual(['m2', 'm3', 'm1'])
  })
})
