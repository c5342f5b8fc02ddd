import { describe, expect, it } from 'vitest'
import { isAllCjk, isCjk, isCjkCodePoint, normalizeText, tokenize, words } from '../../src/text/tokens'

describe('words', () => {
  it('segments Chinese by dictionary, not by spaces', () => {
    expect(words('我喜欢吃北京烤鸭，明天去上海出差！')).toEqual(['我', '喜欢', '吃', '北京', '烤鸭', '明天', '去', '上海', '出差'])
  })

  it('lowercases Latin words and keeps contractions whole', () => {
    expect(words("I'm going to Paris tomorrow, don't forget.")).toEqual(["i'm", 'going', 'to', 'paris', 'tomorrow', "don't", 'forget'])
  })

  it('folds the typographic apostrophe into the ASCII one', () => {
    expect(words('I’m here')).toEqual(["i'm", 'here'])
  })

  it('maps full-width letters and digits to half-width through NFKC', () => {
    expect(words('ＡＢＣ１２３ Ｈｅｌｌｏ')).toEqual(['abc123', 'hello'])
  })

  it('drops punctuation, whitespace and emoji', () => {
    expect(words('😀 ，。！？ ... \n\t 🎉好的🎉')).toEqual(['好的'])
    expect(words('')).toEqual([])
    expect(words('😀😀 !!!')).toEqual([])
  })

  it('handles mixed Chinese and English in one line', () => {
    expect(words('今天用Koishi写bot')).toEqual(['今天', '用', 'koishi', '写', 'bot'])
  })
})

describe('isCjk', () => {
  it('recognises Han, kana and Hangul, and rejects Latin, digits and CJK punctuation', () => {
    for (const ch of ['中', '㐀', '𠀀', 'あ', 'カ', '한', '々']) expect(isCjk(ch), ch).toBe(true)
    for (const ch of ['a', 'Z', '1', '，', '。', '😀', ' ', '']) expect(isCjk(ch), JSON.stringify(ch)).toBe(false)
    expect(isCjkCodePoint(0x4e2d)).toBe(true)
    expect(isCjkCodePoint(0x41)).toBe(false)
  })

  it('isAllCjk needs every character to be CJK', () => {
    expect(isAllCjk('北京')).toBe(true)
    expect(isAllCjk('北京2')).toBe(false)
    expect(isAllCjk('')).toBe(false)
  })
})

describe('tokenize', () => {
  it('joins adjacent CJK words into runs and breaks runs at punctuation and Latin words', () => {
    const t = tokenize('我喜欢吃烤鸭，好吃 ok了')
    expect(t.words).toEqual(['我', '喜欢', '吃', '烤鸭', '好吃', 'ok', '了'])
    expect(t.cjkRuns).toEqual(['我喜欢吃烤鸭', '好吃', '了'])
  })

  it('returns nothing for empty text', () => {
    expect(tokenize('')).toEqual({ words: [], cjkRuns: [] })
  })
})

describe('normalizeText', () => {
  it('applies NFKC and lowercases', () => {
    expect(normalizeText('ＡＢＣ，Ｄ')).toBe('abc,d')
  })

  it('drops invisible format marks, so a word with a zero-width or direction mark glued on still matches', () => {
    expect(normalizeText('qubeneto\u202e\u200d')).toBe('qubeneto')
    expect(words('我喜欢吃\u200bqubeneto\ufeff')).toContain('qubeneto')
  })
})
