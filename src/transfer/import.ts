import { createHash } from 'node:crypto'
import type { Mem0Options } from './mem0'
import { isMem0, mem0Fact } from './mem0'
import { Placer } from './placement'
import type { TransferPorts } from './ports'
import type { RecordKind, RecordRows } from './records'
import type { BadLine, ImportOptions, ImportResult, Item, KindResult } from './results'
import { checkRecord, isOurs, RECORD_KINDS } from './records'
import type { ImportSource, Layout } from './source'
import { layoutOf, readEntries, textSource } from './source'
import { Writer } from './writer'

export type { BadLine, ImportOptions, ImportResult, Item, KindResult } from './results'

const emptyCounts = () =>
  Object.fromEntries(RECORD_KINDS.map((kind) => [kind, { imported: 0, skipped: 0 }])) as Record<RecordKind, KindResult>

/** The rows of a source that pass their schema; `report` hears about the others. */
async function* validItems(
  source: ImportSource,
  layout: Layout,
  mem0: Mem0Options,
  report?: { bad(line: BadLine): void; format(kind: 'ours' | 'mem0'): void; layout(layout: Layout): void },
  wanted?: (line: number) => boolean,
): AsyncGenerator<Item> {
  for await (const read of readEntries(source, layout, wanted)) {
    if ('layout' in read) {
      report?.layout(read.layout)
      continue
    }
    if ('bad' in read) {
      report?.bad(read.bad)
      continue
    }
    const { line, value } = read.entry
    if (isOurs(value)) {
      const checked = checkRecord(value)
      if (!checked.ok) report?.bad({ line, problem: checked.problem, detail: checked.detail })
      else {
        report?.format('ours')
        yield { line, kind: checked.value.kind, data: checked.value.data } as Item
      }
    } else if (isMem0(value)) {
      const checked = mem0Fact(value, mem0)
      if (!checked.ok) report?.bad({ line, problem: checked.problem, detail: checked.detail })
      else {
        report?.format('mem0')
        yield { line, kind: 'fact', data: checked.value }
      }
    } else report?.bad({ line, problem: 'unknown-format' })
  }
}

/** What makes two lines of a kind the same row (their id, or what a summary's or profile's id is made of). */
function identityOf(item: Item): string {
  if (item.kind === 'summary') {
    const row = item.data as RecordRows['summary']
    return `${row.topicId}#${row.version}`
  }
  if (item.kind === 'profile') {
    const row = item.data as RecordRows['profile']
    return JSON.stringify([row.platform, row.guildId, row.userId])
  }
  return item.data.id ?? ''
}

const digest = (data: unknown) => createHash('sha1').update(JSON.stringify(data)).digest('base64')

/**
 * Reads an export (ours, one record a line, or mem0's memories) and re-creates what it holds through
 * each domain's own store and index, in two passes over the source so the file is never held whole:
 * the first checks each line and places its row (its own id when free and fitting, else a fresh one; a
 * row already there, or twice in the file, skipped), the second writes the placed rows in batches with
 * their references pointed at the stored ids. A reference to a row of another owner refuses its line
 * (`foreign-reference`); one that names nothing is left out (`unlinked`). A line that cannot be read,
 * a second line with the same id and other content (`conflicting-duplicate`), or a row the database
 * refuses, is reported with its number; the others are imported.
 */
export async function importMemory(ports: TransferPorts, input: string | ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
  const source = typeof input === 'string' ? textSource(input) : input
  const layout = await layoutOf(source)
  const result: ImportResult = { counts: emptyCounts(), bad: [], layout, formats: { ours: 0, mem0: 0 }, renamed: 0, unlinked: 0 }
  const mem0: Mem0Options = { platform: options.platform, userId: options.userId, now: ports.now() }
  const placer = new Placer(ports, result)
  const firstLines = new Map<string, { line: number; digest: string }>()
  const report = {
    bad: (line: BadLine) => result.bad.push(line),
    format: (kind: 'ours' | 'mem0') => result.formats[kind]++,
    layout: (found: Layout) => (result.layout = found),
  }
  for await (const item of validItems(source, layout, mem0, report)) {
    const identity = identityOf(item)
    if (identity) {
      const known = `${item.kind}\n${identity}`
      const first = firstLines.get(known)
      const mine = digest(item.data)
      if (first && first.digest !== mine) {
        result.bad.push({ line: item.line, problem: 'conflicting-duplicate', detail: `line ${first.line}` })
        continue
      }
      if (first) {
        result.counts[item.kind].skipped++
        continue
      }
      firstLines.set(known, { line: item.line, digest: mine })
    }
    await placer.place(item)
  }
  firstLines.clear()
  const placed = placer.placed()
  const writer = new Writer(ports, result, placed)
  const wanted = result.layout === 'lines' ? (line: number) => placed.lines.has(line) : undefined
  for await (const item of validItems(source, layout, mem0, undefined, wanted)) await writer.add(item)
  await writer.finish()
  result.bad.sort((a, b) => a.line - b.line)
  return result
}
