import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { msUntilHour } from '../../src/jobs'
import { assemblePrompt } from '../../src/context'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { chat, ScriptedServer } from './scripted-server'

describe('memory.evolve and memory.group.* commands', () => {
  let h: Harness
  const server = new ScriptedServer((path, body, res) => {
    const system: string = body.messages?.find((m: any) => m.role === 'system')?.content ?? ''
    const prompt: string = body.messages?.map((m: any) => m.content).join('\n') ?? ''
    if (prompt.includes('周五')) {
      return chat(
        res,
        '{"action": "create", "statement": "群友每周五晚上一起打羽毛球", "change_reason": "多人约定"}\n' +
          'not json at all\n' +
          '{"action": "update", "old_id": 99, "statement": "x", "change_reason": "a foreign id"}',
      )
    }
    chat(res, system ? '' : '{"facts": []}')
  })

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot({
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
      memorize: { enabled: false },
      topics: { enabled: false },
      group: { minMessages: 1 },
    })
    await h.app.mock.initUser('admin', 3)
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 1)
    await say(h.app, 'alice', '这周五晚上还去打羽毛球吗？', 'g1')
    await say(h.app, 'bob', '去！周五老地方见', 'g1')
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  it('needs authority 3 to evolve', async () => {
    const [denied] = await h.app.mock.client('alice', 'g1').receive('memory.evolve')
    expect(denied).toMatch(/权限/)
  })

  it("evolves the caller's group, reporting what it could not use", async () => {
    const [evolved] = await h.app.mock.client('admin', 'g1').receive('memory.evolve')
    expect(evolved).toContain('新增 1')
    expect(evolved).toContain('1 个操作被拒绝')
    const [again] = await h.app.mock.client('admin', 'g1').receive('memory.evolve')
    expect(again).toBe('自上次演进以来没有新消息。')
  })

  it('shows a group its own memories only', async () => {
    const [list] = await h.app.mock.client('alice', 'g1').receive('memory.group.list')
    expect(list).toContain('羽毛球')
    const [found] = await h.app.mock.client('bob', 'g1').receive('memory.group.search 羽毛球')
    expect(found).toContain('羽毛球')
    const [elsewhere] = await h.app.mock.client('alice', 'g2').receive('memory.group.list')
    expect(elsewhere).toBe('本群还没有这样的记忆。')
    const [peek] = await h.app.mock.client('alice', 'g2').receive('memory.group.list -g mock:g1')
    expect(peek).toBe('你没有权限查看或改动其他群的记忆。')
    const [admin] = await h.app.mock.client('admin').receive('memory.group.list -g mock:g1')
    expect(admin).toContain('羽毛球')
    const [privately] = await h.app.mock.client('alice').receive('memory.group.list')
    expect(privately).toBe('请在群聊中使用，或指定「平台:群号」。')
    const [unknown] = await h.app.mock.client('admin').receive('memory.evolve mock:nowhere')
    expect(unknown).toBe('没有这个群：mock:nowhere（写作「平台:群号」）。')
    expect(await h.app.database.get('memory_group_lease', { guildId: 'nowhere' })).toEqual([])
  })

  it("puts the group's memories into the context and the prompt of a group message", async () => {
    const context = await h.app.memory.buildContext({
      platform: 'mock',
      guildId: 'g1',
      channelId: 'g1',
      userId: 'carol',
      content: '周五羽毛球几点',
      time: new Date(),
    })
    expect(context.group?.map((m) => m.statement)).toContain('群友每周五晚上一起打羽毛球')
    const elsewhere = await h.app.memory.buildContext({
      platform: 'mock',
      guildId: 'g2',
      channelId: 'g2',
      userId: 'carol',
      content: '周五羽毛球几点',
      time: new Date(),
    })
    expect(elsewhere.group ?? []).toEqual([])
    const prompt = assemblePrompt({ system: '', context, current: { name: 'carol', content: '周五羽毛球几点' } })
    expect(prompt.find((m) => m.content.startsWith('关于本群的记忆：'))?.content).toContain('群友每周五晚上一起打羽毛球')
  })

  it('queues the daily evolution for groups with new messages only', async () => {
    expect(msUntilHour(new Date(2026, 0, 1, 3, 30), 4)).toBe(30 * 60_000)
    expect(msUntilHour(new Date(2026, 0, 1, 4, 0), 4)).toBe(24 * 3_600_000)
    await say(h.app, 'alice', '周五我可能要加班', 'g1')
    expect(await h.app.memory.evolveDueGroups()).toBe(1)
    await h.app.memory.flush()
    expect(await h.app.memory.evolveDueGroups()).toBe(0)
  })

  it('deletes and restores by id inside the group, with history', async () => {
    const [row] = await h.app.database.get('memory_group', { status: 'active' })
    const [notHere] = await h.app.mock.client('admin', 'g2').receive(`memory.group.delete ${row.id}`)
    expect(notHere).toContain('本群没有这条记忆')
    const [deleted] = await h.app.mock.client('admin', 'g1').receive(`memory.group.delete ${row.id} 已经不打了`)
    expect(deleted).toContain(row.id)
    const [list] = await h.app.mock.client('alice', 'g1').receive('memory.group.list')
    expect(list).toBe('本群还没有这样的记忆。')
    await h.app.mock.client('admin', 'g1').receive(`memory.group.restore ${row.id}`)
    const [history] = await h.app.mock.client('alice', 'g1').receive(`memory.group.history ${row.id}`)
    expect(history).toContain('第 1 版')
  })
})
