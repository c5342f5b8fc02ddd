import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { App } from 'koishi'

/** Every row of every Koishi table of the plugin, as text, by table. */
export async function koishiTexts(app: App): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const table of Object.keys(app.model.tables).filter((name) => name.startsWith('memory_'))) {
    out.set(table, JSON.stringify(await app.database.get(table as 'memory_message', {})))
  }
  return out
}

/** Files under the LanceDB folder of `dir` whose bytes hold `word` (UTF-8), whatever table or version they belong to. */
export function filesHolding(dir: string, word: string): string[] {
  return filesUnder(dir, 'lancedb', word)
}

/** Files under `dir`/`sub` (the whole folder when `sub` is '') whose bytes hold `word`, named from `dir`. */
export function filesUnder(dir: string, sub: string, word: string): string[] {
  const needle = Buffer.from(word, 'utf8')
  const out: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (readFileSync(path).includes(needle)) out.push(path.slice(dir.length))
    }
  }
  if (existsSync(join(dir, sub))) walk(join(dir, sub))
  return out
}

/** The names of the texts that hold `word`. */
export const holding = (texts: Map<string, string>, word: string) =>
  [...texts].filter(([, text]) => text.includes(word)).map(([name]) => name)

/** The text column of every LanceDB table of the plugin, read with a connection of its own. */
export async function lanceTexts(dir: string): Promise<Map<string, string>> {
  const lancedb = require('@lancedb/lancedb') as typeof import('@lancedb/lancedb')
  const db = await lancedb.connect(join(dir, 'lancedb'))
  const out = new Map<string, string>()
  for (const name of await db.tableNames()) {
    const table = await db.openTable(name)
    const rows = await table.query().select(['text']).toArray()
    out.set(name, rows.map((row) => String(row.text)).join('\n'))
    table.close()
  }
  db.close()
  return out
}
