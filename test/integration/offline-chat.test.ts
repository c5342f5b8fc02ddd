import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { locales } from '../../src/locales'
import type { Harness } from './harness'
import { boot } from './harness'

const texts = (locales['zh-CN'].memory as { chat: Record<string, string> }).chat

describe('the built-in chat without a model', () => {
  let h: Harness

  beforeAll(async () => {
    h = await boot({ chat: { enabled: true, cooldownSeconds: 0 }, topics: { enabled: false } })
  })

  afterAll(() => h.stop())

  const say = async (text: string) => {
    const replies = await h.app.mock.client('alice').receive(text)
    await h.app.memory.flush()
    return replies
  }

  it('answers small talk with no memory and no count of chat, and a question with what bears on it', async () => {
    await say('我住在成都')
    await say('我在学吉他，每周二上课')
    const facts = await h.app.database.get('memory_fact', { userId: 'alice' })
    expect(facts.map((fact) => fact.content)).toEqual(
      expect.arrayContaining([expect.stringContaining('成都'), expect.stringContaining('吉他')]),
    )

    expect(await say('今天天气不错')).toEqual([texts.nothing])
    const [answer] = await say('我每周几上吉他课？')
    expect(answer).toMatch(/^我记得：\n- .*吉他.*\n（上下文里还有 1 条相关的聊天记录）$/)
    expect(answer).not.toContain('成都')
  })
})
