import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, say } from './harness'

const STATEMENTS = ['我养了一只猫，叫咪咪', '我住在成都', '我喜欢吃火锅']
const SMALL_TALK = ['今天天气不错', '哈哈，下午有点困']
const QUESTIONS = ['我住在哪里？', '我喜欢吃什么', '我的猫叫什么名字']

/** The newcomer's session of issue 23, in a private chat: statements, small talk, then questions about them. */
describe('a newcomer tells the bot about themself, then asks', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot()
    await h.app.mock.initUser('alice', 1)
    for (const line of [...STATEMENTS, ...SMALL_TALK]) await say(h.app, 'alice', line)
  })

  afterEach(() => h.stop())

  /** Everything stored from the messages of `texts`: facts, entities, relations and profile items. */
  async function storedFrom(texts: string[]) {
    const { database } = h.app
    const ids = new Set(
      (await database.get('memory_message', {})).filter((row) => texts.includes(row.content)).map((row) => row.id as string),
    )
    const from = (row: { sourceIds: string[] }) => row.sourceIds.some((id) => ids.has(id))
    const profiles = await database.get('memory_profile', {})
    return {
      facts: (await database.get('memory_fact', {})).filter(from).map((row) => row.content),
      entities: (await database.get('memory_entity', {})).filter(from).map((row) => row.name),
      relations: (await database.get('memory_relation', {})).filter(from).map((row) => row.predicate),
      preferences: profiles
        .flatMap((row) => row.preferences)
        .filter(from)
        .map((one) => one.value),
      ids,
    }
  }

  it('learns from the statements, and nothing from the questions', async () => {
    const before = await storedFrom(STATEMENTS)
    expect(before.relations).toContain('住在')
    expect(before.preferences).toContain('吃火锅')
    expect(before.entities).toEqual(expect.arrayContaining(['成都', '咪咪']))

    for (const question of QUESTIONS) await say(h.app, 'alice', question)
    const asked = await storedFrom(QUESTIONS)
    expect(asked.ids.size).toBe(QUESTIONS.length)
    expect(asked).toEqual({ facts: [], entities: [], relations: [], preferences: [], ids: asked.ids })
    const names = (await h.app.database.get('memory_entity', {})).map((row) => row.name)
    expect(names).not.toEqual(expect.arrayContaining(['哪里']))
    expect(names.filter((name) => /哪|什么|谁/.test(name))).toEqual([])

    const client = h.app.mock.client('alice')
    const [chengdu] = await client.receive('memory.entity 成都')
    expect(chengdu).toMatch(/^成都（地点）/)
    expect(chengdu).toMatch(/alice 住在 成都(?!（至)/)
    const [profile] = await client.receive('memory.profile')
    expect(profile).toContain('吃火锅')
    expect(profile).not.toMatch(/吃什么|哪里|什么名字/)

    for (const question of QUESTIONS) expect(Array.isArray(await h.app.memory.retrieve('alice', question))).toBe(true)
  })
})
