import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

describe('memory.* commands', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 1, { locales: ['en-US'] })
    await h.app.mock.initUser('admin', 3)
    await say(h.app, 'alice', '我喜欢吃四川火锅')
    await say(h.app, 'alice', '记住，我的生日是10月25日')
    await say(h.app, 'bob', 'I love sushi and I live in Osaka')
  })

  afterEach(() => h.stop())

  it("lists the caller's own memories in their locale", async () => {
    const [zh] = await h.app.mock.client('alice').receive('memory.list')
    expect(zh).toMatch(/共 2 条记忆/)
    expect(zh).toContain('火锅')
    expect(zh).not.toContain('sushi')
    const [en] = await h.app.mock.client('bob').receive('memory.list')
    // one message, two statements: two facts
    expect(en).toMatch(/2 memories/)
    expect(en).toContain('Bob loves sushi.')
    expect(en).toContain('Bob lives in Osaka.')
  })

  it('lets only authority ≥ 3 list another user', async () => {
    const [denied] = await h.app.mock.client('bob').receive('memory.list -u mock:alice')
    expect(denied).toBe("You are not allowed to see other users' memories.")
    const [allowed] = await h.app.mock.client('admin').receive('memory.list -u mock:alice')
    expect(allowed).toContain('火锅')
    const [mentioned] = await h.app.mock.client('admin').receive('memory.list -u <at id="alice"/>')
    expect(mentioned).toContain('火锅')
  })

  it('forget <id> erases the text from every table and the index', async () => {
    const [fact] = await h.app.database.get('memory_fact', { userId: 'alice', content: { $regex: '火锅' } })
    expect(fact).toBeTruthy()
    expect(await internalsOf(h.app.memory).index.texts('memories', [fact.id])).toHaveLength(1)

    const [notMine] = await h.app.mock.client('bob').receive(`memory.forget ${fact.id}`)
    expect(notMine).toContain('No memory')
    expect(await h.app.database.get('memory_fact', { id: fact.id })).toHaveLength(1)

    const [done] = await h.app.mock.client('alice').receive(`memory.forget ${fact.id}`)
    expect(done).toContain(fact.id)
    await h.app.memory.flush()
    const everywhere = JSON.stringify([
      await h.app.database.get('memory_fact', {}),
      await h.app.database.get('memory_message', {}),
      await h.app.database.get('memory_outbox', {}),
    ])
    expect(everywhere).not.toContain('四川火锅')
    expect(await internalsOf(h.app.memory).index.texts('memories', [fact.id])).toEqual([])
    expect(everywhere).toContain('10月25日')
  })

  it('forget --all asks for -y first and then erases everything of the caller only', async () => {
    const client = h.app.mock.client('alice')
    const [ask] = await client.receive('memory.forget --all')
    expect(ask).toContain('全部 2 条记忆')
    expect(await h.app.database.get('memory_fact', { userId: 'alice' })).toHaveLength(2)

    const [erased] = await client.receive('memory.forget --all -y')
    expect(erased).toContain('2')
    expect(await h.app.database.get('memory_fact', { userId: 'alice' })).toHaveLength(0)
    expect(await h.app.database.get('memory_message', { userId: 'alice' })).toHaveLength(0)
    const left = JSON.stringify(await h.app.database.get('memory_message', {}))
    expect(left).not.toContain('火锅')
    expect(await h.app.database.get('memory_fact', { userId: 'bob' })).toHaveLength(2)
  })

  it('recall explains when nothing matches, and status reports the service', async () => {
    const [none] = await h.app.mock.client('bob').receive('memory.recall quantum chromodynamics')
    expect(none).toBe('I found no memory related to that.')
    const [status] = await h.app.mock.client('alice').receive('memory.status')
    expect(status).toContain('向量模型：离线模型（按字词匹配，无需密钥）')
    expect(status).toContain('向量库 正常')
    expect(status).toContain('这里关于你的记忆：2 条')
    // instance-wide figures are for admins: every waiting count has reached 0 once the work is done
    expect(status).not.toContain('全部记忆')
    const [admin] = await h.app.mock.client('admin').receive('memory.status')
    expect(admin).toContain('全部记忆：4 条')
    expect(admin).toContain('后台任务 0 个，待写入的消息 0 条，待建立索引 0 条')
    const [stats] = await h.app.mock.client('alice').receive('memory.stats')
    expect(stats).toMatch(/权限/)
  })

  it('says why a configured provider is not in use', async () => {
    const keyless = await boot({ embedding: { provider: 'gemini', apiKey: '' } })
    try {
      const [status] = await keyless.app.mock.client('carol').receive('memory.status')
      expect(status).toContain('设置的是 gemini，但没有填写 API 密钥，所以改用了离线方式')
    } finally {
      await keyless.stop()
    }
  })
})
