import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'koishi'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'

const AT = '<at id="514"/> '

describe('facts land in the right scope and never reach another user', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    const { app } = h
    await say(app, 'alice', AT + '我喜欢吃四川火锅', 'g1')
    await say(app, 'bob', AT + '我讨厌吃火锅，我喜欢吃寿司', 'g1')
    await say(app, 'alice', AT + '我下周三要去上海出差', 'g2')
    await say(app, 'alice', '我的生日是10月25日')
  })

  afterEach(() => h.stop())

  it('stores each fact with its user and guild', async () => {
    const rows = await h.app.database.get('memory_fact', {})
    const seen = rows.map((row) => [row.userId, row.guildId, row.content]).sort()
    // bob said two things in one message: two facts
    expect(seen).toHaveLength(5)
    expect(
      seen
        .filter(([user]) => user === 'alice')
        .map(([, guild]) => guild)
        .sort(),
    ).toEqual(['', 'g1', 'g2'])
    expect(rows.filter((row) => row.userId === 'bob').map((row) => row.guildId)).toEqual(['g1', 'g1'])
    expect(rows.find((row) => row.guildId === 'g1' && row.userId === 'alice')?.content).toContain('火锅')
  })

  it("retrieves a user's own facts and never another user's", async () => {
    const alice = await h.app.memory.retrieve('alice', '火锅', { platform: 'mock' })
    expect(alice.map((m) => m.content).join()).toContain('四川火锅')
    expect(alice.every((m) => m.scope.userId === 'alice')).toBe(true)
    const bob = await h.app.memory.retrieve('bob', '四川火锅', { platform: 'mock' })
    expect(bob.length).toBeGreaterThan(0)
    expect(bob.every((m) => m.scope.userId === 'bob')).toBe(true)
    expect(bob.map((m) => m.content).join()).not.toContain('四川')
  })

  it('keeps what was learnt in one group out of another group', async () => {
    const inG2 = await h.app.memory.retrieve('alice', '火锅', { platform: 'mock', guildId: 'g2' })
    expect(inG2.map((m) => m.content).join()).not.toContain('火锅')
    const inG1 = await h.app.memory.retrieve('alice', '火锅', { platform: 'mock', guildId: 'g1' })
    expect(inG1.map((m) => m.content).join()).toContain('火锅')
  })

  it("answers memory.recall in a group with that group's memories only", async () => {
    const [inG2] = await h.app.mock.client('alice', 'g2').receive('memory.recall 生日')
    expect(inG2).not.toContain('10月25日')
    const [inPrivate] = await h.app.mock.client('alice').receive('memory.recall 生日')
    expect(inPrivate).toContain('10月25日')
  })

  it('serves another plugin that injects memory', async () => {
    const found: string[] = []
    await new Promise<void>((resolve) => {
      h.app.plugin({
        name: 'consumer',
        inject: ['memory'],
        apply: async (ctx: Context) => {
          const memories = await ctx.memory.retrieve('alice', '生日', { platform: 'mock' })
          found.push(...memories.map((m) => m.content))
          resolve()
        },
      })
    })
    expect(found.join()).toContain('10月25日')
  })
})
