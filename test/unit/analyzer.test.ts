import { describe, expect, it } from 'vitest'
import { analyzeMessage, classifyMessage, extractMentions, extractReplyInfo } from '../../src/context/analyzer'

describe('message analyzer', () => {
  it('reads reply information: quote, thread, mention', () => {
    expect(extractReplyInfo({ userId: 'u', content: 'yes', messageId: 'm2', replyMessageId: 'm1', rootMessageId: 'm0' })).toEqual({
      messageId: 'm1',
      rootMessageId: 'm0',
      kind: 'quote',
    })
    expect(extractReplyInfo({ userId: 'u', content: 'yes', messageId: 'm2', replyMessageId: 'm1' })).toEqual({
      messageId: 'm1',
      rootMessageId: 'm1',
      kind: 'quote',
    })
    expect(extractReplyInfo({ userId: 'u', content: 'and then?', messageId: 'm3', rootMessageId: 'm0' })).toEqual({
      messageId: '',
      rootMessageId: 'm0',
      kind: 'thread',
    })
    expect(extractReplyInfo({ userId: 'u', content: '@Bob did you see it', messageId: 'm4', rootMessageId: 'm4' })?.kind).toBe('mention')
    expect(extractReplyInfo({ userId: 'u', content: 'plain', messageId: 'm5', rootMessageId: 'm5' })).toBeUndefined()
  })

  it('extracts mentions from platform ids and @names, not @all', () => {
    expect(extractMentions('@Bob @小明，你们看 @all', ['u42'])).toEqual(['u42', 'bob', '小明'])
    expect(extractMentions('mail me at home')).toEqual([])
    expect(extractMentions('@全体成员 开会')).toEqual([])
  })

  it.each([
    ['What time is the meeting?', 'question'],
    ['where do we meet', 'question'],
    ['明天几点开会', 'question'],
    ['你吃饭了吗', 'question'],
    ['这个怎么弄', 'question'],
    ['【通知】明天下午三点开会', 'notification'],
    ['公告：服务器今晚维护', 'notification'],
    ['Reminder: standup at 9', 'notification'],
    ['@all the build is green', 'notification'],
    ['哈哈哈哈', 'casual'],
    ['ok thanks', 'casual'],
    ['😂😂', 'casual'],
    ['I think we should switch the database to PostgreSQL', 'discussion'],
    ['我觉得这个方案的缓存设计有问题', 'discussion'],
  ] as const)('classifies %s as %s', (text, type) => {
    expect(classifyMessage(text)).toBe(type)
  })

  it('classifies replies to questions and answer-like replies as answers', () => {
    expect(classifyMessage('at the station, 3pm', { repliedType: 'question' })).toBe('answer')
    expect(classifyMessage('Because the cache was cold', { isReply: true })).toBe('answer')
    expect(classifyMessage('因为缓存没预热', { isReply: true })).toBe('answer')
    expect(classifyMessage('Because the cache was cold')).toBe('discussion')
  })

  it('analyses a row into features with weighted keywords', () => {
    const features = analyzeMessage({
      messageId: 'm1',
      userId: 'u1',
      userName: 'Ann',
      content: '@Bob 我们周末去爬山吗？ hiking hiking',
      replyMessageId: 'm0',
    })
    expect(features.type).toBe('question')
    expect(features.mentions).toEqual(['bob'])
    expect(features.reply?.kind).toBe('quote')
    expect(features.keywords[0].word).toBe('hik')
    expect(features.keywords.map((k) => k.word)).toEqual(expect.arrayContaining(['周末', '爬山']))
    expect(features.keywords.map((k) => k.word)).not.toContain('我们')
  })
})

describe('question marks', () => {
  it('finds a question mark inside the text but not in a URL', () => {
    expect(classifyMessage('你去吗？我明天去')).toBe('question')
    expect(classifyMessage('see https://example.com/a?b=1 for the log')).toBe('discussion')
    expect(classifyMessage('几乎所有人都到了')).toBe('discussion')
  })
})
