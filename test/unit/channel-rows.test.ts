import { describe, expect, it } from 'vitest'
import { ChannelRows } from '../../src/messages/channel-rows'
import { InMemoryMessageStore } from '../fakes/message-store'
import type { MessageRow } from '../../src/messages/table'
import { at } from '../fakes/clock'
import { message } from '../fakes/message-rows'

const channel = { platform: 'qq', guildId: 'g1', channelId: 'g1' }
const ids = (rows: MessageRow[]) => rows.map((row) => row.id)

describe('ChannelRows', () => {
  it('answers every read as the reference store does, through writes, erasures and new topics', async () => {
    let seed = 11
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]
    // distinct times: the reference orders messages of one time by arrival, the rows by id
    const times = Array.from({ length: 400 }, (_, i) => i * 7).sort(() => random() - 0.5)
    const said = (i: number) =>
      message({
        messageId: `m${i}`,
        userId: pick(['ann', 'bob']),
        content: `line ${i}`,
        at: times[i],
        topicId: pick(['', 't1', 't2', 't3']),
        rootMessageId: pick([`m${i}`, 'm1', 'm2']),
      })
    let reference = new InMemoryMessageStore()
    const first = Array.from({ length: 200 }, (_, i) => said(i))
    reference.add(...first.map((row) => ({ ...row })))
    const rows = new ChannelRows(first)
    for (let step = 0; step < 600; step++) {
      const roll = random()
      const id = `qq:g1:m${Math.floor(random() * 300)}`
      if (roll < 0.5) {
        const row = said(Number(id.split(':m')[1]))
        rows.upsert(row)
        reference.add({ ...row })
      } else if (roll < 0.7) {
        rows.remove(id)
        // the reference has no erasure: a fresh one of the rows left stands for it
        const left = (await reference.byIds([...Array(300).keys()].map((i) => `qq:g1:m${i}`))).filter((row) => row.id !== id)
        reference = new InMemoryMessageStore()
        reference.add(...left.map((row) => ({ ...row })))
      } else {
        const topic = pick(['t1', 't2', 't4'])
        rows.setTopic(id, topic)
        await reference.setTopic([id], topic)
      }
      const before = at(pick(times) + 1)
      const limit = 1 + Math.floor(random() * 30)
      const since = at(pick(times))
      expect(ids(rows.window({ before, limit }))).toEqual(ids(await reference.window(channel, { before, limit })))
      expect(ids(rows.window({ since, before, limit }))).toEqual(ids(await reference.window(channel, { since, before, limit })))
      const topic = pick(['t1', 't2', 't3', 't4'])
      expect(ids(rows.byTopic(topic, { before, limit }))).toEqual(ids(await reference.byTopic(topic, { before, limit })))
      expect(ids(rows.byTopic(topic, { limit }))).toEqual(ids(await reference.byTopic(topic, { limit })))
      const root = pick(['m1', 'm2', `m${step % 300}`])
      expect(ids(rows.byRoot(root, { before, limit }))).toEqual(ids(await reference.byRoot(channel, root, { before, limit })))
      const [near] = await reference.around(channel, [before], 3)
      const found = rows.around(before, 3)
      expect([ids(found.before), ids(found.after)]).toEqual([ids(near.before), ids(near.after)])
      expect(rows.get(id)?.topicId).toBe((await reference.byIds([id]))[0]?.topicId)
    }
    expect(rows.size).toBe((await reference.indexableIds()).length)
  })

  it('counts its memory, and gives back what a row held once it is gone', () => {
    const rows = new ChannelRows([])
    const row = message({ messageId: 'x', userId: 'ann', content: '一句相当长的话'.repeat(10) })
    rows.upsert(row)
    const held = rows.bytes
    expect(held).toBeGreaterThan(2 * row.content.length)
    rows.setTopic(row.id, 'a-topic')
    expect(rows.bytes).toBe(held + 2 * 'a-topic'.length)
    rows.remove(row.id)
    expect(rows.bytes).toBe(0)
  })
})
