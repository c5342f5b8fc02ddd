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

/** A string literal in near-JSON (double, single or typographic quotes), or one cut off by the end of the text. */
const STRING = /"(?:[^"\\]|\\[\s\S])*"?|'(?:[^'\\]|\\[\s\S])*'?|“[^”]*”?|‘[^’]*’?/g

/** `text` with `fix` applied to what lies outside its strings. */
function outsideStrings(text: string, fix: (gap: string) => string): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(STRING)) {
    out += fix(text.slice(last, match.index)) + match[0]
    last = match.index + match[0].length
  }
  return out + fix(text.slice(last))
}

/**
 * What `jsonrepair` reads otherwise: NaN and ±Infinity (it would make them strings; JSON writes them
 * null), and the full-width colon and comma Chinese answers put between tokens.
 */
const normalise = (text: string) =>
  outsideStrings(text, (gap) =>
    gap
      .replace(/-?\b(?:NaN|Infinity)\b/g, 'null')
      .replace(/：/g, ':')
      .replace(/，/g, ','),
  )

export function tryRepair(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(normalise(text))) }
  } catch {
    return { ok: false }
  }
}

const isContainer = (value: unknown) => typeof value === 'object' && value !== null

/** An opening bracket followed by what JSON puts there (a key, a value, a close), not by prose like `[see`. */
const LOOKS_LIKE_JSON = /^[{[]\s*(?:["'{[\]}\d-]|true|false|null)/

/**
 * A span repaired; when it was cut short, also without its unfinished last element (cut at its last
 * comma), which a schema may take where the element's remains (`{"ab": null}`) fail it.
 */
function* repaired(span: string): Generator<unknown> {
  const whole = tryRepair(span)
  if (whole.ok && isContainer(whole.value)) yield whole.value
  if (balancedEnd(span, 0) >= 0) return
  const comma = span.replace(STRING, (string) => ' '.repeat(string.length)).lastIndexOf(',')
  if (comma <= 0) return
  const shorter = tryRepair(span.slice(0, comma))
  if (shorter.ok && isContainer(shorter.value)) yield shorter.value
}

/** The JSON objects and arrays in `text`, best first: strict candidates first, then repaired ones. */
function* spanValues(text: string): Generator<unknown> {
  const starts: number[] = []
  for (let i = 0; i < text.length; i++) if (text[i] === '{' || text[i] === '[') starts.push(i)
  // Pass 1: a balanced span that is valid JSON as it stands. Prose such as "[note]" before the
  // answer is not valid JSON, so it never comes before the real answer here.
  for (const start of starts) {
    const end = balancedEnd(text, start)
    if (end < 0) continue
    const parsed = tryParse(text.slice(start, end))
    if (!parsed.ok) continue
    // a valid span inside an enclosing one that is JSON with a slip (`{"facts": ["a"],}`) or cut
    // short (`{"facts": [{…}, {"ab`): the answer is the enclosing one
    for (const outer of starts) {
      if (outer >= start) break
      const outerEnd = balancedEnd(text, outer)
      if ((outerEnd >= 0 && outerEnd < end) || !LOOKS_LIKE_JSON.test(text.slice(outer, outer + 40))) continue
      yield* repaired(text.slice(outer, outerEnd < 0 ? undefined : outerEnd))
    }
    yield parsed.value
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
    for (const candidate of candidates) yield* repaired(candidate)
  }
}

/** The values `text` may hold, best first; JSON written out as a string (`"{\"a\": 1}"`, or without its quotes) is read inside. */
function* textValues(text: string): Generator<unknown> {
  const trimmed = text.trim()
  const whole = tryParse(trimmed)
  if (whole.ok && typeof whole.value === 'string') yield* textValues(whole.value)
  else if (trimmed.includes('\\"')) {
    const unquoted = tryParse(`"${trimmed}"`)
    if (unquoted.ok) yield* spanValues(unquoted.value as string)
  }
  yield* spanValues(text)
}

const THINK_TAG = /<\/?(?:think|thinking)\b/i

/**
 * Valid JSON spans of the answer as it came that hold a think tag: there the tag is text the answer
 * quotes (a chat about reasoning models), not reasoning, and removing it would break the answer.
 */
function* quotedTags(text: string): Generator<unknown> {
  if (!THINK_TAG.test(text)) return
  const whole = tryParse(text.trim())
  if (whole.ok && typeof whole.value === 'string') yield* quotedTags(whole.value)
  for (let start = 0; start < text.length; start++) {
    if (text[start] !== '{' && text[start] !== '[') continue
    const end = balancedEnd(text, start)
    if (end < 0 || !THINK_TAG.test(text.slice(start, end))) continue
    const parsed = tryParse(text.slice(start, end))
    if (parsed.ok) yield parsed.value
  }
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat
}

function* candidates(text: string, cleaned: string): Generator<unknown> {
  yield* quotedTags(text)
  for (const block of [...fencedBlocks(cleaned), cleaned]) yield* textValues(block)
}

/**
 * The JSON object or array an LLM answer gives. Reasoning blocks are removed, fenced blocks are
 * searched first, leading and trailing prose is skipped, and near-JSON is repaired with `jsonrepair`.
 * With `accept` (a schema's check), the first candidate it accepts wins, so an example of the format
 * or a footnote in brackets before the answer does not; when none is accepted the best candidate is
 * returned, for the schema to say what is wrong. Throws an `Error` saying what was received when no
 * object or array can be read.
 */
export function extractJson(text: string, accept: (value: unknown) => boolean = () => true): unknown {
  const cleaned = stripThinking(text ?? '')
  let best: { value: unknown } | undefined
  for (const value of candidates(text ?? '', cleaned)) {
    if (accept(value)) return value
    best ??= { value }
  }
  if (best) return best.value
  if (!cleaned.trim()) throw new Error('no JSON in the answer: it is empty')
  throw new Error(`no JSON object or array in the answer: "${preview(cleaned)}"`)
}

/**
 * Whether the answer's JSON stops before its end (the model ran out of tokens, the connection was cut):
 * its first JSON-looking bracket never closes and the answer does not end with a closing bracket. What
 * repair makes of such an answer lacks what was cut off.
 */
export function isCutShort(text: string): boolean {
  const cleaned = stripThinking(text ?? '')
  const body = [...fencedBlocks(cleaned), cleaned].map((block) => block.trim()).find(Boolean) ?? ''
  if (/[}\]]$/.test(body)) return false
  for (let start = 0; start < body.length; start++) {
    if (body[start] !== '{' && body[start] !== '[') continue
    if (!LOOKS_LIKE_JSON.test(body.slice(start, start + 40))) continue
    return balancedEnd(body, start) < 0
  }
  return false
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
