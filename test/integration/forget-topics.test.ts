import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, say } from './harness'

// alice opens a topic about badminton and says most of it; bob joins it once; a second topic is hers alone
const ALICE = ['周五晚上去打羽毛球吗', '羽毛球场地我来订，七点到九点', '羽毛球拍我带两支，大家别忘了带球鞋']
const BOB = '羽毛球我也去，顺便带点饮料'
const ALONE = ['最近想换显卡，4070 还是 7800XT', '4070 显卡功耗低，光追也好一些']

describe('forget --all and the topics the user talked in', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({ memorize: { enabled: false } })
    for (const text of ALICE) await say(h.app, 'alice', text, 'g1')
    await say(h.app, 'bob', BOB, 'g1')
    for (const text of ALONE) await say(h.app, 'alice', text, 'g2')
  })

  afterEach(() => h.stop())

  it('rewords a shared topic from what is left and removes a topic with nothing left', async () => {
    const [shared] = await h.app.database.get('memory_topic', { channelId: 'g1' })
    const [hers] = await h.app.database.get('memory_topic', { channelId: 'g2' })
    expect(shared.creatorId).toBe('alice')
    expect(JSON.stringify(shared.keywords)).toContain('球鞋')
    expect(hers).toBeDefined()

    const [erased] = await h.app.mock.client('alice').receive('memory.forget --all -y')
    expect(erased).toBeTruthy()

    const [after] = await h.app.database.get('memory_topic', { id: shared.id })
    expect(after.messageCount).toBe(1)
    expect(after.creatorId).toBe('')
    const words = JSON.stringify([after.title, after.keywords])
    for (const word of ['球鞋', '场地', '周五', '球拍']) expect(words).not.toContain(word)
    expect(words).toContain('饮料')
    expect(await h.app.database.get('memory_topic', { id: hers.id })).toEqual([])
  })
})
