import { describe, expect, it } from 'vitest'
import { detectLanguage } from '../../src/text/language'

describe('detectLanguage', () => {
  it('detects plain Chinese and plain English', () => {
    expect(detectLanguage('我下周三要去上海出差')).toBe('zh')
    expect(detectLanguage('I am going to Shanghai next Wednesday')).toBe('en')
  })

  it('keeps Chinese with embedded English names Chinese', () => {
    expect(detectLanguage('明天去看Avengers')).toBe('zh')
    expect(detectLanguage('我今天用ChatGPT写了个script')).toBe('zh')
  })

  it('keeps English with one Chinese word English', () => {
    expect(detectLanguage('My favourite restaurant downtown serves amazing 烤鸭')).toBe('en')
  })

  it('treats full-width Latin as Latin, not CJK', () => {
    expect(detectLanguage('ＨＥＬＬＯ ＷＯＲＬＤ')).toBe('en')
  })

  it('ignores digits, punctuation and emoji, and falls back when there are no letters', () => {
    expect(detectLanguage('12345 !!! 😀')).toBe('en')
    expect(detectLanguage('', 'zh')).toBe('zh')
    expect(detectLanguage('2024-10-25 好')).toBe('zh')
  })
})
