import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

const AT = '<at id="514"/> '
/** alice's session in group g1 */
const inG1 = { type: 'message', channel: { id: 'g1', type: 0 }, guild: { id: 'g1' }, user: { id: 'alice' } }

describe('knowledge through the chat: memory.entity, memory.graph, memory.profile, forget', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    const { app } = h
    await app.mock.initUser('alice', 1)
    await app.mock.initUser('bob', 1, { locales: ['en-US'] })
    await app.mock.initUser('admin', 3)
    await say(app, 'alice', AT + '我住在成都，小明是我的哥哥。我喜欢吃火锅', 'g1')
    await say(app, 'alice', AT + '我搬到上海了', 'g1')
    await say(app, 'bob', AT + 'I live in Osaka and I love sushi', 'g2')
    await say(app, 'alice', '我在腾讯工作')
  })

  afterEach(() => h.stop())

  it('memory.entity shows the entity, its relations (the closed one with its end) and where it came from', async () => {
    const [answer] = await h.app.mock.client('alice', 'g1').receive('memory.entity 成都')
    expect(answer).toMatch(/^成都（地点），提到 1 次/)
    expect(answer).toMatch(/- alice 住在 成都（至 \d{4}-\d\d-\d\d）/)
    expect(answer).toContain('来自 1 条消息')
    expect(answer).toContain('我住在成都')
    const [other] = await h.app.mock.client('alice', 'g2').receive('memory.entity 成都')
    expect(other).toBe('这里没有关于「成都」的记录。')
  })

  it('memory.graph draws the current relations as a tree', async () => {
    const [tree] = await h.app.mock.client('alice', 'g1').receive('memory.graph alice')
    expect(tree.split('\n')).toEqual(expect.arrayContaining(['alice', '  → 哥哥 小明', '  → 住在 上海']))
    expect(tree).not.toContain('成都')
    const [en] = await h.app.mock.client('bob', 'g2').receive('memory.graph bob -d 1')
    expect(en).toBe('bob\n  → lives in Osaka')
  })

  it('memory.profile shows a user their own profile; another needs authority 3', async () => {
    const [own] = await h.app.mock.client('alice', 'g1').receive('memory.profile')
    expect(own).toContain('alice 的画像')
    expect(own).toContain('喜欢：吃火锅')
    // said once: not again as a fact, nor as a line under the text
    expect(own.match(/吃火锅/g)).toHaveLength(1)
    const [denied] = await h.app.mock.client('bob', 'g1').receive('memory.profile mock:alice')
    expect(denied).toBe("You are not allowed to see other users' profiles.")
    const [allowed] = await h.app.mock.client('admin', 'g1').receive('memory.profile <at id="alice"/>')
    expect(allowed).toContain('吃火锅')
    // in private, her profile holds what she said there, and nothing of g1
    const [elsewhere] = await h.app.mock.client('alice').receive('memory.profile')
    expect(elsewhere).toContain('腾讯')
    expect(elsewhere).not.toContain('火锅')
  })

  it('keeps the private chat apart and gives the assembled prompt the profile', async () => {
    const [work] = await h.app.mock.client('alice').receive('memory.entity 腾讯')
    expect(work).toContain('alice 工作于 腾讯')
    const [notInGroup] = await h.app.mock.client('alice', 'g1').receive('memory.entity 腾讯')
    expect(notInGroup).toBe('这里没有关于「腾讯」的记录。')
    const found = await h.app.memory.searchEntities({ platform: 'mock', guildId: 'g1', userId: '' }, '上海')
    expect(found.map((hit) => hit.entity.name)).toContain('上海')
    const tools = h.app.memory.knowledgeTools(h.app.mock.session(inG1))
    expect(tools.map((tool) => tool.name)).toEqual(['search_entities', 'get_user_profile', 'query_knowledge_graph'])
    expect((await tools[2].handler({ entity: 'alice' } as never)).text).toContain('alice —住在→ 上海')
    const prompt = await h.app.memory.assemblePrompt(h.app.mock.session({ ...inG1, message: { id: 'q1', content: '晚上吃什么' } }))
    expect(prompt.find((message) => message.content.startsWith('用户画像：'))?.content).toContain('吃火锅')
  })

  it('forget --all removes the profile, the relations and the entities only the user supports', async () => {
    await h.app.mock.client('alice', 'g1').receive('memory.forget --all -y')
    await h.app.memory.flush()
    await h.app.memory.flushOutbox()
    const left = JSON.stringify([
      await h.app.database.get('memory_entity', {}),
      await h.app.database.get('memory_relation', {}),
      await h.app.database.get('memory_profile', {}),
    ])
    for (const word of ['成都', '上海', '小明', '火锅', '腾讯', 'alice']) expect(left).not.toContain(word)
    expect(left).toContain('Osaka')
    const texts = await internalsOf(h.app.memory).index.texts(
      'knowledge_entities',
      (await h.app.database.get('memory_entity', {})).map((row) => row.id),
    )
    expect(texts.join(' ')).toContain('Osaka')
    const [gone] = await h.app.mock.client('admin', 'g1').receive('memory.entity 成都')
    expect(gone).toBe('这里没有关于「成都」的记录。')
  })
})

describe('knowledge with a model', () => {
  const answer = JSON.stringify({
    facts: [{ about: 'alice', fact: 'alice住在成都。' }],
    entities: [{ name: '成都', type: 'LOCATION', turns: [0] }],
    relations: [{ subject: 'alice', predicate: '住在', object: '成都', turns: [0] }],
    preferences: [{ about: 'alice', key: '喜欢', value: '火锅', turns: [0] }],
  })

  async function callsPerDialogue(enabled: boolean) {
    const { ScriptedServer, chat } = await import('./scripted-server')
    const server = new ScriptedServer((path, body, res) => chat(res, body.messages?.at(-1)?.content?.includes('{"facts"') ? answer : ''))
    const baseURL = await server.start()
    const h = await boot({
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
      memorize: { privateEvery: 1, quietSeconds: 0 },
      topics: { enabled: false },
      knowledge: { enabled },
    })
    try {
      await say(h.app, 'alice', '我住在成都，我喜欢吃火锅')
      const chatCalls = server.requests.filter((request) => request.path.startsWith('/chat')).length
      const profile = await h.app.memory.getUserProfile({ platform: 'mock', userId: 'alice', guildId: '' })
      const entity = await h.app.memory.entity({ platform: 'mock', guildId: '', userId: 'alice' }, '成都')
      return { chatCalls, profile, entity }
    } finally {
      await h.stop()
      await server.stop()
    }
  }

  it("reads the entities, relations and preferences of the model's one extraction answer, with no call of its own", async () => {
    const off = await callsPerDialogue(false)
    const on = await callsPerDialogue(true)
    expect(on.chatCalls).toBe(off.chatCalls)
    expect(on.chatCalls).toBe(1)
    expect(on.entity?.entity.type).toBe('LOCATION')
    expect(on.entity?.relations.map((row) => row.predicate)).toEqual(['住在'])
    expect(on.profile?.preferences.map((preference) => preference.value)).toContain('火锅')
  })
})
