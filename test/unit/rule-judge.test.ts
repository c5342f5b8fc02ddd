import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { RuleJudge, thirdPerson } from '../../src/facts/rule-judge'

const judge = new RuleJudge()
const u = (name: string, content: string): Turn => ({ role: 'user', name, content })
const bot = (content: string): Turn => ({ role: 'assistant', name: '小助手', content })

async function run(conversation: Turn[]) {
  const decision = await judge.decide(conversation)
  const summary = decision.shouldRemember ? await judge.summarize(conversation) : undefined
  return { ...decision, summary }
}

describe('RuleJudge (Chinese group chat)', () => {
  it('has the id rules', () => {
    expect(judge.id).toBe('rules')
  })

  it.each([
    ['小明', '我喜欢吃火锅，尤其是麻辣的', 'preference', '小明喜欢吃火锅，尤其是麻辣的。'],
    ['小明', '哈哈哈，对了，我下周三要去考试了', 'plan', '小明下周三要去考试了。'],
    ['小红', '记住，我不吃香菜', 'request', '小红不吃香菜。'],
    ['小红', '你要记得我对花生过敏哦~', 'identity', '小红对花生过敏。'],
    ['阿强', '下周三是我女朋友的生日', 'relationship', '下周三是阿强女朋友的生日。'],
    ['阿强', '我叫王强，在腾讯上班', 'identity', '阿强叫王强，在腾讯上班。'],
    ['阿强', '我今年28岁', 'identity', '阿强今年28岁。'],
    ['阿强', '我住在杭州', 'identity', '阿强住在杭州。'],
    ['阿强', '我妈下个月来上海看我', 'relationship', '阿强的妈妈下个月来上海看阿强。'],
    ['群友A', '请记住我的生日是10月25日', 'request', '群友A的生日是10月25日。'],
    ['群友A', '我打算明年去日本留学', 'plan', '群友A打算明年去日本留学。'],
    ['群友A', '我们周六约了去爬山', 'plan', '群友A他们周六约了去爬山。'],
    ['群友A', '我是程序员', 'identity', '群友A是程序员。'],
    ['群友A', '我最讨厌下雨天了！！', 'preference', '群友A最讨厌下雨天了。'],
  ])('%s: %s → %s', async (name, content, category, summary) => {
    const result = await run([u(name, content), bot('好的，我记下了')])
    expect(result.shouldRemember).toBe(true)
    expect(result.reason).toContain(category)
    expect(result.summary).toBe(summary)
  })

  it.each([
    '哈哈哈',
    '好的',
    '你喜欢什么颜色？',
    '今天天气不错',
    '你还记得我喜欢什么吗',
    '我觉得还行',
    '我也是',
    '我不记得了',
    '我记得你说过这个',
    '我的妈呀，太好笑了',
    '明天会下雨吗',
    '我是说你刚才那个回答',
    '我喜欢这个',
    '记住哦',
    '[图片]',
    '你能帮我写首诗吗',
  ])('ignores %s', async (content) => {
    const result = await run([u('小明', content), bot('哈哈')])
    expect(result.shouldRemember).toBe(false)
    expect(result.reason).toMatch(/^rules: no /)
  })

  it('looks only at user turns, never at what the bot said', async () => {
    const conversation = [u('小明', '在吗'), bot('我喜欢猫，我女朋友下周三过生日，记住哦')]
    expect((await judge.decide(conversation)).shouldRemember).toBe(false)
    await expect(judge.summarize(conversation)).rejects.toThrow(/nothing/)
  })

  it('summarises the sentences that matched in a multi-turn group chat, each with its speaker', async () => {
    const conversation = [
      u('小明', '今天好累啊'),
      bot('辛苦了，早点休息'),
      u('小明', '嗯嗯。我下周五要去北京出差'),
      u('小红', '哈哈，我也喜欢北京烤鸭'),
    ]
    const result = await run(conversation)
    expect(result.reason).toBe('rules: preference, plan')
    expect(result.summary).toBe('小明下周五要去北京出差。小红也喜欢北京烤鸭。')
  })

  it('falls back to a neutral name when the speaker has none', async () => {
    expect(await judge.summarize([u('', '我不喝咖啡')])).toBe('用户不喝咖啡。')
  })
})

describe('RuleJudge (English)', () => {
  it.each([
    ['Alice', "I'm allergic to peanuts", 'identity', 'Alice is allergic to peanuts.'],
    ['Alice', 'I really like hiking in the mountains.', 'preference', 'Alice really likes hiking in the mountains.'],
    ['Alice', 'Remember that my birthday is on October 25th', 'request', "Alice's birthday is on October 25th."],
    ['Alice', 'My sister works as a nurse in Boston', 'relationship', "Alice's sister works as a nurse in Boston."],
    ['Alice', 'I’m going to Paris tomorrow!', 'plan', 'Alice is going to Paris tomorrow.'],
    ['Alice', "please remember I'm vegetarian", 'request', 'Alice is vegetarian.'],
    ['Bob', "I don't like cilantro", 'preference', "Bob doesn't like cilantro."],
    ['Bob', 'I study computer science at MIT', 'identity', 'Bob studies computer science at MIT.'],
    ['Bob', 'We plan to move to Canada next year', 'plan', 'Bob and others plan to move to Canada next year.'],
    ['Bob', 'My favorite band is Radiohead', 'preference', "Bob's favorite band is Radiohead."],
    ['Chris', 'i love watching old movies with my dad', 'preference', "Chris loves watching old movies with Chris' dad."],
    ['Dana', "Don't forget I have an exam on Monday", 'request', 'Dana has an exam on Monday.'],
  ])('%s: %s → %s', async (name, content, category, summary) => {
    const result = await run([u(name, content), { role: 'assistant', name: 'Bot', content: 'Got it.' }])
    expect(result.shouldRemember).toBe(true)
    expect(result.reason).toContain(category)
    expect(result.summary).toBe(summary)
  })

  it.each([
    'ok',
    'lol that is funny',
    "what's the weather like today?",
    'can you tell me a joke',
    'Do you like pizza?',
    'I like it',
    'thanks, that helps',
    "I'm a bit tired",
    'remember this',
    'I remember that movie',
    'What is my name',
  ])('ignores %s', async (content) => {
    const result = await run([u('Alice', content), { role: 'assistant', name: 'Bot', content: 'Sure!' }])
    expect(result.shouldRemember).toBe(false)
  })
})

describe('thirdPerson', () => {
  it.each([
    ['like', 'likes'],
    ['have', 'has'],
    ['go', 'goes'],
    ['study', 'studies'],
    ['watch', 'watches'],
    ['play', 'plays'],
    ['do', 'does'],
    ['can', 'can'],
    ['went', 'went'],
    ['moved', 'moved'],
  ])('%s → %s', (verb, expected) => {
    expect(thirdPerson(verb)).toBe(expected)
  })
})
