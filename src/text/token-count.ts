import { countTokens as countO200k } from 'gpt-tokenizer'

/**
 * The one tokenizer every token budget of the plugin is counted with: OpenAI's `o200k_base`
 * (GPT-4o and later), through `gpt-tokenizer`. Other models split text differently, so a budget is
 * an estimate for them, but one that is the same everywhere: the context builder, the prompt
 * assembler, the metrics and the benchmarks all count with this function.
 */
export const TOKENIZER = 'o200k_base'

/** Tokens of `text` under `TOKENIZER`. Special-token markers in user text are counted as plain text. */
export function countTokens(text: string): number {
  if (!text) return 0
  try {
    return countO200k(text)
  } catch {
    // `gpt-tokenizer` refuses some special-token strings (`<|endoftext|>`); count them as plain text.
    return countO200k(text.replace(/<\|/g, '< |'))
  }
}

/**
 * A message as it is rendered in a context or a prompt transcript: `name: content`. Token counts of
 * context messages are taken on exactly this line, so a budget holds for what is actually sent.
 */
export function renderLine(name: string, content: string): string {
  return name ? `${name}: ${content}` : content
}

/**
 * The longest prefix of `text` within `maxTokens`: whole sentences (or lines) when at least one
 * fits, else a cut by characters ending in "…". Returns '' when nothing fits.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const trimmed = text.trim()
  if (!trimmed || maxTokens <= 0) return ''
  if (countTokens(trimmed) <= maxTokens) return trimmed
  let out = ''
  for (const sentence of trimmed.match(/[^。！？.!?\n]+[。！？.!?\n]*/g) ?? [trimmed]) {
    if (countTokens((out + sentence).trim()) > maxTokens) break
    out += sentence
  }
  out = out.trim()
  if (out) return out
  const length = cutLength(trimmed, maxTokens)
  return length ? trimmed.slice(0, length) + '…' : ''
}

/**
 * Length of the longest prefix of `text` that, with "…" after it, fits `maxTokens` (binary search), and
 * that does not end between the halves of a surrogate pair (a lone half is not valid text to send).
 */
export function cutLength(text: string, maxTokens: number): number {
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (countTokens(text.slice(0, mid) + '…') <= maxTokens) lo = mid
    else hi = mid - 1
  }
  return lo > 0 && /[\ud800-\udbff]/.test(text[lo - 1]) ? lo - 1 : lo
}
