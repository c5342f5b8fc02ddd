import { describe, expect, it } from 'vitest'
import { assemblePrompt, promptTokens } from '../../src/context/prompt'
import type { ContextMessage } from '../../src/context/types'
import { countTokens } from '../../src/text/token-count'
import { T0 } from '../fakes/message-rows'

function message(userName: string, content: string, role: 'user' | 'assistant' = 'user'): ContextMessage {
  return {
    id: content,
    messageId: content,
    userId: userName.toLowerCase(),
    userName,
    role,
    content,
    createdAt: new Date(T0),
    score: 0.5,
    tokens: 1,
    sources: ['time-window'],
    signals: {},
  }
}
const memory = (content: string) => ({
  id: content,
  content,
  score: 0.9,
  relevance: 0.9,
  createdAt: new Date(T0),
  scope: { platform: 'p', userId: 'u', guildId: '', channelId: 'c' },
})

describe('assemblePrompt', () => {
  it('orders system prompt, long-term memories, summary, episodes, context and the current message', () => {
    const messages = assemblePrompt({
      system: 'You are a helpful bot.',
      context: {
        longTerm: [memory('Ann is vegetarian')],
        summary: 'Ann and Bob planned a dinner.',
        messages: [message('Bob', 'Friday works for me'), message('Bot', 'Noted: Friday.', 'assistant')],
      },
      episodes: [{ userText: 'any veggie place?', botText: 'Try Green Table.' }],
      current: { name: 'Ann', content: 'Where should we eat?' },
    })
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'system', 'system', 'user', 'assistant', 'user'])
    expect(messages[0].content).toBe('You are a helpful bot.')
    expect(messages[1].content).toBe('Long-term memories about the user:\n- Ann is vegetarian')
    expect(messages[2].content).toBe('Conversation so far:\nAnn and Bob planned a dinner.')
    expect(messages[3].content).toContain('Try Green Table.')
    expect(messages[4].content).toBe('Bob: Friday works for me')
    expect(messages[5].content).toBe('Noted: Friday.')
    expect(messages[6].content).toBe('Ann: Where should we eat?')
    expect(promptTokens(messages)).toBe(messages.reduce((sum, m) => sum + countTokens(m.content), 0))
  })

  it('uses Chinese headings for a Chinese message and leaves out empty sections', () => {
    const messages = assemblePrompt({
      system: '',
      context: { longTerm: [memory('小明喜欢烤鸭')], summary: '', messages: [] },
      current: { name: '小明', content: '今晚吃什么？' },
    })
    expect(messages).toEqual([
      { role: 'system', content: '关于用户的长期记忆：\n- 小明喜欢烤鸭' },
      { role: 'user', content: '小明: 今晚吃什么？' },
    ])
  })

  it('can put the context in one transcript block', () => {
    const messages = assemblePrompt({
      system: 'sys',
      context: { longTerm: [], summary: 'earlier', messages: [message('Bob', 'hi'), message('Bot', 'hello', 'assistant')] },
      current: { name: '', content: 'and now?' },
      style: 'transcript',
      language: 'en',
    })
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'system', 'user'])
    expect(messages[2].content).toBe('Relevant chat messages:\nBob: hi\nBot: hello')
    expect(messages[3].content).toBe('and now?')
  })
})
