import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, release, arch, tmpdir, totalmem, type } from 'node:os'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import type { ForkScope } from 'koishi'
import { App } from 'koishi'
import mock from '@koishijs/plugin-mock'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import * as memory from '../../src'
import { internalsOf } from '../../src/compose'

export interface BenchApp {
  app: App
  dir: string
  /** The memory plugin's fork (`update` it to change its settings as the console does); unset with `memoryLater`. */
  memory?: ForkScope
  /** Stops the app; `flush: false` stops it as Koishi does, with nothing written first. */
  stop(options?: { flush?: boolean }): Promise<void>
}

export interface BootOptions {
  /** A folder to keep the database (a file there) and the index in, so another app can start on them. */
  dir?: string
  /** Keep `dir` when the app stops. */
  keep?: boolean
  /** More plugins (a chat plugin, the HTTP server). */
  extra?: (app: App) => void
  /** Start Koishi and the database only: the caller plugs the memory in later (`plugMemory`), e.g. to time its start. */
  memoryLater?: boolean
}

/**
 * Koishi with the mock adapter, SQLite (in memory, or a file in `options.dir`) and the memory plugin
 * (offline embedder and rules unless `config` says otherwise), its LanceDB folder in a fresh temp
 * directory — what `test/integration/harness.ts` boots, without the test helpers. Returns once the
 * plugin's start-up work is done.
 */
export async function bootApp(config: memory.ConfigInput = {}, options: BootOptions = {}): Promise<BenchApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'memory-bench-'))
  const app = new App({ prefix: [''] })
  const mockFork = app.plugin(mock, { selfId: 'bot' })
  app.plugin(SQLiteDriver, { path: options.dir ? join(dir, 'koishi.db') : ':memory:' })
  const memoryFork = options.memoryLater ? undefined : plugMemory(app, dir, config)
  options.extra?.(app)
  await app.start()
  await new Promise<void>((resolve) => app.inject([options.memoryLater ? 'database' : 'memory'], () => resolve()))
  // the start-up work after the start (the journal, the dialogues read back, the index's checks) is done too
  if (!options.memoryLater) await internalsOf(app.memory).lifecycle.ready()
  return {
    app,
    dir,
    memory: memoryFork,
    async stop({ flush = true } = {}) {
      if (flush) await app.memory.flush()
      mockFork.dispose()
      await app.stop()
      if (!options.keep) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Adds the memory plugin to `app`, its LanceDB folder in `dir` unless `config` names one; `ctx.memory` comes once it has started. */
export function plugMemory(app: App, dir: string, config: memory.ConfigInput = {}): ForkScope {
  return app.plugin(memory, { ...config, store: { path: join(dir, 'lancedb'), ...config.store } })
}

/** Machine facts for the JSON and the docs. */
export function machine() {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    platform: `${type()} ${release()} ${arch()}`,
    node: process.version,
    loadavg_1m: Math.round(loadavg()[0] * 100) / 100,
  }
}

export const log = (...args: unknown[]) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args)

/**
 * The commit the bench ran on, and the files under src/ that differed from it (the bench runs the
 * working tree, so uncommitted changes there are part of the measurement).
 */
export function revision(root: string) {
  const git = (...args: string[]) => {
    try {
      // trimEnd: porcelain lines start with a status column that may be a space
      return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trimEnd()
    } catch {
      return ''
    }
  }
  const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).map((line) => line.slice(3))
  return { commit: git('rev-parse', 'HEAD'), src_uncommitted: dirty }
}

/** The last fields of a bench's JSON: what it read, when, on which machine and revision. */
export function runInfo(dataDir: string, started: Date, rev: ReturnType<typeof revision>) {
  return { data: dataDir, date: started.toISOString(), machine: machine(), revision: rev }
}

/** Prints a bench's JSON result and, given `out`, writes it there too. */
export function writeResult(result: object, out: string | undefined) {
  const text = JSON.stringify(result, null, 2)
  if (out) {
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, text + '\n')
    log(`wrote ${out}`)
  }
  console.log(text)
}
