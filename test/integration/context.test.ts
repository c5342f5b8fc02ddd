import { h as h_ } from 'koishi'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'

const BADMINTON = ['周五晚上去打羽毛球吗', '羽毛球场地我来订，七点到九点', '羽毛球拍我带两支，大家别忘了带球鞋', '打完羽毛球一起去吃宵夜']
const GPU = [
  '最近想换显卡，4070 还是 7800XT',
  '4070 显卡功耗低，光追也好一些',
  '7800XT 显卡显存大，价格也便宜',
  '显卡现在降价了，4070 三千多',
]

describe('buildContext in a group chat with two interleaved topics', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    for (let i = 0; i < BADMINTON.length; i++) {
      await say(h.app, 'alice', BADMINTON[i], 'g1')
      await say(h.app, 'bob', GPU[i], 'g1')
    }
    await h.app.memory.flushOutbox()
  })

  afterEach(() => h.stop())

  it("gives a new message its own topic's messages and not the other's, within the budget", async () => {
    const context = await h.app.memory.buildContext(
      {
        platform: 'mock',
        guildId: 'g1',
        channelId: 'g1',
        userId: 'carol',
        content: '4070 显卡现在多少钱',
        time: new Date(),
      },
      { tokenBudget: 60 },
    )
    const chosen = context.messages.map((m) => m.content)
    expect(context.fallback).toBe(false)
    expect(context.tokens).toBeLessThanOrEqual(60)
    expect(chosen.some((text) => GPU.includes(text))).toBe(true)
    expect(chosen.filter((text) => BADMINTON.includes(text))).toEqual([])
    // explanations: where each came from and its signals
    expect(context.messages.every((m) => m.sources.length > 0 && Object.keys(m.signals).length > 0)).toBe(true)
  })

  it('assembles a prompt, logs the context with the reply, and reports stats', async () => {
    const prompts: { role: string; content: string }[][] = []
    h.app.plugin({
      name: 'prompting-bot',
      inject: ['memory'],
      apply: (ctx) => {
        ctx.middleware(async (session, next) => {
          if (!session.stripped.content.startsWith('问')) return next()
          prompts.push(await ctx.memory.assemblePrompt(session, { system: '你是群助手。' }))
          return '场地订好了，七点开始'
        }, true)
      },
    })
    await h.app.mock.client('carol', 'g1').receive('问：羽毛球场地订好了吗')
    await h.app.memory.flush()
    const [messages] = prompts
    expect(messages[0]).toEqual({ role: 'system', content: expect.stringContaining('你是群助手。') })
    expect(messages.at(-1)!.content).toContain('羽毛球场地订好了吗')
    expect(messages.map((m) => m.content).join()).toContain('羽毛球场地我来订')
    const [logged] = await h.app.database.get('memory_context', { userId: 'carol' })
    expect(logged.reply).toBe('场地订好了，七点开始')
    const [denied] = await h.app.mock.client('carol', 'g1').receive('memory.stats')
    expect(denied).toBe('权限不足。')
    await h.app.mock.initUser('owner', 3)
    const [stats] = await h.app.mock.client('owner', 'g1').receive('memory.stats')
    expect(stats).toContain('构建上下文 1 次')
  })
})

describe('buildContext right after a message', () => {
  // without topic attribution no background job writes the recorder's batch at once
  it("sees a message said a moment ago, before the recorder's batch is written", async () => {
    const h = await boot({ topics: { enabled: false } })
    const bot = h.app.bots[0]
    const text = '显卡我打算等 5070 出来再说'
    const session = bot.session({
      type: 'message',
      user: { id: 'dave', name: 'dave' },
      channel: { id: 'g1', type: 0 },
      guild: { id: 'g1' },
      message: { id: 'm-dave-1', content: text, elements: [h_.text(text)] },
      timestamp: Date.now(),
    })
    // what an adapter does, and nothing else: no wait for the plugin's background work (awaited only
    // before the app stops: Koishi's own handler still reads the user from the database)
    const handled = h.app.parallel(session, 'message', session)
    const context = await h.app.memory.buildContext(
      {
        platform: 'mock',
        guildId: 'g1',
        channelId: 'g1',
        userId: 'carol',
        content: '5070 什么时候出',
        time: new Date(),
      },
      { tokenBudget: 200 },
    )
    expect(context.messages.map((m) => m.content)).toContain('显卡我打算等 5070 出来再说')
    await handled
    await h.stop()
  })

  it("counts the bot's own earlier messages as related when the new message @-mentions the bot", async () => {
    // a low threshold, so that the bot's message is shown whatever its score and the signal can be read
    const h = await boot({ context: { threshold: 0.01 } }, (app) => app.plugin(echo))
    expect(await say(h.app, 'alice', '<at id="514"/> 羽毛球场地订在七点', 'g1')).toEqual(['ok: 羽毛球场地订在七点'])
    const bot = h.app.bots[0]
    const session = bot.session({
      type: 'message',
      user: { id: 'carol', name: 'carol' },
      channel: { id: 'g1', type: 0 },
      guild: { id: 'g1' },
      message: { id: 'm-carol-1', content: '<at id="514"/> 几点开始？', elements: [h_.at('514'), h_.text(' 几点开始？')] },
      timestamp: Date.now(),
    })
    const context = await h.app.memory.buildContext(session, { tokenBudget: 200 })
    const own = context.messages.filter((m) => m.role === 'assistant')
    expect(own.length).toBeGreaterThan(0)
    expect(own.every((m) => m.signals.mentionRelation === 0.6)).toBe(true)
    await h.stop()
  })

  it('takes the scorer settings from the configuration', async () => {
    const ask = { platform: 'mock', guildId: 'g1', channelId: 'g1', userId: 'carol', content: '羽毛球几点开始', time: new Date() }
    for (const [threshold, expectMessages] of [
      [undefined, true],
      [1, false],
    ] as const) {
      const h = await boot({ context: { threshold } })
      await say(h.app, 'alice', '羽毛球场地订在七点', 'g1')
      await say(h.app, 'bob', '羽毛球拍我带两支', 'g1')
      const context = await h.app.memory.buildContext({ ...ask, time: new Date() }, { tokenBudget: 200 })
      expect(context.messages.length > 0, `threshold ${threshold}`).toBe(expectMessages)
      await h.stop()
    }
  })
})
