// The fresh Koishi app of the e2e: Koishi's own packages in a temp folder, the plugin installed into it as
// the README says (test/e2e/install.ts), configured from koishi.yml.example and started with the Koishi CLI.
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import yaml from 'js-yaml'

/** What the app installs besides the packed plugin. */
export const APP_DEPENDENCIES: Record<string, string> = {
  koishi: '^4.18.11',
  // koishi bundles http, server and proxy-agent as its own dependencies; a Koishi app lists them too,
  // or the loader rewrites package.json and koishi.yml on the first start to add them
  '@koishijs/plugin-http': '^0.6.3',
  '@koishijs/plugin-server': '^3.2.9',
  '@koishijs/plugin-proxy-agent': '^0.3.3',
  '@koishijs/plugin-console': '^5.30.11',
  '@koishijs/plugin-sandbox': '^3.4.2',
  // the console's plugin settings page
  '@koishijs/plugin-config': '^2.8.6',
  '@koishijs/plugin-help': '^2.4.6',
  '@minatojs/driver-sqlite': '^4.7.0',
}

/** Environment variables the example reads keys from: the e2e boots with none of them. */
export const KEY_VARIABLES = ['GEMINI_API_KEY', 'SILICONFLOW_API_KEY', 'DEEPSEEK_API_KEY', 'OPENAI_API_KEY']

export interface Dirs {
  root: string
  app: string
  home: string
  cache: string
}

/** The environment of every child process: no npm_* variables of an outer `npm run`, no keys, HOME and npm's cache in temp folders. */
export function childEnv(dirs: Dirs): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || KEY_VARIABLES.includes(key)) continue
    env[key] = value
  }
  const userConfig = join(process.env.HOME || homedir(), '.npmrc')
  return {
    ...env,
    HOME: dirs.home,
    npm_config_cache: join(dirs.cache, 'npm'),
    // npm's own settings (registry, CA) as the user has them; npm only reads this file
    ...(existsSync(userConfig) ? { npm_config_userconfig: userConfig } : {}),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  }
}

export interface RunOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  /** Where stdout and stderr go. */
  log: string
}

/** Runs a command to its end; rejects with the end of its output when it fails or outlives its timeout. */
export function run(command: string, args: string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const fd = openSync(options.log, 'a')
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', fd, fd], detached: true })
    closeSync(fd)
    const timer = setTimeout(() => {
      killTree(child, 'SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} took more than ${options.timeoutMs / 1000} s\n${tail(options.log)}`))
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}\n${tail(options.log)}`))
    })
  })
}

/** The last lines of a log file. */
export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return ''
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
}

/** Sends a signal to a child started with `detached: true` and to everything it started (its process group). */
export function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // the group is already gone
  }
}

/** The processes whose parent is `pid` (Linux: read from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // "pid (comm) state ppid …": comm may hold spaces, so read after its closing parenthesis
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return children
}

/**
 * Ends the process group. The Koishi CLI forks a worker that shuts down cleanly on SIGTERM and then
 * lets the CLI exit; so the worker gets SIGTERM first (the whole group when it cannot be found), and
 * the group SIGKILL when anything is still there after `graceMs`.
 */
export async function stopTree(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.pid === undefined) return
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  const workers = existsSync('/proc') ? childrenOf(child.pid) : []
  if (workers.length) {
    for (const pid of workers) {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // gone
      }
    }
  } else {
    killTree(child, 'SIGTERM')
  }
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs))
  if ((await Promise.race([exited, timer])) === 'timeout') killTree(child, 'SIGKILL')
  // the worker may outlive the CLI: the group, not only the child, must be gone
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** A free TCP port on the loopback address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** The app's package.json: Koishi and its console plugins, and the packed plugin once it is installed. */
export function writeAppPackage(dirs: Dirs): void {
  const manifest = { name: 'koishi-memory-e2e-app', private: true, version: '0.0.0', dependencies: APP_DEPENDENCIES }
  writeFileSync(join(dirs.app, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
}

type Dict = Record<string, unknown>

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `base` with `patch` laid over it key by key (arrays and scalars are replaced). */
export function merge(base: Dict, patch: Dict): Dict {
  const out: Dict = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isDict(value) && isDict(base[key]) ? merge(base[key] as Dict, value) : value
  }
  return out
}

export interface AppConfig {
  /** The YAML written to the app's koishi.yml. */
  text: string
  /** The database plugin's key, as the example writes it. */
  databaseKey: string
}

/**
 * koishi.yml made from the example: the server listens on 127.0.0.1:`port`, the sandbox adapter and
 * the console's config and help plugins (and console, if the example had none) go where the example
 * leaves room for an adapter, and `memoryOverrides` is laid over the `memory:` block. Everything else — the database entry, keys from env, paths — is the example's own.
 */
export function appConfig(example: string, port: number, memoryOverrides: Dict): AppConfig {
  const config = yaml.load(example) as Dict
  if (!isDict(config) || !isDict(config.plugins)) throw new Error('koishi.yml.example has no plugins: block')
  const plugins = config.plugins
  const server = plugins.server
  if (!isDict(server) || server.port === undefined)
    throw new Error('koishi.yml.example sets no server: { port } (Koishi 4.18 listens there)')
  if (!isDict(plugins.memory)) throw new Error('koishi.yml.example has no memory: block')
  const databaseKey = Object.keys(plugins).find((key) => /sqlite|database/.test(key))
  if (!databaseKey) throw new Error('koishi.yml.example loads no database plugin')
  const out: Dict = {}
  for (const [key, value] of Object.entries(plugins)) {
    if (key === 'server') {
      out.server = { ...server, host: '127.0.0.1', port }
    } else if (key === 'memory') {
      // the adapter and the plugins the test drives go where the example says "your adapter here"
      out.sandbox = {}
      if (!('console' in plugins)) out.console = {}
      out.config = {}
      out.help = {}
      out.memory = merge(value as Dict, memoryOverrides)
    } else {
      out[key] = value
    }
  }
  const text = '# Made by test/e2e from koishi.yml.example\n' + yaml.dump({ ...config, plugins: out }, { lineWidth: 200 })
  return { text, databaseKey }
}

export interface Footprint {
  before: number
  after: number
  added: { name: string; kb: number }[]
}

/** Sizes in KiB, as du counts them. */
function duKb(paths: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    if (!paths.length) return resolve(new Map())
    const child = spawn('du', ['-sk', ...paths], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`du exited with ${code}`))
      const sizes = new Map<string, number>()
      for (const line of out.trim().split('\n')) {
        const [kb, path] = line.split('\t')
        sizes.set(path, Number(kb))
      }
      resolve(sizes)
    })
  })
}

/** The packages directly under node_modules (scoped ones as @scope/name). */
export function topLevelPackages(app: string): string[] {
  const root = join(app, 'node_modules')
  if (!existsSync(root)) return []
  const names: string[] = []
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.')) continue
    if (entry.startsWith('@')) {
      for (const inner of readdirSync(join(root, entry))) names.push(`${entry}/${inner}`)
    } else {
      names.push(entry)
    }
  }
  return names.sort()
}

export async function nodeModulesKb(app: string, env: NodeJS.ProcessEnv): Promise<number> {
  return (await duKb(['node_modules'], app, env)).get('node_modules') ?? 0
}

/** What installing the plugin added to node_modules: the packages that were not there before, largest first. */
export async function footprint(app: string, env: NodeJS.ProcessEnv, beforePackages: string[], beforeKb: number): Promise<Footprint> {
  const known = new Set(beforePackages)
  const added = topLevelPackages(app).filter((name) => !known.has(name))
  const sizes = await duKb(
    added.map((name) => join('node_modules', name)),
    app,
    env,
  )
  return {
    before: beforeKb,
    after: await nodeModulesKb(app, env),
    added: added.map((name) => ({ name, kb: sizes.get(join('node_modules', name)) ?? 0 })).sort((a, b) => b.kb - a.kb),
  }
}

export function ensureDirs(dirs: Dirs): void {
  for (const dir of [dirs.app, dirs.home, dirs.cache]) mkdirSync(dir, { recursive: true })
}
