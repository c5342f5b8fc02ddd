import { createReadStream } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/** What an export line holds, as JSON writes it: `"platform":"qq"` and `"userId":"alice"`, or a text. */
export function jsonField(name: string, value: string): string {
  return `${JSON.stringify(name)}:${JSON.stringify(value)}`
}

export function jsonText(text: string): string {
  return JSON.stringify(text).slice(1, -1)
}

/**
 * The export files the plugin wrote (`memory.export`) with a line that holds every part of one of
 * `needles` (a forgotten user's platform and id, or a forgotten fact's text). Read line by line: an
 * export can be large.
 */
export async function exportsHolding(dir: string, needles: string[][]): Promise<string[]> {
  const wanted = needles.filter((parts) => parts.length && parts.every(Boolean))
  if (!wanted.length) return []
  let names: string[]
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map((entry) => entry.name)
  } catch {
    return []
  }
  const found: string[] = []
  for (const name of names) if (await holds(join(dir, name), wanted)) found.push(join(dir, name))
  return found
}

async function holds(file: string, needles: string[][]): Promise<boolean> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
  try {
    for await (const line of lines) if (needles.some((parts) => parts.every((part) => line.includes(part)))) return true
    return false
  } catch {
    return false
  } finally {
    lines.close()
  }
}

/** Deletes export files; returns how many went. */
export async function removeExports(files: string[]): Promise<number> {
  let removed = 0
  for (const file of files) {
    try {
      await rm(file)
      removed++
    } catch {
      // gone already, or not ours to delete: the next forget looks again
    }
  }
  return removed
}
