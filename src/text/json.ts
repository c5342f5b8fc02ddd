import { jsonrepair } from 'jsonrepair'

/**
 * Tolerant extraction of JSON from LLM answers. Models wrap JSON in reasoning blocks
 * (`<think>…</think>`), Markdown fences and prose, and produce near-JSON (single quotes, trailing
 * commas, Python `True`, unescaped quotes, truncated endings); `jsonrepair` fixes the latter.
 */

/**
 * Removes reasoning blocks: every `<think>…</think>` (also `<thinking>`), an unclosed `<think>` to
 * the end of the text, and everything before a stray `</think>` whose opening tag the server dropped.
 */
export function stripThinking(text: string): string {
  let out = text.replace(/<(think|thinking)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
  let strayEnd = -1
  for (const match of out.matchAll(/<\/(?:think|thinking)\s*>/gi)) strayEnd = match.index! + match[0].length
  if (strayEnd >= 0) out = out.slice(strayEnd)
  out = out.replace(/<(?:think|thinking)\b[^>]*>[\s\S]*$/i, '')
  return out
}

/** Contents of Markdown code fences (```json … ```, ``` … ```, ~~~ … ~~~), in order; an unclosed fence runs to the end. */
function fencedBlocks(text: string): string[] {
  const blocks: string[] = []
  const fence = /(^|\n)[ \t]*(```|~~~)[^\n]*\n([\s\S]*?)(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g
  let match: RegExpExecArray | null
  while ((match = fence.exec(text))) blocks.push(match[3])
  return blocks
}

/**
 * Index one past the bracket that closes the one at `start`, honouring strings and escapes, or -1
 * when the text ends first (a truncated answer).
 */
function balancedEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

export function tryRepair(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)) }
  } catch {
    return { ok: false }
  }
}

const isContainer = (value: unknown) => typeof value === 'object' && value !== null

/** An opening bracket followed by what JSON puts there (a key, a value, a close), not by prose like `[see`. */
const LOOKS_LIKE_JSON = /^[{[]\s*(?:["{[\]}\d-]|true|false|null)/

/** First JSON object or array in `text`: strict candidates first, then repaired ones. */
function findJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const starts: number[] = []
  for (let i = 0; i < text.length; i++) if (text[i] === '{' || text[i] === '[') starts.push(i)
  if (!starts.length) return { ok: false }
  // Pass 1: a balanced span that is valid JSON as it stands. Prose such as "[note]" before the
  // answer is not valid JSON, so it never wins over the real answer here.
  for (const start of starts) {
    const end = balancedEnd(text, start)
    if (end < 0) continue
    const parsed = tryParse(text.slice(start, end))
    if (!parsed.ok) continue
    // a valid span inside an enclosing one that is JSON with a slip (`{"facts": ["a"],}`): the answer is the enclosing one
    for (const outer of starts) {
      if (outer >= start) break
      const outerEnd = balancedEnd(text, outer)
      if (outerEnd < end || !LOOKS_LIKE_JSON.test(text.slice(outer, outer + 40))) continue
      const repaired = tryRepair(text.slice(outer, outerEnd))
      if (repaired.ok && isContainer(repaired.value)) return repaired
    }
    return parsed
  }
  // Pass 2: repair. From each start, try the span up to the last closing bracket of the same kind
  // (survives unescaped quotes that fool the balance scan), the balanced span, then the rest of the
  // text (a truncated answer).
  for (const start of starts) {
    const close = text[start] === '{' ? '}' : ']'
    const candidates = new Set<string>()
    const last = text.lastIndexOf(close)
    if (last > start) candidates.add(text.slice(start, last + 1))
    const end = balancedEnd(text, start)
    if (end > 0) candidates.add(text.slice(start, end))
    candidates.add(text.slice(start))
    for (const candidate of candidates) {
      const repaired = tryRepair(candidate)
      if (repaired.ok && isContainer(repaired.value)) return repaired
    }
  }
  return { ok: false }
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat
}

/**
 * The first JSON object or array in an LLM answer. Reasoning blocks are removed, fenced blocks are
 * searched first, leading and trailing prose is skipped, and near-JSON is repaired with `jsonrepair`.
 * Throws an `Error` saying what was received when no object or array can be read.
 */
export function extractJson(text: string): unknown {
  const cleaned = stripThinking(text ?? '')
  for (const block of fencedBlocks(cleaned)) {
    const found = findJson(block)
    if (found.ok) return found.value
  }
  const found = findJson(cleaned)
  if (found.ok) return found.value
  if (!cleaned.trim()) throw new Error('no JSON in the answer: it is empty')
  throw new Error(`no JSON object or array in the answer: "${preview(cleaned)}"`)
}

/** One JSON Lines value: the line, or its balanced span (trailing prose), strict first, then repaired. */
function lineValue(line: string): { ok: true; value: unknown } | { ok: false } {
  const end = balancedEnd(line, 0)
  const span = end > 0 ? line.slice(0, end) : line
  for (const attempt of [tryParse(line), tryParse(span)]) if (attempt.ok) return attempt
  for (const candidate of [line, span]) {
    const repaired = tryRepair(candidate)
    if (repaired.ok && isContainer(repaired.value)) return repaired
  }
  return { ok: false }
}

/** A line that is structure around JSON Lines rather than a value: fences, comments, lone brackets. */
const SKIP_LINE = /^(?:```|~~~|\/\/|#|[[\]],?$)/

/**
 * JSON Lines from an LLM answer: one value per line. Blank lines, fence lines, comment lines (`//`,
 * `#`) and lines with no `{` or `[` (prose such as "Here are the results:") are skipped; leading
 * list markers (`- `, `1. `) and trailing commas are tolerated; each line is repaired on its own,
 * so one bad line never loses the others — it is reported in `failures` instead. An answer that is
 * as a whole a JSON array (possibly fenced or spread over several lines) yields its elements.
 */
export function parseJsonLines(text: string): { values: unknown[]; failures: string[] } {
  const cleaned = stripThinking(text ?? '')
  const whole = [...fencedBlocks(cleaned), cleaned].map((t) => t.trim()).find((t) => t.length > 0) ?? ''
  if (whole.startsWith('[')) {
    const parsed = tryParse(whole)
    if (parsed.ok && Array.isArray(parsed.value)) return { values: parsed.value, failures: [] }
    if (!whole.includes('\n')) {
      const repaired = tryRepair(whole)
      if (repaired.ok && Array.isArray(repaired.value)) return { values: repaired.value, failures: [] }
    }
  }

  const values: unknown[] = []
  const failures: string[] = []
  for (const raw of cleaned.split(/\r?\n/)) {
    let line = raw.trim()
    if (!line || SKIP_LINE.test(line)) continue
    const first = line.search(/[{[]/)
    if (first < 0) continue
    line = line.slice(first).replace(/,\s*$/, '')
    const value = lineValue(line)
    if (value.ok) values.push(value.value)
    else failures.push(raw.trim())
  }
  return { values, failures }
}
