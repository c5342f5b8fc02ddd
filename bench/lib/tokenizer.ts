import { countTokens as countO200k } from 'gpt-tokenizer'
import { renderLine } from '../../src/text/token-count'

/**
 * The one tokenizer every bench reports with: `o200k_base` itself (`gpt-tokenizer` v4, a development
 * dependency), so baselines and what the context builder sent are charged their real tokens. The
 * plugin budgets with its estimate of the same encoding (`src/text/token-count.ts`), which errs high.
 */
export const TOKENIZER = 'o200k_base (gpt-tokenizer 4)'

export { renderLine }

const cache = new Map<string, number>()

/** Tokens of `text` (memoised: the LoCoMo bench counts every turn at three budgets). Special-token markers count as plain text. */
export function countTokens(text: string): number {
  if (!text) return 0
  const known = cache.get(text)
  if (known !== undefined) return known
  const n = countO200k(text.replace(/<\|/g, '< |'))
  if (cache.size > 200_000) cache.clear()
  cache.set(text, n)
  return n
}
