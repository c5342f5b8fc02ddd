import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import type { LineProblem } from './records'
import { isOurs } from './records'

/**
 * What an import reads: something that can be read from the start more than once (an import reads
 * twice: once to place the rows, once to write them), a chunk at a time, so a file is never held whole.
 */
export interface ImportSource {
  open(): AsyncIterable<string | Buffer>
}

/** A file, streamed. */
export const fileSource = (path: string): ImportSource => ({ open: () => createReadStream(path, { highWaterMark: 256 * 1024 }) })

/** Text already in memory (the console's upload, the API), read in slices. */
export function textSource(text: string): ImportSource {
  return {
    async *open() {
      for (let at = 0; at < text.length; at += 1 << 20) yield text.slice(at, at + (1 << 20))
    },
  }
}

/**
 * The longest line read (in characters); a longer one is reported and skipped unread. No field may be
 * longer than `FIELD_MAX_BYTES` (a `json` one `JSON_FIELD_MAX_BYTES`), so a good line is far shorter.
 */
export const LINE_MAX_CHARS = 1 << 20
/**
 * The largest file read as one JSON value (an array, mem0's `{results}`, a pretty-printed record):
 * such a value is parsed whole, so a larger one is refused; JSON Lines have no limit.
 */
export const WHOLE_MAX_CHARS = 16 << 20

interface RawLine {
  line: number
  /** `undefined`: longer than `LINE_MAX_CHARS`, not kept. */
  text?: string
}

/** The lines of a source, 1-based, each at most `LINE_MAX_CHARS` (a longer one comes without its text). */
export async function* readLines(source: ImportSource): AsyncGenerator<RawLine> {
  const decoder = new StringDecoder('utf8')
  let line = 1
  let parts: string[] = []
  let length = 0
  let over = false
  const take = (piece: string) => {
    if (over) return
    if (length + piece.length > LINE_MAX_CHARS) {
      over = true
      parts = []
      return
    }
    parts.push(piece)
    length += piece.length
  }
  const end = (): RawLine => {
    const text = over ? undefined : parts.join('').replace(/\r$/, '')
    parts = []
    length = 0
    over = false
    return { line: line++, text }
  }
  let first = true
  for await (const chunk of source.open()) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
    if (first && text) {
      text = text.replace(/^\uFEFF/, '')
      first = false
    }
    let at = 0
    for (let next = text.indexOf('\n'); next >= 0; next = text.indexOf('\n', at)) {
      take(text.slice(at, next))
      yield end()
      at = next + 1
    }
    take(text.slice(at))
  }
  take(decoder.end())
  if (length || over) yield end()
}

export interface Entry {
  line: number
  value: unknown
}

export type ReadProblem = { line: number; problem: LineProblem }

export type Layout = 'lines' | 'array'

/** What `readEntries` finds: entries and unreadable lines in order, or a file too large to read as one value. */
export type ReadItem = { entry: Entry } | { bad: ReadProblem } | { layout: Layout }

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

export class WholeTooLarge extends Error {
  constructor() {
    super(`one JSON value larger than ${WHOLE_MAX_CHARS >> 20} MB characters`)
    this.name = 'WholeTooLarge'
  }
}

/**
 * The layout of a source: a file whose first line is not a JSON value on its own but starts one (`[`,
 * or `{` of a pretty-printed value) is one JSON value (`array`, also for mem0's `{results: […]}`);
 * anything else is JSON Lines, one record a line.
 */
export async function layoutOf(source: ImportSource): Promise<Layout> {
  for await (const { text } of readLines(source)) {
    if (text === undefined) return 'lines'
    const trimmed = text.trim()
    if (!trimmed) continue
    if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return 'lines'
    const whole = parseJson(trimmed)
    if (!whole.ok) return 'array'
    return listOf(whole.value) ? 'array' : 'lines'
  }
  return 'lines'
}

/** The memories of one JSON value: an array, or mem0's `{results: […]}`. */
function listOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value
  const results = (value as { results?: unknown } | null)?.results
  return Array.isArray(results) && !isOurs(value) ? results : undefined
}

/**
 * The entries of a source, in order. JSON Lines are read a line at a time: a line that is not JSON (or
 * too long) is reported and the others read. One JSON value is read whole, up to `WHOLE_MAX_CHARS`
 * (`WholeTooLarge` beyond); its entries are numbered 1, 2, …; one that is not a list is one entry, and
 * one that does not parse is read as JSON Lines. `wanted` skips JSON Lines unread (the second pass
 * reads only the lines the first placed).
 */
export async function* readEntries(source: ImportSource, layout: Layout, wanted?: (line: number) => boolean): AsyncGenerator<ReadItem> {
  if (layout === 'array') {
    const parts: string[] = []
    let length = 0
    let firstLine = 0
    for await (const { line, text } of readLines(source)) {
      if (text === undefined || length + text.length > WHOLE_MAX_CHARS) throw new WholeTooLarge()
      if (!firstLine && text.trim()) firstLine = line
      parts.push(text)
      length += text.length + 1
    }
    const whole = parseJson(parts.join('\n'))
    parts.length = 0
    if (whole.ok) {
      const list = listOf(whole.value)
      if (list) {
        for (let i = 0; i < list.length; i++) yield { entry: { line: i + 1, value: list[i] } }
        return
      }
      yield { layout: 'lines' }
      yield { entry: { line: firstLine, value: whole.value } }
      return
    }
    yield { layout: 'lines' }
  }
  for await (const { line, text } of readLines(source)) {
    if (wanted && !wanted(line)) continue
    if (text === undefined) {
      yield { bad: { line, problem: 'line-too-long' } }
      continue
    }
    const trimmed = text.trim()
    if (!trimmed) continue
    const parsed = parseJson(trimmed)
    // no detail: the parser's message quotes the line, and the file may not be meant for the chat
    if (parsed.ok) yield { entry: { line, value: parsed.value } }
    else yield { bad: { line, problem: 'not-json' } }
  }
}
