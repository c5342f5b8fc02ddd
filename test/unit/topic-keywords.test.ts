import { describe, expect, it } from 'vitest'
import {
  MAX_KEYWORDS,
  cleanTitle,
  isLowSignal,
  keywordTitle,
  mergeKeywords,
  rebuildTopicWords,
  topKeywords,
} from '../../src/topics/keywords'
import { contentWords, topicText } from '../../src/text/topic-words'

describe('contentWords', () => {
  it('keeps what a Chinese line is about and drops function words', () => {
    expect(contentWords('这周末有人一起去爬山吗？想去香山看红叶')).toEqual(['周末', '爬山', '香山', '红叶'])
  })

  it('joins single characters the segmenter left apart (显卡 → 显 / 卡)', () => {
    expect(contentWords('CPU是13600K，配这张显卡会不会有瓶颈')).toEqual(['cpu', '13600k', '显卡', '瓶颈'])
  })

  it('keeps model numbers, drops short numbers and number slang', () => {
    expect(contentWords('4070 还是 3 个 666')).toEqual(['4070'])
  })

  it('drops English stop words and short words', () => {
    expect(contentWords("I'm going hiking this weekend, are you in?")).toEqual(['hiking', 'weekend'])
  })
})

describe('topicText', () => {
  it('blanks stop words out and keeps CJK runs together', () => {
    expect(topicText('CPU是13600K，配这张显卡会不会有瓶颈')).toBe('cpu 13600k 配 显卡 瓶颈')
    expect(topicText('哈哈哈')).toBe('')
  })
})

describe('isLowSignal', () => {
  it('is true for acknowledgements, laughter, emoji and bare reactions', () => {
    for (const text of ['哈哈哈哈', '好的', 'ok', '👍👍', '[图片]', '', '我也是', '真的吗？', 'same here lol', '+1']) {
      expect(isLowSignal(text), text).toBe(true)
    }
  })

  it('is false for a line that names something', () => {
    for (const text of ['周末爬山吗', '显卡到了', 'lunch?', '4070 Super']) expect(isLowSignal(text), text).toBe(false)
  })
})

describe('mergeKeywords', () => {
  it('adds one per message a word appears in and decays older weights', () => {
    let keywords = mergeKeywords({}, '香山红叶，香山爬山')
    expect(keywords).toEqual({ 香山: 1, 红叶: 1, 爬山: 1 })
    keywords = mergeKeywords(keywords, '香山人多')
    expect(keywords.香山).toBeCloseTo(1.97)
    expect(keywords.红叶).toBeCloseTo(0.97)
    expect(topKeywords(keywords, 1)).toEqual(['香山'])
  })

  it('keeps at most MAX_KEYWORDS', () => {
    let keywords: Record<string, number> = {}
    for (let i = 0; i < 50; i++) keywords = mergeKeywords(keywords, `keyword${i} topic${i}`)
    expect(Object.keys(keywords)).toHaveLength(MAX_KEYWORDS)
    expect(keywords.keyword49).toBe(1)
  })

  it('leaves the keywords alone for a message without content words', () => {
    expect(mergeKeywords({ 香山: 1 }, '哈哈哈')).toEqual({ 香山: 1 })
  })
})

describe('titles', () => {
  it('names a topic by its three heaviest keywords, in the language of the words', () => {
    expect(keywordTitle({ 香山: 3, 红叶: 2, 爬山: 1.5, 周末: 1 }, '')).toBe('香山、红叶、爬山')
    expect(keywordTitle({ hiking: 2, weekend: 1 }, '')).toBe('hiking, weekend')
  })

  it('falls back to the start of the message', () => {
    expect(keywordTitle({}, '哈哈哈')).toBe('哈哈哈')
    expect([...keywordTitle({}, '啊'.repeat(50))]).toHaveLength(20)
  })

  it('cleans a model title', () => {
    expect(cleanTitle('标题：“周末爬山”')).toBe('周末爬山')
    expect(cleanTitle('**Weekend hike**\nbecause…')).toBe('Weekend hike')
    expect([...cleanTitle('x'.repeat(100))]).toHaveLength(40)
  })
})

describe('rebuildTopicWords', () => {
  it('makes keywords and title from the messages given, and nothing from none', () => {
    const rebuilt = rebuildTopicWords([{ content: '周末去香山爬山' }, { content: '香山红叶正好，周末人多' }])
    expect(Object.keys(rebuilt.keywords)).toContain('香山')
    expect(rebuilt.title).toContain('香山')
    expect(rebuildTopicWords([])).toEqual({ keywords: {}, title: '' })
  })
})
