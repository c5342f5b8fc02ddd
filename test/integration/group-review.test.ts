import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { chat, ScriptedServer } from './scripted-server'
import { internalsOf } from '../../src/compose'

/** The JSON a group evolution sends the model, or undefined for any other call. */
function evolutionInput(body: any): { existing_memories: { id: number; statement: string }[]; new_discussions: string[] } | undefined {
  const user = body.messages?.find((m: any) => m.role === 'user')?.content
  try {
    const input = JSON.parse(user)
    return Array.isArray(input?.new_discussions) ? input : undefined
  } catch {
    return undefined
  }
}

describe('moderated group memory through the mock adapter (memory.review.*)', () => {
  let h: Harness
  const server = new ScriptedServer((path, body, res) => {
    const input = evolutionInput(body)
    if (!input) return chat(res, '')
    const said = input.new_discussions.join('\n')
    const id = (text: string) => input.existing_memories.find((m) => m.statement.includes(text))?.id
    if (said.includes('爬山')) return chat(res, JSON.stringify({ action: 'create', statement: '群友周末常去爬山', change_reason: '约定' }))
    if (said.includes('周六'))
      return chat(
        res,
        [
          JSON.stringify({ action: 'update', old_id: id('羽毛球'), statement: '群友每周六晚上一起打羽毛球', change_reason: '改到周六' }),
          JSON.stringify({ action: 'create', statement: '群友都讨厌加班', change_reason: '抱怨' }),
          JSON.stringify({ action: 'keep', old_id: id('羽毛球') }),
        ].join('\n'),
      )
    return chat(res, JSON.stringify({ action: 'create', statement: '群友每周五晚上一起打羽毛球', change_reason: '多人约定' }))
  })
  const send = async (user: string, text: string, channel?: string) => (await h.app.mock.client(user, channel).receive(text)).join('\n')
  const pending = async () => (await h.app.memory.reviewQueue('mock:g1')).reviews

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot({
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
      memorize: { enabled: false },
      topics: { enabled: false },
      group: { minMessages: 1, reviewExpiryHours: 72 },
    })
    await h.app.mock.initUser('admin', 3)
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 3, { locales: ['en-US'] })
    await say(h.app, 'alice', '这周五晚上还去打羽毛球吗？', 'g1')
    await say(h.app, 'alice', '隔壁群的消息', 'g2')
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  it('needs the group authority, and sets a group to review mode', async () => {
    expect(await send('alice', 'memory.review', 'g1')).toMatch(/权限/)
    expect(await send('alice', 'memory.review.mode review', 'g1')).toMatch(/权限/)
    expect(await send('admin', 'memory.review.mode', 'g1')).toBe('本群记忆的演进方式：自动（变更立即生效）。')
    expect(await send('admin', 'memory.review', 'g1')).toContain('本群的记忆自动演进')
    expect(await send('admin', 'memory.review.mode sometimes', 'g1')).toBe('演进方式只能是 auto 或 review。')
    expect(await send('admin', 'memory.review.mode review', 'g1')).toContain('本群记忆现在需要审核')
    expect(await h.app.memory.reviewMode('mock:g1')).toBe('review')
    expect(await h.app.memory.reviewMode('mock:g2')).toBe('auto')
    expect(await send('admin', 'memory.review.mode review -g mock:nowhere')).toBe('没有这个群：mock:nowhere（写作「平台:群号」）。')
    expect(await h.app.database.get('memory_group_setting', {})).toMatchObject([{ id: 'mock:g1', mode: 'review', updatedBy: 'mock:admin' }])
  })

  it('queues what an evolution proposes instead of applying it', async () => {
    expect(await send('admin', 'memory.evolve', 'g1')).toBe('已提出 1 条变更，等待审核（memory.review）；0 条记忆保持不变。')
    expect(await send('alice', 'memory.group.list', 'g1')).toBe('本群还没有这样的记忆。')
    const [proposal] = await pending()
    const list = await send('admin', 'memory.review', 'g1')
    expect(list).toContain('共 1 条变更等待审核（每条提出 72 小时后过期）：')
    expect(list).toContain(`[${proposal.review_id}] 新增：群友每周五晚上一起打羽毛球（多人约定）`)
    const english = await send('bob', 'memory.review', 'g1')
    expect(english).toContain('Waiting for review: 1 (each expires 72 hours after it was proposed):')
    expect(english).toContain(`[${proposal.review_id}] create: 群友每周五晚上一起打羽毛球 (多人约定)`)
    expect(english).toContain('memory.review.approve <id> [your own text]')
    expect(await send('bob', 'memory.review.mode', 'g1')).toBe("This group's memory evolves: for review (changes wait in memory.review).")
    expect(await send('admin', 'memory.evolve', 'g1')).toBe('自上次演进以来没有新消息。')
    // the other group is not moderated
    expect(await send('admin', 'memory.evolve', 'g2')).toContain('群组记忆已演进')
  })

  it("refuses an unknown id and another group's proposal with clear messages", async () => {
    const [proposal] = await pending()
    expect(await send('admin', 'memory.review.approve nope', 'g1')).toBe('没有编号为 nope 的变更提议。')
    expect(await send('admin', `memory.review.approve ${proposal.review_id}`, 'g2')).toBe(
      `变更提议 ${proposal.review_id} 属于其他群；请用 -g 平台:群号 指定那个群。`,
    )
    expect(await send('admin', `memory.review.reject ${proposal.review_id} -g mock:g2`)).toContain('属于其他群')
    expect((await pending())[0].status).toBe('pending')
  })

  it("approves with the admin's own text, recording who approved it", async () => {
    const [proposal] = await pending()
    const done = await send('admin', `memory.review.approve ${proposal.review_id} 群友每周五晚上八点一起打羽毛球`, 'g1')
    expect(done).toContain(`已通过变更提议 ${proposal.review_id}：新增记忆`)
    expect(done).toContain('群友每周五晚上八点一起打羽毛球')
    expect(await send('alice', 'memory.group.list', 'g1')).toContain('群友每周五晚上八点一起打羽毛球')
    expect(await h.app.database.get('memory_group_change', { guildId: 'g1' })).toMatchObject([
      { action: 'create', newStatement: '群友每周五晚上八点一起打羽毛球', actor: 'mock:admin', runId: proposal.review_id },
    ])
    expect(await send('admin', `memory.review.approve ${proposal.review_id}`, 'g1')).toBe(`变更提议 ${proposal.review_id} 已经通过。`)
    // the approved memory is searchable like an evolved one
    await h.app.memory.flushOutbox()
    expect((await h.app.memory.groups.search('mock:g1', '羽毛球')).results.map((r) => r.statement)).toEqual([
      '群友每周五晚上八点一起打羽毛球',
    ])
  })

  it('approves an update and rejects a create from a private chat, and leaves the rejected one unapplied', async () => {
    await say(h.app, 'alice', '以后改到周六晚上打吧，周五总加班', 'g1')
    expect(await send('admin', 'memory.evolve', 'g1')).toContain('已提出 2 条变更')
    const reviews = await pending()
    const update = reviews.find((r) => r.action === 'update')!
    const create = reviews.find((r) => r.action === 'create')!
    expect(await send('admin', 'memory.review', 'g1')).toContain(
      `[${update.review_id}] 更新 ${update.memory_id}（第 1 版）：群友每周五晚上八点一起打羽毛球 → 群友每周六晚上一起打羽毛球（改到周六）`,
    )
    // a private chat acts on the proposal's own group
    expect(await send('admin', `memory.review.reject ${create.review_id} 只是抱怨`)).toBe(
      `已拒绝变更提议 ${create.review_id}，没有做任何改动。`,
    )
    expect(await send('admin', `memory.review.approve ${update.review_id}`)).toContain(`已通过变更提议 ${update.review_id}：记忆`)
    const [row] = await h.app.database.get('memory_group_review', { id: create.review_id })
    expect(row).toMatchObject({ status: 'rejected', decidedBy: 'mock:admin', note: '只是抱怨' })
    const list = await send('alice', 'memory.group.list', 'g1')
    expect(list).toContain('群友每周六晚上一起打羽毛球')
    expect(list).not.toContain('加班')
    const history = await send('alice', `memory.group.history ${update.memory_id}`, 'g1')
    expect(history).toContain('第 2 版')
    expect(await pending()).toEqual([])
  })

  it('refuses a proposal past its expiry, and the timer job closes the overdue ones', async () => {
    await say(h.app, 'alice', '周末一起去爬山吗', 'g1')
    expect(await send('admin', 'memory.evolve', 'g1')).toContain('已提出 1 条变更')
    const [proposal] = await pending()
    const old = new Date(Date.now() - 73 * 3_600_000)
    await h.app.database.set('memory_group_review', { id: proposal.review_id }, { createdAt: old })
    expect(await send('admin', `memory.review.approve ${proposal.review_id}`, 'g1')).toBe(
      `变更提议 ${proposal.review_id} 已过期（等待超过 72 小时），不能再处理。`,
    )
    expect((await h.app.database.get('memory_group_review', { id: proposal.review_id }))[0]).toMatchObject({ status: 'expired' })

    await say(h.app, 'alice', '周末爬山带上水', 'g1')
    await h.app.memory.evolve('mock:g1')
    const [next] = await pending()
    await h.app.database.set('memory_group_review', { id: next.review_id }, { createdAt: old })
    expect(await internalsOf(h.app.memory).maintenance.expireReviews()).toBe(1)
    expect((await h.app.database.get('memory_group_review', { id: next.review_id }))[0]).toMatchObject({
      status: 'expired',
      decidedBy: 'expiry',
    })
    expect(await send('alice', 'memory.group.list', 'g1')).not.toContain('爬山')
  })

  it('goes back to automatic evolution', async () => {
    expect(await send('admin', 'memory.review.mode auto', 'g1')).toContain('本群记忆现在自动演进')
    await say(h.app, 'alice', '周末还去爬山', 'g1')
    expect(await send('admin', 'memory.evolve', 'g1')).toContain('群组记忆已演进')
    expect(await send('alice', 'memory.group.list', 'g1')).toContain('群友周末常去爬山')
  })
})
