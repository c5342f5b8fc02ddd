import { describe, expect, it } from 'vitest'
import { countTokens, ESTIMATED_ENCODING, renderLine, truncateToTokens } from '../../src/text/token-count'

describe('token counting', () => {
  it('names the encoding it estimates and counts with it', () => {
    expect(ESTIMATED_ENCODING).toBe('o200k_base')
    expect(countTokens('')).toBe(0)
    expect(countTokens('hello world')).toBe(2)
    expect(countTokens('我喜欢吃北京烤鸭')).toBeGreaterThan(2)
  })

  it('counts special-token markers in user text as plain text instead of throwing', () => {
    expect(countTokens('<|endoftext|> hi')).toBeGreaterThan(2)
  })

  it('renders a message as name: content', () => {
    expect(renderLine('Alice', 'hi')).toBe('Alice: hi')
    expect(renderLine('', 'hi')).toBe('hi')
  })

  it('truncates to whole sentences, then to characters', () => {
    const text = 'First sentence here. Second sentence is a bit longer. Third one.'
    const cut = truncateToTokens(text, 8)
    expect(cut).toBe('First sentence here. Second sentence is a bit longer.'.slice(0, cut.length))
    expect(countTokens(cut)).toBeLessThanOrEqual(8)
    expect(cut.endsWith('.')).toBe(true)
    const long = truncateToTokens('a'.repeat(400), 5)
    expect(long.endsWith('…')).toBe(true)
    expect(countTokens(long)).toBeLessThanOrEqual(5)
    expect(truncateToTokens(text, 100)).toBe(text)
    expect(truncateToTokens(text, 0)).toBe('')
  })
})
