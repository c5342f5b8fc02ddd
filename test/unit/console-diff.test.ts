import { describe, expect, it } from 'vitest'
import { diffTokens, diffWords } from '../../src/console/diff'

const render = (parts: ReturnType<typeof diffWords>) =>
  parts.map((part) => (part.op === '=' ? part.text : part.op === '+' ? `{+${part.text}}` : `[-${part.text}]`)).join('')

describe('console: word diff of two versions', () => {
  it('diffs Chinese by character and English by word, what went before what came', () => {
    expect(render(diffWords('住在成都', '住在重庆'))).toBe('住在[-成都]{+重庆}')
    expect(render(diffWords('The group hikes on Sundays', 'The group cycles on Saturdays'))).toBe(
      'The group [-hikes]{+cycles} on [-Sundays]{+Saturdays}',
    )
  })

  it('puts the two texts back together: the kept and removed parts make the old one, the kept and added the new', () => {
    const cases: [string, string][] = [
      ['', 'new'],
      ['old', ''],
      ['same', 'same'],
      ['小明喜欢吃火锅 and hotpot', '小红不喜欢吃 hotpot，喜欢烧烤'],
      ['a b c d e', 'e d c b a'],
    ]
    for (const [before, after] of cases) {
      const parts = diffWords(before, after)
      expect(
        parts
          .filter((part) => part.op !== '+')
          .map((part) => part.text)
          .join(''),
      ).toBe(before)
      expect(
        parts
          .filter((part) => part.op !== '-')
          .map((part) => part.text)
          .join(''),
      ).toBe(after)
      // runs are merged: no two neighbours of the same kind
      expect(parts.every((part, i) => i === 0 || parts[i - 1].op !== part.op)).toBe(true)
    }
  })

  it('keeps words whole and gives up on very long texts (the old removed, the new added)', () => {
    expect(diffTokens("don't stop-words 2026年")).toEqual(["don't", ' ', 'stop-words', ' ', '2026', '年'])
    const long = 'word '.repeat(700)
    expect(diffWords(long, long + 'more')).toEqual([
      { op: '-', text: long },
      { op: '+', text: long + 'more' },
    ])
  })
})
