/**
 * Fault families (issue 10): provider faults, store faults, kills at random points, hostile input,
 * scope isolation, prompt injection, HTTP abuse, concurrency and a flood. Each family reports how many
 * trials it tried and passed; the totals say what was lost, leaked, done to rows a model was not
 * shown, or stored twice.
 *
 *   npm run bench:faults -- [--only provider,store] [--out FILE]
 */
import { resolve } from 'node:path'
import { parseArgs } from './lib/args'
import { log, revision, runInfo, writeResult } from './lib/app'
import type { Family, FamilyResult } from './faults/family'

const FAMILIES: Record<string, () => Promise<{ run: Family }>> = {
  provider: () => import('./faults/provider'),
  store: () => import('./faults/store'),
  kill: () => import('./faults/kill'),
  hostile: () => import('./faults/hostile'),
  isolation: () => import('./faults/isolation'),
  injection: () => import('./faults/injection'),
  http: () => import('./faults/http'),
  concurrency: () => import('./faults/concurrency'),
  flood: () => import('./faults/flood'),
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const started = new Date()
  const names = options.only ? options.only.split(',') : Object.keys(FAMILIES)
  const families: Record<string, FamilyResult> = {}
  for (const name of names) {
    const load = FAMILIES[name]
    if (!load) throw new Error(`unknown family ${name}; known: ${Object.keys(FAMILIES).join(', ')}`)
    log(`family ${name}`)
    const began = Date.now()
    families[name] = await (await load()).run()
    const { tried, passed, failures } = families[name]
    log(`family ${name}: ${passed}/${tried} passed in ${Math.round((Date.now() - began) / 1000)} s`)
    for (const failure of failures) log(`  failed: ${failure}`)
  }
  const sum = (key: 'lost' | 'leaks' | 'foreign_ops' | 'duplicates') => Object.values(families).reduce((n, f) => n + f[key], 0)
  writeResult(
    {
      families,
      lost: sum('lost'),
      leaks: sum('leaks'),
      foreign_ops: sum('foreign_ops'),
      duplicates: sum('duplicates'),
      ...runInfo('-', started, revision(resolve(__dirname, '..'))),
    },
    options.out,
  )
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
