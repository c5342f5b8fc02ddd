import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, say } from './harness'

const BADMINTON = ['周五晚上去打羽毛球吗', '羽毛球场地我来订，七点到九点', '羽毛球拍我带两支，大家别忘了带球鞋', '打完羽毛球一起去吃宵夜']
const GPU = [
  '最近想换显卡，4070 还是 7800XT',
  '4070 显卡功耗低，光追也好一些',
  '7800XT 显卡显存大，价格也便宜',
  '显卡现在降价了，4070 三千多',
]

describe('topics in a group chat', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({ memorize: { enabled: false } })
    await h.app.mock.initUser('mod', 2)
    await h.app.mock.initUser('alice', 1)
    // two conversations interleaved line by line, by different people
    for (let i = 0; i < BADMINTON.length; i++) {
      await say(h.app, 'alice', BADMINTON[i], 'g1')
      await say(h.app, 'bob', GPU[i], 'g1')
    }
  })

  afterEach(() => h.stop())

  it('attributes interleaved lines to two topics', async () => {
    const rows = await h.app.database.get('memory_message', { channelId: 'g1' })
    const topicOf = (text: string) => rows.find((row) => row.content === text)!.topicId
    expect(topicOf(BADMINTON[0])).not.toBe('')
    expect(new Set(BADMINTON.map(topicOf)).size).toBe(1)
    expect(new Set(GPU.map(topicOf)).size).toBe(1)
    expect(topicOf(BADMINTON[0])).not.toBe(topicOf(GPU[0]))
    const raw = await h.app.memory.topicMessages(topicOf(GPU[0]))
    expect(raw.map((row) => row.content)).toEqual(GPU)
    const second = rows.find((row) => row.content === GPU[1])!.createdAt
    const later = await h.app.memory.topicMessages(topicOf(GPU[0]), { since: second })
    expect(later.map((row) => row.content)).toEqual(GPU.slice(1))
  })

  it('summarises a topic by hand (offline, marked so) and shows it with its quality', async () => {
    const [denied] = await h.app.mock.client('alice', 'g1').receive('memory.summarize')
    expect(denied).toMatch(/权限/)
    const [made] = await h.app.mock.client('mod', 'g1').receive('memory.summarize')
    expect(made).toContain('离线摘要')
    const [topic] = await h.app.database.get('memory_topic', { channelId: 'g1' }, { sort: { lastMessageAt: 'desc' }, limit: 1 })
    const [shown] = await h.app.mock.client('alice', 'g1').receive(`memory.topic ${topic.id}`)
    expect(shown).toContain('覆盖率')
    expect(shown).toContain('第 1 版')
    const [elsewhere] = await h.app.mock.client('alice', 'g2').receive(`memory.topic ${topic.id}`)
    expect(elsewhere).toBe('这里没有这个话题。')

    // the deep search tool finds the summary through the hybrid summary search, in this channel only
    await h.app.memory.flushOutbox()
    const session = h.app.mock.session({ type: 'message', channel: { id: 'g1', type: 0 }, guild: { id: 'g1' }, user: { id: 'alice' } })
    const tool = h.app.memory.searchTool(session)
    expect(tool.name).toBe('search_chat_history')
    const found = await tool.handler({ query: topic.title })
    expect(found.result.summaries.map((hit) => hit.topicId)).toContain(topic.id)
    const other = h.app.mock.session({ type: 'message', channel: { id: 'g2', type: 0 }, guild: { id: 'g2' }, user: { id: 'alice' } })
    expect((await h.app.memory.searchTool(other).handler({ query: topic.title })).result.summaries).toEqual([])
  })
})
