import type { Context } from 'koishi'
import type { ExportSelection, ImportResult } from '../../transfer'
import { WholeTooLarge } from '../../transfer'
import type { Authorities, ExportChoice, ExportView, ImportView } from '../types'
import type { Routes } from './route'
import { ConsoleError, groupArg, id, route, text, userArg } from './route'

/** Largest file the page may import, in characters (the command reads up to 64 MB). */
const IMPORT_MAX_CHARS = 32 * 1024 * 1024
/** Largest export the page downloads (it travels as one message); `memory.export` writes any size to a file. */
const EXPORT_MAX_CHARS = IMPORT_MAX_CHARS

class ExportTooLarge extends Error {}

function importView(result: ImportResult): ImportView {
  return {
    formats: result.formats,
    counts: result.counts,
    renamed: result.renamed,
    unlinked: result.unlinked,
    bad: result.bad.slice(0, 50),
    layout: result.layout,
  }
}

/** `memory-group-sandbox-123-20260301-093005.jsonl`: letters, digits, `.`, `_` and `-` only. */
function exportName(label: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, '')
  return `memory-${label.replace(/[^\w.-]+/g, '_').slice(0, 80)}-${stamp}.jsonl`
}

/** Import/export: everything, a user or a group as JSON Lines, and reading such a file (or mem0's) back. */
export function transferRoutes(ctx: Context, authority: Authorities): Routes {
  const memory = () => ctx.memory
  return {
    'memory/export': route(authority.transfer, async (_caller, [choice]): Promise<ExportView> => {
      const given = (choice ?? {}) as ExportChoice
      let selection: ExportSelection
      let label: string
      if (given.kind === 'user') {
        const owner = userArg(given.user)
        selection = { user: owner }
        label = `user-${owner.platform}-${owner.userId}`
      } else if (given.kind === 'group') {
        const group = groupArg(given.group)
        selection = { group }
        label = `group-${group.platform}-${group.guildId}`
      } else if (given.kind === 'all') {
        selection = { all: true }
        label = 'all'
      } else throw new ConsoleError('bad-request', 'export all, a user or a group')
      const chunks: string[] = []
      let size = 0
      // read a chunk at a time and given up past the limit, so a large memory is never held whole here
      const result = await memory()
        .exportMemoryTo(selection, async (chunk) => {
          size += chunk.length
          if (size > EXPORT_MAX_CHARS) throw new ExportTooLarge()
          chunks.push(chunk)
        })
        .catch((error: unknown) => {
          if (error instanceof ExportTooLarge) throw new ConsoleError('export-too-large', String(EXPORT_MAX_CHARS >> 20))
          throw error
        })
      return { fileName: exportName(label, new Date()), text: chunks.join(''), total: result.total, counts: result.counts }
    }),

    'memory/import': route(authority.transfer, async (_caller, [file, options]) => {
      const body = text(file, 'file', IMPORT_MAX_CHARS)
      if (!body.replace(/^\uFEFF/, '').trim()) throw new ConsoleError('import-empty')
      const given = (typeof options === 'object' && options ? options : {}) as Record<string, unknown>
      // mem0's memories name no platform: the one given (their user_id, or the user given, is the owner)
      const platform = given.platform === undefined || given.platform === '' ? undefined : id(given.platform, 'platform')
      const userId = given.userId === undefined || given.userId === '' ? undefined : id(given.userId, 'userId')
      const result = await memory()
        .importMemory(body, { platform, userId })
        .catch((error: unknown) => {
          if (error instanceof WholeTooLarge) throw new ConsoleError('import-too-large-json')
          throw error
        })
      if (!result.formats.ours && !result.formats.mem0) throw new ConsoleError('import-format', result.bad[0]?.problem)
      return importView(result)
    }),
  }
}
