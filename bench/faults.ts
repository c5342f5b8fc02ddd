/**
 * Fault families (issues 10 and 24): provider faults, store faults, kills at random points, hostile
 * input, scope isolation, prompt injection, HTTP abuse, concurrency, a flood, a journal left on disk,
 * hostile imports and forgetting. Each family reports how many trials it tried and passed; the totals
 * say what was lost, leaked, done to rows a model was not shown, or stored twice. The process exits
 * with 1 when a family failed a trial or any total is above 0 (the result is written first).
 *
 *   npm run bench:faults -- [--only provider,store] [--short] [--out FILE]
 *
 * `--short` (CI: `npm run bench:faults:short`) runs every family at small sizes, in a few minutes.
 */
import { resolve } from 'node:path'
import { parseArgs } from './lib/args'
import { log, revision, runInfo, writeResult } from './lib/app'
import type { Family, FamilyResult } from './faults/family'

/** Each family is a module `bench/faults/<name>.ts` exporting `run`, loaded only when asked for. */
const FAMILIES = [
  'provider',
  'store',
  'kill',
  'hostile',
  'isolation',
  'injection',
  'http',
  'concurrency',
  'flood',
  'journal',
  'import',
  'forget',
]

type Harmed = 'lost' | 'leaks' | 'foreign_ops' | 'duplicates'
const HARMS: Harmed[] = ['lost', 'leaks', 'foreign_ops', 'duplicates']

async function load(name: string): Promise<Family> {
  // a path built at run time: a family whose module is not there yet fails when it is asked for, not the others
  const module = (await import(`./faults/${name}`)) as { run?: unknown }
  if (typeof module.run !== 'function') throw new Error(`bench/faults/${name}.ts exports no run`)
  return module.run as Family
}

/** A family that could not run at all is one failed trial, so the run goes on and still fails. */
function broken(name: string, error: unknown): FamilyResult {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
  return { tried: 1, passed: 0, lost: 0, leaks: 0, foreign_ops: 0, duplicates: 0, failures: [`family ${name} could not run: ${reason}`] }
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const short = options.short === 'true'
  const started = new Date()
  const names = options.only ? options.only.split(',') : FAMILIES
  const unknown = names.filter((name) => !FAMILIES.includes(name))
  if (unknown.length) throw new Error(`unknown family ${unknown.join(', ')}; known: ${FAMILIES.join(', ')}`)
  const families: Record<string, FamilyResult & { seconds?: number }> = {}
  for (const name of names) {
    log(`family ${name}${short ? ' (short)' : ''}`)
    const began = Date.now()
    let result: FamilyResult
    try {
      result = await (await load(name))({ short })
    } catch (error) {
      result = broken(name, error)
    }
    const seconds = Math.round((Date.now() - began) / 1000)
    families[name] = { ...result, seconds }
    log(`family ${name}: ${result.passed}/${result.tried} passed in ${seconds} s`)
    for (const failure of result.failures) log(`  failed: ${failure}`)
  }
  const sum = (key: Harmed) => Object.values(families).reduce((n, f) => n + f[key], 0)
  const totals = Object.fromEntries(HARMS.map((key) => [key, sum(key)])) as Record<Harmed, number>
  writeResult({ families, ...totals, short, ...runInfo('-', started, revision(resolve(__dirname, '..'))) }, options.out)
  const failed = Object.entries(families).filter(([, f]) => f.passed < f.tried || HARMS.some((key) => f[key] > 0))
  if (failed.length) log(`failed: ${failed.map(([name]) => name).join(', ')}; ${HARMS.map((key) => `${key} ${totals[key]}`).join(', ')}`)
  process.exit(failed.length ? 1 : 0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
