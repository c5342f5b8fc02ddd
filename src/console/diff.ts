/** One run of a word diff: kept (`=`), added (`+`) or removed (`-`). */
export interface DiffPart {
  op: '=' | '+' | '-'
  text: string
}

/** Tokens compared beyond which the diff gives up and shows the old text removed and the new added. */
const MAX_TOKENS = 600

/**
 * Words, runs of white space and single other characters; each CJK character is a token of its own,
 * so a Chinese statement diffs by character as an English one diffs by word.
 */
export function diffTokens(text: string): string[] {
  return text.match(/\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{N}_'’-])+|\s+|./gsu) ?? []
}

/** What changed from `before` to `after`, as runs of kept, removed and added text (a longest common subsequence of tokens). */
export function diffWords(before: string, after: string): DiffPart[] {
  const a = diffTokens(before)
  const b = diffTokens(after)
  if (a.length > MAX_TOKENS || b.length > MAX_TOKENS) {
    const whole: DiffPart[] = []
    if (before) whole.push({ op: '-', text: before })
    if (after) whole.push({ op: '+', text: after })
    return whole
  }
  // lengths of the longest common subsequences of the suffixes
  const width = b.length + 1
  const lcs = new Uint16Array((a.length + 1) * width)
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1])
  const parts: DiffPart[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      parts.push({ op: '=', text: a[i++] })
      j++
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      // on a tie what went comes before what came
      parts.push({ op: '-', text: a[i++] })
    } else {
      parts.push({ op: '+', text: b[j++] })
    }
  }
  return merge(parts)
}

/** Adjacent parts of the same kind joined. */
function merge(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = []
  for (const part of parts) {
    const last = out.at(-1)
    if (last?.op === part.op) last.text += part.text
    else out.push({ ...part })
  }
  return out
}
