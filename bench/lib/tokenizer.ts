import { countTokens as o200k } from 'gpt-tokenizer'

/**
 * The one tokenizer every bench counts with: `o200k_base` (GPT-4o and later), the default encoding of
 * `gpt-tokenizer` v4 — the same encoding `src/text/token-count.ts` budgets with.
 */
export const TOKENIZER = 'o200k_base (gpt-tokenizer 4)'

const cache = new Map<string, number>()

/** Tokens of `text` (memoised: the LoCoMo bench counts every turn at three budgets). */
export function countTokens(text: string): number {
  if (!text) return 0
  const known = cache.get(text)
  if (known !== undefined) return known
  let n: number
  try {
    n = o200k(text)
  } catch {
    // special-token strings (`<|endoftext|>`) are refused; count them as plain text
    n = o200k(text.replace(/<\|/g, '< |'))
  }
  if (cache.size > 200_000) cache.clear()
  cache.set(text, n)
  return n
}

/** A chat line as a context shows it: `name: content`. */
export function renderLine(name: string, content: string): string {
  return name ? `${name}: ${content}` : content
}
