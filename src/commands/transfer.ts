import type { FileHandle } from 'node:fs/promises'
import { link, mkdir, open, realpath, rm, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Context, Session } from 'koishi'
import type { Config } from '../config'
import type { GroupRef } from '../group'
import { GroupMemoryError } from '../group'
import type { BadLine, ExportSelection, ImportResult, KindCounts } from '../transfer'
import { fileSource, RECORD_KINDS, WholeTooLarge, WHOLE_MAX_CHARS } from '../transfer'
import { parseUser } from './users'
import { exportDir as exportFolder } from '../transfer'

/** The largest file `memory.import` reads. */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024
/** Bad lines listed in a reply; the rest are counted. */
const BAD_SHOWN = 10

const baseDir = (ctx: Context) => resolve(ctx.baseDir ?? process.cwd())
/** The folder `memory.import` reads from: Koishi's data folder. */
const dataDir = (ctx: Context) => join(baseDir(ctx), 'data')
/** Where `memory.export` writes. */
const exportDir = (ctx: Context) => exportFolder(ctx.baseDir)

/** A path as the reply shows it: relative to Koishi's base folder, with forward slashes. */
const shown = (ctx: Context, path: string) => relative(baseDir(ctx), path).split(sep).join('/')

function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return Boolean(rel) && !rel.startsWith('..') && !isAbsolute(rel)
}

/** A name part of a file name: letters, digits, `.`, `_` and `-` only. */
const filePart = (text: string) => text.replace(/[^\w.-]+/g, '_').slice(0, 60)

/** `20260301-093005-123`, in UTC. */
const stamp = (time: Date) =>
  time
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.(\d+)Z$/, '-$1')

type Located = { path: string } | { problem: 'outside' | 'not-found' | 'not-a-file' | 'too-large' }

/**
 * The file `memory.import` names: a path relative to Koishi's base folder (or absolute) inside its data
 * folder, or a bare name of a file in the export folder. A path outside the data folder is refused
 * before it is looked at, and so is one whose real place (links followed) is outside.
 */
async function locate(ctx: Context, name: string): Promise<Located> {
  const candidates = [resolve(baseDir(ctx), name)]
  if (!/[/\\]/.test(name)) candidates.push(join(exportDir(ctx), name))
  const allowed = candidates.filter((path) => inside(dataDir(ctx), path))
  if (!allowed.length) return { problem: 'outside' }
  const root = await realpath(dataDir(ctx)).catch(() => undefined)
  if (!root) return { problem: 'not-found' }
  for (const path of allowed) {
    const real = await realpath(path).catch(() => undefined)
    if (!real) continue
    if (!inside(root, real)) return { problem: 'outside' }
    const info = await stat(real)
    if (!info.isFile()) return { problem: 'not-a-file' }
    if (info.size > MAX_IMPORT_BYTES) return { problem: 'too-large' }
    return { path: real }
  }
  return { problem: 'not-found' }
}

const closed = (handle: FileHandle | undefined) => handle?.close().catch(() => undefined)

/** `-g`: `platform:guildId` of a group that exists, or a bare guild id on the caller's platform. */
async function namedGroup(ctx: Context, session: Session, named: string): Promise<GroupRef> {
  return named.includes(':') ? ctx.memory.groups.resolve(named, session.platform) : { platform: session.platform, guildId: named }
}

function countLines(session: Session, counts: Partial<Record<string, string>>) {
  return RECORD_KINDS.filter((kind) => counts[kind]).map((kind) =>
    session.text('commands.memory.messages.transfer-count', [session.text(`commands.memory.messages.transfer-kind-${kind}`), counts[kind]]),
  )
}

function exportCounts(session: Session, counts: KindCounts) {
  return countLines(session, Object.fromEntries(RECORD_KINDS.filter((kind) => counts[kind]).map((kind) => [kind, String(counts[kind])])))
}

function importCounts(session: Session, result: ImportResult) {
  const text = (kind: (typeof RECORD_KINDS)[number]) => {
    const { imported, skipped } = result.counts[kind]
    if (!imported && !skipped) return ''
    return session.text('commands.memory.import.messages.kind-counts', [imported, skipped])
  }
  return countLines(session, Object.fromEntries(RECORD_KINDS.map((kind) => [kind, text(kind)])))
}

function badLines(session: Session, bad: BadLine[], layout: ImportResult['layout']) {
  const lines = bad
    .slice(0, BAD_SHOWN)
    .map((line) =>
      session.text(layout === 'array' ? '.bad-entry' : '.bad-line', [
        line.line,
        session.text(`.problem-${line.problem}`) + (line.detail ? ` (${line.detail})` : ''),
      ]),
    )
  if (bad.length > BAD_SHOWN) lines.push(session.text('.more-bad', [bad.length - BAD_SHOWN]))
  return lines
}

/** `memory.export` and `memory.import`: memory to a JSON Lines file under the data folder, and back. */
export function registerTransferCommands(ctx: Context, config: Config) {
  const authority = config.authority.transfer

  ctx
    .command('memory.export', { authority })
    .option('user', '-u <user:string>')
    .option('group', '-g <group:string>')
    .option('all', '-a')
    .action(async ({ session, options }) => {
      if (!session) return
      const { user, group, all } = options!
      if ([user, group, all].filter(Boolean).length !== 1) return session.text('.choose')
      let selection: ExportSelection
      let label: string
      try {
        if (user) {
          const owner = parseUser(session, user)
          selection = { user: owner }
          label = `user-${owner.platform}-${owner.userId}`
        } else if (group) {
          const target = await namedGroup(ctx, session, group)
          selection = { group: target }
          label = `group-${target.platform}-${target.guildId}`
        } else {
          selection = { all: true }
          label = 'all'
        }
      } catch (error) {
        if (error instanceof GroupMemoryError) return session.text(`commands.memory.messages.group-${error.code}`, [error.message])
        throw error
      }
      const dir = exportDir(ctx)
      const file = join(dir, `memory-${filePart(label)}-${stamp(new Date())}.jsonl`)
      // written a chunk at a time to a `.part` file, made at the first chunk, named when complete
      const part = `${file}.part`
      let handle: FileHandle | undefined
      try {
        const result = await ctx.memory.exportMemoryTo(selection, async (chunk) => {
          if (!handle) {
            await mkdir(dir, { recursive: true })
            handle = await open(part, 'wx')
          }
          await handle.write(chunk)
        })
        if (!result.total) return session.text('.empty')
        await closed(handle)
        handle = undefined
        // `link` never overwrites a file
        await link(part, file)
        await rm(part)
        return [session.text('.done', [result.total, shown(ctx, file)]), ...exportCounts(session, result.counts)].join('\n')
      } catch (error) {
        await closed(handle)
        await rm(part, { force: true }).catch(() => undefined)
        return session.text('.failed', [(error as Error).message])
      }
    })

  ctx
    .command('memory.import <file:string>', { authority })
    .option('platform', '-p <platform:string>')
    .option('user', '-u <user:string>')
    .action(async ({ session, options }, file) => {
      if (!session) return
      const name = file?.trim()
      if (!name) return session.text('.missing-file')
      const located = await locate(ctx, name)
      if ('problem' in located) return session.text(`.${located.problem}`, [name, shown(ctx, dataDir(ctx)), MAX_IMPORT_BYTES >> 20])
      const path = shown(ctx, located.path)
      // mem0's memories name no platform: the one given, the named user's, or the caller's
      const owner = options!.user ? parseUser(session, options!.user) : undefined
      const platform = options!.platform || owner?.platform || session.platform
      let result: ImportResult
      try {
        // streamed: the file is read a chunk at a time, never held whole
        result = await ctx.memory.importMemory(fileSource(located.path), { platform, userId: owner?.userId })
      } catch (error) {
        if (error instanceof WholeTooLarge) return session.text('.too-large-json', [path, WHOLE_MAX_CHARS >> 20])
        const code = (error as NodeJS.ErrnoException).code
        if (code) return session.text('.unreadable', [path, (error as Error).message])
        return session.text('.failed', [(error as Error).message])
      }
      const read = result.formats.ours + result.formats.mem0
      if (!read && !result.bad.length) return session.text('.empty-file', [path])
      if (!read) return [session.text('.wrong-format', [path]), ...badLines(session, result.bad, result.layout)].join('\n')
      const lines = [session.text('.done', [path, result.formats.ours, result.formats.mem0]), ...importCounts(session, result)]
      if (result.renamed) lines.push(session.text('.renamed', [result.renamed]))
      if (result.unlinked) lines.push(session.text('.unlinked', [result.unlinked]))
      if (result.bad.length) lines.push(session.text('.bad-header', [result.bad.length]), ...badLines(session, result.bad, result.layout))
      return lines.join('\n')
    })
}
