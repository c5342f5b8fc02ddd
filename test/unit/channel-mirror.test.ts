import { describe, expect, it } from 'vitest'
import type { Clock, Where } from '../../src/messages/channel-clock'
import { channelKey } from '../../src/messages/channel-clock'
import { ChannelMirror } from '../../src/messages/channel-mirror'
import { message } from '../fakes/message-rows'
import { quiet } from '../fakes/logger'

const channel = { platform: 'qq', channelId: 'g1' }

/** The database's clock, with announcements that take as long as the test says. */
class SlowClock implements Clock {
  versions = new Map<string, number>()
  ticks = 0
  inFlight = 0
  mostInFlight = 0
  release?: () => void

  async read(channels: Where[]) {
    return new Map(channels.map((c) => [channelKey(c), this.versions.get(channelKey(c)) ?? 0]))
  }

  async tick(channels: Where[]) {
    this.ticks++
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight)
    await new Promise<void>((resolve) => (this.release = resolve))
    this.inFlight--
    for (const c of channels) this.versions.set(channelKey(c), (this.versions.get(channelKey(c)) ?? 0) + 1)
    return this.read(channels)
  }
}

const rows = [0, 1, 2].map((i) => message({ messageId: `m${i}`, userId: 'ann', content: `line ${i}`, at: i }))

async function heldMirror(clock: SlowClock) {
  const mirror = new ChannelMirror({
    capBytes: 2 ** 20,
    clock,
    logger: quiet,
    reads: { count: async () => rows.length, page: async (_c, after) => (after ? [] : rows) },
  })
  expect(await mirror.fresh(channel)).toBeUndefined()
  await mirror.settled()
  expect((await mirror.fresh(channel))?.size).toBe(3)
  return mirror
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('ChannelMirror', () => {
  it('announces own writes one announcement at a time, and a read meanwhile goes to the table without waiting', async () => {
    const clock = new SlowClock()
    const mirror = await heldMirror(clock)
    mirror.wrote(channel, (held) => held.upsert(message({ messageId: 'm3', userId: 'ann', content: 'new', at: 3 })))
    await until(() => clock.inFlight === 1)
    // writes that land while the announcement hangs wait for the next one
    for (let i = 4; i < 40; i++)
      mirror.wrote(channel, (held) => held.upsert(message({ messageId: `m${i}`, userId: 'ann', content: 'x', at: i })))
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(clock.ticks).toBe(1)
    // the clock cannot tell whether it counts the announcement under way: the read is left to the table
    expect(await mirror.fresh(channel)).toBeUndefined()
    clock.release!()
    await until(() => clock.ticks === 2)
    clock.release!()
    await mirror.settled()
    expect(clock.mostInFlight).toBe(1)
    // both announcements were its own: the rows still stand for the table
    expect((await mirror.fresh(channel))?.size).toBe(40)
  })

  it('drops a held channel once the clock shows a write it did not make', async () => {
    const clock = new SlowClock()
    const mirror = await heldMirror(clock)
    clock.versions.set(channelKey(channel), 7)
    expect(await mirror.fresh(channel)).toBeUndefined()
    expect(mirror.stats().channels).toBe(0)
  })

  it('makes room when held channels grow past the cap, dropping one not read for a minute', async () => {
    let now = 0
    const other = { platform: 'qq', channelId: 'g2' }
    const mirror = new ChannelMirror({
      capBytes: 3000,
      clock: new SlowClock(),
      logger: quiet,
      now: () => now,
      reads: { count: async () => rows.length, page: async (_c, after) => (after ? [] : rows) },
    })
    for (const c of [channel, other]) {
      await mirror.fresh(c)
      await mirror.settled()
    }
    expect(mirror.stats().channels).toBe(2)
    now = 61_000
    // the second channel is read now; the first was last read a minute ago
    await mirror.fresh(other)
    const long = 'a long line '.repeat(40)
    mirror.wrote(other, (held) => held.upsert(message({ messageId: 'big', userId: 'ann', content: long, at: 9 })))
    expect(mirror.stats()).toMatchObject({ channels: 1 })
    expect(mirror.stats().bytes).toBeLessThanOrEqual(3000)
  })
  it('holds to the cap when channels in use grow past it: the least recently read goes anyway', async () => {
    const other = { platform: 'qq', channelId: 'g2' }
    const mirror = new ChannelMirror({
      capBytes: 3000,
      clock: new SlowClock(),
      logger: quiet,
      now: () => 0,
      reads: { count: async () => rows.length, page: async (_c, after) => (after ? [] : rows) },
    })
    for (const c of [channel, other]) {
      await mirror.fresh(c)
      await mirror.settled()
    }
    // both read this minute; the second grows past the cap
    const long = 'a long line '.repeat(40)
    mirror.wrote(other, (held) => held.upsert(message({ messageId: 'big', userId: 'ann', content: long, at: 9 })))
    expect(mirror.stats()).toMatchObject({ channels: 1 })
    expect(mirror.stats().bytes).toBeLessThanOrEqual(3000)
    expect(mirror.channelOf(message({ messageId: 'big', userId: 'ann', content: long, at: 9 }).id)).toBeDefined()
  })
})
