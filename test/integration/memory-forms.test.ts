import { afterEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, factsOf, say } from './harness'
import { internalsOf } from '../../src/compose'

/** Issue 26, item 2: the owner sees what waits to be memorised, and can have it memorised now. */
describe('memory forming where the owner sees it', () => {
  let h: Harness | undefined

  afterEach(async () => {
    await h?.stop()
    h = undefined
  })

  it('memory.list says what waits in a private chat and by when; memory.flush memorises it now', async () => {
    h = await boot()
    await h.app.mock.initUser('alice', 3)
    await say(h.app, 'alice', '我住在成都')
    await say(h.app, 'alice', '我养了一只猫，叫咪咪')
    const client = h.app.mock.client('alice')
    const [before] = await client.receive('memory.list')
    // the default private quiet time is a minute: the list says so instead of "nothing"
    expect(before).toContain('还没有记住任何事')
    expect(before).toContain('你还有 2 条消息等待记忆，一分钟内完成')
    expect(before).toContain('memory.flush')
    expect(await factsOf(h, 'alice')).toEqual([])

    const [flushed] = await client.receive('memory.flush')
    expect(flushed).toBe('已记忆 1 段对话中的 2 条消息。用 memory.list 查看记住了什么。')
    expect((await factsOf(h, 'alice')).join()).toContain('成都')
    // each fact with the rules that found it, not every rule the dialogue matched
    const reasons = (await h.app.database.get('memory_fact', { userId: 'alice' })).map((row) => row.reason)
    expect(reasons).toHaveLength(2)
    expect(new Set(reasons).size).toBe(2)
    const [after] = await client.receive('memory.list')
    expect(after).toMatch(/成都/)
    expect(after).not.toContain('等待记忆')
    const [again] = await client.receive('memory.flush')
    expect(again).toBe('这个聊天中没有等待记忆的消息。')
  })

  it('a line said before the start-up work has read back the last run counts as waiting, and memory.flush memorises it', async () => {
    h = await boot({}, undefined, undefined, { warm: false })
    await h.app.mock.initUser('gina', 3)
    const client = h.app.mock.client('gina')
    // not say(): its flush would run the start-up work first
    await client.receive('我住在苏州')
    const [before] = await client.receive('memory.list')
    expect(before).toContain('你还有 1 条消息等待记忆，一分钟内完成')
    const [flushed] = await client.receive('memory.flush')
    expect(flushed).toBe('已记忆 1 段对话中的 1 条消息。用 memory.list 查看记住了什么。')
    expect((await factsOf(h, 'gina')).join()).toContain('苏州')
  })

  it('memory.flush is for admins; a user sees what waits without the hint', async () => {
    h = await boot()
    await h.app.mock.initUser('bob', 1)
    await say(h.app, 'bob', 'I live in Lisbon')
    const client = h.app.mock.client('bob')
    const [listed] = await client.receive('memory.list')
    expect(listed).toContain('1 条消息等待记忆')
    expect(listed).not.toContain('memory.flush')
    const [refused] = await client.receive('memory.flush')
    expect(refused).not.toMatch(/已记忆/)
    expect(await factsOf(h, 'bob')).toEqual([])
  })

  it('in a group, the list counts only the caller’s lines and says the group’s quiet time', async () => {
    h = await boot({ memorize: { quietSeconds: 600, groupEvery: 30 } })
    await h.app.mock.initUser('carol', 1)
    await say(h.app, 'carol', '我在杭州工作', 'g1')
    await say(h.app, 'dave', '我喜欢爬山', 'g1')
    await say(h.app, 'dave', '周末一起去吗', 'g1')
    const [listed] = await h.app.mock.client('carol', 'g1').receive('memory.list')
    expect(listed).toContain('你还有 1 条消息等待记忆，10 分钟内完成')
    const waiting = h.app.memory.waiting({ platform: 'mock', userId: 'dave' }, { guildId: 'g1' })
    expect(waiting.messages).toBe(2)
    expect(h.app.memory.waiting({ platform: 'mock', userId: 'dave' }, 'private').messages).toBe(0)
  })

  it('a private dialogue ends after the private quiet time, a group one only after the group’s', async () => {
    h = await boot({ memorize: { quietSeconds: 600, privateQuietSeconds: 60 } })
    await say(h.app, 'erin', '我住在重庆')
    await say(h.app, 'frank', '我住在西安', 'g2')
    const { capture } = internalsOf(h.app.memory)
    capture.sweep(new Date(Date.now() + 61_000))
    await h.app.memory.flush()
    expect((await factsOf(h, 'erin')).join()).toContain('重庆')
    expect(await factsOf(h, 'frank')).toEqual([])
    capture.sweep(new Date(Date.now() + 601_000))
    await h.app.memory.flush()
    expect((await factsOf(h, 'frank')).join()).toContain('西安')
  })
})
