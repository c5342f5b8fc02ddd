import { describe, expect, it } from 'vitest'
import { clip } from '../../src/text/clip'

describe('clip', () => {
  it('keeps a short text whole', () => {
    expect(clip('Alice likes sushi.', 80)).toBe('Alice likes sushi.')
  })

  it('cuts English between words, never inside one', () => {
    const cut = clip('Alice is learning the guitar with her brother every weekend', 30)
    expect(cut).toBe('Alice is learning the guitar…')
    expect([...cut].length).toBeLessThanOrEqual(30)
  })

  it('cuts Chinese between words', () => {
    const cut = clip('小明下个月要去日本东京旅游，顺便看望在那里读书的表妹', 14)
    expect([...cut].length).toBeLessThanOrEqual(14)
    expect(cut.endsWith('…')).toBe(true)
    expect('小明下个月要去日本东京旅游，顺便看望在那里读书的表妹'.startsWith(cut.slice(0, -1))).toBe(true)
    expect(cut).not.toBe('小明下个月要去日本东京旅…')
  })

  it('cuts inside a word only when one word is longer than the limit', () => {
    expect(clip('Supercalifragilisticexpialidocious', 10)).toBe('Supercali…')
  })
})
