import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BudgetView, HealthView } from '../../src/console'
import { FakeConsole } from './fake-console'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { chat, ScriptedServer } from './scripted-server'

/** Model budgets per group: a group over its budget is memorised by the offline rules, the others keep the model. */
describe('model budgets per group', () => {
  let h: Harness
  let con: FakeConsole
  // the scripted model: every line a speaker says about themselves, as their fact
  const server = new ScriptedServer((_path, body, res) => {
    const prompt: string = body.messages?.at(-1)?.content ?? ''
    if (!prompt.includes('{"facts": [')) return chat(res, '')
    const said = [...prompt.matchAll(/(alice|bob|carol): (我[^\n]+)/g)].map((match) => `${match[1]}说${match[2]}`)
    chat(res, JSON.stringify({ facts: said }))
  })
  const extractions = () => server.requests.filter((request) => JSON.stringify(request.body).includes('{\\"facts\\": [')).length
  const factsOf = async (userId: string) => (await h.app.database.get('memory_fact', { userId })).map((row) => row.content)
  const command = async (text: string, user = 'admin', channel = 'g1') => (await h.app.mock.client(user, channel).receive(text)).join('\n')
  const privately = async (text: string, user = 'admin') => (await h.app.mock.client(user).receive(text)).join('\n')

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot(
      {
        llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 3000 },
        topics: { enabled: false },
        summaries: { enabled: false },
        memorize: { quietSeconds: 0, groupEvery: 1, privateEvery: 1 },
      },
      (app) => app.plugin(FakeConsole),
    )
    con = (h.app as unknown as { console: FakeConsole }).console
    await h.app.mock.initUser('admin', 3)
    await h.app.mock.initUser('alice', 1)
    await h.app.mock.initUser('bob', 1)
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  it('memorises a group whose budget is 0 by the offline rules, with no model call, and says so', async () => {
    expect(await command('memory.budget calls 0')).toContain('0')
    const before = extractions()
    await say(h.app, 'alice', '我住在成都，在一家医院工作', 'g1')
    expect(extractions()).toBe(before)
    const facts = await factsOf('alice')
    expect(facts.join()).toContain('成都')
    // the rules' fact, not the model's wording
    expect(facts.join()).not.toContain('alice说')
    expect(await command('memory.status')).toMatch(/离线规则|offline rules/)
    expect(await command('memory.budget')).toMatch(/已用完|spent/)
  })

  it('writes the profile of a user in a spent group offline', async () => {
    const g1 = { platform: 'mock', guildId: 'g1', userId: '' }
    const before = await h.app.memory.budgets.status(g1)
    await h.app.database.set('memory_profile', { userId: 'alice', guildId: 'g1' }, { pending: 99 })
    await h.app.memory.consolidateProfiles()
    const after = await h.app.memory.budgets.status(g1)
    expect(after.spent.calls).toBe(0)
    expect(after.offline).toBeGreaterThan(before.offline)
    const [profile] = await h.app.database.get('memory_profile', { userId: 'alice', guildId: 'g1' })
    expect(profile.profileText).toContain('成都')
  })

  it('evolves a spent group’s memory on no model call', async () => {
    const before = server.requests.length
    const outcome = await h.app.memory.evolve({ platform: 'mock', guildId: 'g1' }).then(
      (result) => result.status,
      (error: Error) => error.message,
    )
    expect(outcome).toBe('budget-spent')
    expect(server.requests.length).toBe(before)
    expect(await command('memory.evolve')).toMatch(/用完|spent/)
  })

  it('leaves another group on the model, charged to that group alone', async () => {
    const before = extractions()
    await say(h.app, 'bob', '我在学吉他', 'g2')
    expect(extractions()).toBe(before + 1)
    expect((await factsOf('bob')).join()).toContain('bob说我在学吉他')
    const g2 = await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g2', userId: '' })
    expect(g2.spent.calls).toBe(1)
    expect(g2.spent.tokens).toBeGreaterThan(0)
    expect(g2.exhausted).toBe(false)
    const g1 = await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g1', userId: '' })
    expect(g1.spent.calls).toBe(0)
    expect(g1.offline).toBeGreaterThan(0)
  })

  it('falls back for the rest of the day once a group has used its calls, losing no dialogue', async () => {
    await command('memory.budget calls 1', 'admin', 'g3')
    await say(h.app, 'alice', '我养了一只柯基', 'g3')
    await say(h.app, 'alice', '我在上海读书', 'g3')
    const facts = (await factsOf('alice')).join()
    expect(facts).toContain('alice说我养了一只柯基')
    // the second dialogue: past the budget, the offline rules
    expect(facts).toContain('上海')
    expect(facts).not.toContain('alice说我在上海读书')
    const g3 = await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g3', userId: '' })
    expect(g3).toMatchObject({ spent: { calls: 1 }, exhausted: true })
  })

  it('keeps a private chat on its user’s own budget', async () => {
    expect(await privately('memory.budget calls 0')).toMatch(/已设置|Budget set/)
    const before = extractions()
    await say(h.app, 'admin', '我喜欢爬山')
    expect(extractions()).toBe(before)
    expect((await factsOf('admin')).join()).toContain('爬山')
    // another user's private chat keeps the default: no limit, the model
    await say(h.app, 'bob', '我喜欢游泳')
    expect(extractions()).toBe(before + 1)
    expect((await factsOf('bob')).join()).toContain('bob说我喜欢游泳')
  })

  it('checks every argument of memory.budget', async () => {
    for (const bad of ['memory.budget calls -1', 'memory.budget calls abc', 'memory.budget calls 1.5', 'memory.budget calls 99999999999']) {
      expect(await command(bad)).toMatch(/整数|whole number/)
    }
    expect(await command('memory.budget tokens 50')).toMatch(/100/)
    expect(await command('memory.budget speed 3')).toMatch(/用法|Usage/)
    expect(await command('memory.budget reset now')).toMatch(/用法|Usage/)
    expect(await command('memory.budget -g mock: calls 3')).toMatch(/不是群号|not a group/)
    // authority 3
    expect(await command('memory.budget calls 5', 'alice')).not.toMatch(/已设置|Budget set/)
    const g1 = await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g1', userId: '' })
    expect(g1.limits.calls).toBe(0)
    // the owner names a group from a private chat
    expect(await privately('memory.budget -g mock:g1 tokens 300')).toMatch(/已设置|Budget set/)
    expect((await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g1', userId: '' })).limits).toEqual({ calls: 0, tokens: 300 })
    expect(await command('memory.budget calls default')).toMatch(/已设置|Budget set/)
    expect(await command('memory.budget reset')).toMatch(/恢复|reset/)
    expect((await h.app.memory.budgets.status({ platform: 'mock', guildId: 'g1', userId: '' })).own).toBe(false)
  })

  it('checks what the console page sends, and shows the spend per group on the Health page', async () => {
    const group = { platform: 'mock', guildId: 'g4' }
    for (const limits of [{ calls: -1 }, { calls: 1.5 }, { calls: '3' }, { tokens: 10 }, { tokens: 2e9 }, null, 'x']) {
      expect(await con.outcome('memory/group/budget/set', group, limits)).toMatchObject({ ok: false, error: 'bad-budget' })
    }
    expect(await con.outcome('memory/group/budget/set', { platform: 'mock' }, { calls: 1 })).toMatchObject({
      ok: false,
      error: 'bad-request',
    })
    const set = await con.outcome('memory/group/budget/set', group, { calls: 5, tokens: 500 })
    expect(set).toMatchObject({ ok: true, value: { guildId: 'g4', calls: 5, tokens: 500, own: true } })
    const reset = await con.outcome('memory/group/budget/reset', group)
    expect(reset).toMatchObject({ ok: true, value: { calls: null, own: false } })

    const health = await con.outcome('memory/health')
    expect(health.ok).toBe(true)
    const budgets = (health as { value: HealthView }).value.budgets
    const byGroup = (guildId: string) => budgets.find((one: BudgetView) => one.guildId === guildId)
    expect(byGroup('g2')).toMatchObject({ spentCalls: 1, exhausted: false })
    expect(byGroup('g1')).toMatchObject({ spentCalls: 0 })
    expect(byGroup('g1')!.offline).toBeGreaterThan(0)
  })

  it('trims the context a reply is handed to the group’s prompt tokens a reply', async () => {
    for (let i = 0; i < 40; i++)
      await h.app.mock.client('carol', 'g5').receive(`第${i}条：我们今天讨论了很多关于天气和城市规划的事情，大家都说了很多话`)
    await h.app.memory.flush()
    const target = { platform: 'mock', guildId: 'g5', channelId: 'g5', userId: 'carol', content: '城市规划怎么样了', time: new Date() }
    const wide = await h.app.memory.buildContext(target)
    await h.app.memory.budgets.set({ platform: 'mock', guildId: 'g5', userId: '' }, { tokens: 150 })
    const narrow = await h.app.memory.buildContext(target)
    expect(wide.tokens).toBeGreaterThan(150)
    expect(narrow.tokens).toBeLessThanOrEqual(150)
  })
})

describe('a global default budget of 0', () => {
  let h: Harness
  const server = new ScriptedServer((_path, _body, res) => chat(res, '模型的回答'))

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot({
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 3000 },
      budget: { calls: 0 },
      chat: { enabled: true, cooldownSeconds: 0 },
      memorize: { quietSeconds: 0, privateEvery: 1 },
    })
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  it('answers with the offline answer and memorises by the rules, with no model call at all', async () => {
    const replies = await say(h.app, 'alice', '我住在成都，在一家医院工作')
    expect(replies.join()).not.toContain('模型的回答')
    // what the memory holds, not an apology for a refused call
    expect((await say(h.app, 'alice', '我住在哪里？')).join()).toContain('成都')
    expect(server.requests).toEqual([])
    expect((await h.app.database.get('memory_fact', { userId: 'alice' })).map((row) => row.content).join()).toContain('成都')
    const status = await h.app.memory.budgets.status({ platform: 'mock', guildId: '', userId: 'alice' })
    expect(status).toMatchObject({ own: false, limits: { calls: 0 }, exhausted: true })
    expect(status.offline).toBeGreaterThan(0)
  })
})
