import { describe, expect, it } from 'vitest'
import { App } from 'koishi'
import type { BuiltContext } from '../../src/context'
import type { RetrievedMemory } from '../../src/facts'
import { locales } from '../../src/locales'
import { offlineAnswer, sharedTerms } from '../../src/reply/offline-answer'
import { renderOutcome } from '../../src/reply/render'
import type { ReplyState } from '../../src/reply/state'

const fact = (content: string, relevance = 1): RetrievedMemory => ({
  id: content,
  content,
  score: 0.5,
  relevance,
  createdAt: new Date(0),
  scope: { platform: 'p', userId: 'u', guildId: '', channelId: 'c' },
})

const line = (messageId: string, content: string, role: 'user' | 'assistant' = 'user'): BuiltContext['messages'][number] => ({
  id: `p:c:${messageId}`,
  messageId,
  userId: role === 'user' ? 'u' : 'bot',
  userName: role === 'user' ? 'ann' : 'bot',
  role,
  content,
  createdAt: new Date(0),
  score: 0.5,
  tokens: 5,
  sources: ['time-window'],
  signals: {},
})

function stateFor(content: string, context: Partial<BuiltContext>): ReplyState {
  return {
    target: { platform: 'p', guildId: '', channelId: 'c', userId: 'u', userName: 'ann', content, messageId: 'now', time: new Date(0) },
    language: /[\u4e00-\u9fff]/.test(content) ? 'zh' : 'en',
    system: '',
    retrieved: [],
    prompt: [],
    sent: [],
    trace: [],
    recalled: {
      episodes: [],
      context: { longTerm: [], summary: '', messages: [], tokens: 0, windowTokens: 0, fallback: false, buildMs: 0, ...context },
    },
  }
}

describe('offline answer', () => {
  const facts = [
    fact('ann 养了一只狗，叫豆豆', 1),
    fact('ann 住在成都', 0.9),
    fact('ann 养了一只猫，叫咪咪', 0.8),
    fact('ann 在学吉他', 0.7),
  ]

  it('lists nothing, and counts no chat, for small talk', () => {
    const answer = offlineAnswer(
      stateFor('今天天气不错', { longTerm: facts, messages: [line('m1', '我住在成都'), line('now', '今天天气不错')] }),
    )
    expect(answer).toEqual({ memories: [], related: 0 })
    expect(offlineAnswer(stateFor('hello there, how are you?', { longTerm: [fact('ann lives in Leeds')] }))).toEqual({
      memories: [],
      related: 0,
    })
  })

  it('lists what bears on the question, best first, across Chinese segmentations and English word forms', () => {
    expect(offlineAnswer(stateFor('我的猫叫什么名字', { longTerm: facts })).memories).toEqual([
      'ann 养了一只猫，叫咪咪',
      'ann 养了一只狗，叫豆豆',
    ])
    expect(offlineAnswer(stateFor('我住哪来着', { longTerm: facts })).memories).toEqual(['ann 住在成都'])
    expect(
      offlineAnswer(stateFor('Where do I live?', { longTerm: [fact('ann plays guitar'), fact('ann lives in Leeds')] })).memories,
    ).toEqual(['ann lives in Leeds'])
  })

  it('takes the group’s memories by the same rule', () => {
    const answer = offlineAnswer(
      stateFor('周五聚餐在哪？', {
        group: [
          { id: 'g1', statement: '本群周五聚餐在老地方', score: 0.4 },
          { id: 'g2', statement: '群主是小王', score: 0.9 },
        ],
      }),
    )
    expect(answer.memories).toEqual(['本群周五聚餐在老地方'])
  })

  it('counts only related chat lines of users, never the message itself or the bot’s own lines', () => {
    const messages = [
      line('m1', '成都的火锅好吃'),
      line('m2', '哈哈'),
      line('b1', '我记得：ann 住在成都', 'assistant'),
      line('now', '成都哪家火锅好吃？'),
    ]
    expect(offlineAnswer(stateFor('成都哪家火锅好吃？', { messages })).related).toBe(1)
  })

  it('shares no term with an empty message', () => {
    expect(sharedTerms(new Set(), 'ann 住在成都')).toBe(0)
  })
})

describe('offline answer texts', () => {
  const app = new App()
  app.i18n.define('zh-CN', locales['zh-CN'])
  app.i18n.define('en-US', locales['en-US'])
  const t = (locale: string, path: string, params?: object) => app.i18n.render([locale], [path], params ?? []).join('')

  it('says how many related chat lines there are with the right plural in each locale', () => {
    expect(renderOutcome({ kind: 'offline', memories: ['ann lives in Leeds'], related: 1 }, 'en', t)).toBe(
      'I remember:\n- ann lives in Leeds\n(1 related chat message is in the context too)',
    )
    expect(renderOutcome({ kind: 'offline', memories: [], related: 3 }, 'en', t)).toMatch(
      /\n\(3 related chat messages are in the context too\)$/,
    )
    expect(renderOutcome({ kind: 'offline', memories: [], related: 2 }, 'zh', t)).toMatch(/\n（上下文里还有 2 条相关的聊天记录）$/)
  })

  it('adds no tail when no chat line is related', () => {
    expect(renderOutcome({ kind: 'offline', memories: [], related: 0 }, 'en', t)).toBe(t('en-US', 'memory.chat.nothing'))
  })

  it('words the trace of an offline answer with the right plural', () => {
    const trace = (memories: number) => t('en-US', 'commands.memory.trace.messages.generate-offline', { memories })
    expect(trace(1)).toBe('the offline answer, 1 memory')
    expect(trace(2)).toBe('the offline answer, 2 memories')
  })
})
