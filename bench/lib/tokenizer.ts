import { countTokens as countPlugin, renderLine, TOKENIZER as ENCODING } from '../../src/text/token-count'

/**
 * The one tokenizer every bench counts with: the plugin's own (`src/text/token-count.ts`, `o200k_base`
 * through `gpt-tokenizer` v4), so baselines and the context builder are charged alike.
 */
export const TOKENIZER = `${ENCODING} (gpt-tokenizer 4)`

export { renderLine }

const cache = new Map<string, number>()

/** Tokens of `text` (memoised: the LoCoMo bench counts every turn at three budgets). */
export function countTokens(text: string): number {
  if (!text) return 0
  const known = cache.get(text)
  if (known !== undefined) return known
  const n = countPlugin(text)
  if (cache.size > 200_000) cache.clear()
  cache.set(text, n)
  return n
}
