/**
 * Store faults: the LanceDB folder deleted while the bot runs, a table's data or search indexes
 * overwritten with garbage, the embedder's dimension changed between two starts, and LanceDB
 * unavailable (the index kept in the database instead). Each time, every fact in the database must
 * be found again by `retrieve` in its owner's scope (a closed one with `history`) — at once or after the repair the plugin does by
 * itself (no `memory.reindex`) — and the chat index must answer for the messages.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { App } from 'koishi'
import type { ConfigInput } from '../../src'
import { bootApp, type BenchApp } from '../lib/app'
import { Tally, type Family } from './family'
import { internalsOf } from '../../src/compose'
import { isCurrent } from '../../src/facts'

const PLACES = ['成都', '上海', '杭州', '西安', '厦门', '青岛', '长沙', '昆明']
const PETS = ['豆豆', '咪咪', '花花', '球球', '团子', '年糕', '可乐', '布丁']

const base: ConfigInput = {
  memorize: { privateEvery: 1, quietSeconds: 0, privateQuietSeconds: 0 },
  topics: { enabled: false },
  store: { retryIntervalSeconds: 1 },
}

/** Users state facts in private; returns how many facts the database holds. */
async function stateFacts(app: App, round: number): Promise<void> {
  for (let u = 0; u < 4; u++) {
    const client = app.mock.client(`u${u}`)
    await client.receive(`我住在${PLACES[(u + round) % PLACES.length]}${round}区`)
    await client.receive(`我养了一只叫${PETS[(u + round) % PETS.length]}${round}的猫`)
  }
  await app.memory.flush()
}

/**
 * Facts in the database that `retrieve` does not find in their owner's scope: a current fact by the
 * default retrieve, one a later statement closed (a second 我住在… closes the first) with `history`.
 */
async function unfound(app: App): Promise<string[]> {
  const missing: string[] = []
  for (const fact of await app.database.get('memory_fact', {})) {
    const found = await app.memory.retrieve(fact.userId, fact.content, { platform: fact.platform, topK: 10, history: !isCurrent(fact) })
    if (!found.some((memory) => memory.id === fact.id)) missing.push(fact.content)
  }
  return missing
}

/** Waits (driving the outbox) until every fact is found again, or the deadline passes. */
async function settle(app: App, ms = 20_000): Promise<string[]> {
  const deadline = Date.now() + ms
  let missing = await unfound(app)
  while (missing.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    await app.memory.flushOutbox()
    missing = await unfound(app)
  }
  return missing
}

/** Overwrites every file under `sub` of a LanceDB table. */
function damage(dir: string, table: string, sub: 'data' | '_indices'): number {
  const root = join(dir, 'lancedb', `${table}.lance`, sub)
  if (!exists(root)) return 0
  let files = 0
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    writeFileSync(join(entry.parentPath, entry.name), 'garbage')
    files++
  }
  return files
}

const facts = async (app: App) => (await app.database.get('memory_fact', {})).length
const exists = (path: string) => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

export const run: Family = async () => {
  const tally = new Tally()
  const dir = mkdtempSync(join(tmpdir(), 'memory-faults-store-'))
  let bench: BenchApp | undefined
  const stop = async () => {
    const running = bench
    bench = undefined
    await running?.stop()
  }
  const boot = async (config: ConfigInput = {}) => {
    await stop()
    bench = await bootApp({ ...base, ...config }, { dir, keep: true })
    return bench.app
  }
  const restart = boot
  try {
    let app = await boot()
    await stateFacts(app, 0)

    await tally.run('folder deleted while running', async () => {
      rmSync(join(dir, 'lancedb'), { recursive: true, force: true })
      await stateFacts(app, 1)
      const missing = await settle(app)
      return { ok: !missing.length, harm: { lost: missing.length }, detail: `${missing.length} of ${await facts(app)} not found` }
    })

    await tally.run('table data damaged while running (other tables answer meanwhile)', async () => {
      const files = damage(dir, 'memories', 'data')
      // the damaged table's breaker opens on its own; the chat index still answers
      for (let i = 0; i < 4; i++) await app.memory.retrieve('u0', '住在哪里', { platform: 'mock' })
      // the chat index answers (the folder deleted just before may still be refilling it: waited for)
      const messages = (await app.database.get('memory_message', {})).length
      const chat = await settleCount(app, 'messages', messages)
      const missing = await settle(app)
      return {
        ok: files > 0 && chat === messages && !missing.length,
        harm: { lost: missing.length },
        detail: `${files} files damaged, ${missing.length} facts not found, ${chat} of ${messages} messages indexed`,
      }
    })

    await tally.run('search indexes damaged, found at the next start', async () => {
      // folds the rows into the search indexes (a table still healing from the deletion may refuse: its turn comes later)
      await internalsOf(app.memory)
        .index.optimize()
        .catch(() => undefined)
      await stop()
      const files = damage(dir, 'memories', '_indices') + damage(dir, 'messages', '_indices')
      app = await boot()
      const missing = await settle(app)
      return {
        ok: files > 0 && !missing.length,
        harm: { lost: missing.length },
        detail: `${files} index files damaged, ${missing.length} not found`,
      }
    })

    await tally.run('table data damaged, found at the next start', async () => {
      await stop()
      damage(dir, 'memories', 'data')
      app = await boot()
      const missing = await settle(app)
      return { ok: !missing.length, harm: { lost: missing.length }, detail: `${missing.length} not found` }
    })

    await tally.run('embedder dimension changed between two starts', async () => {
      app = await restart({ embedding: { dims: 256 } })
      await stateFacts(app, 2)
      const missing = await settle(app)
      const messages = (await app.database.get('memory_message', {})).length
      const indexed = await settleCount(app, 'messages', messages)
      return {
        ok: !missing.length && indexed === messages,
        harm: { lost: missing.length + Math.max(0, messages - indexed) },
        detail: `${missing.length} facts not found, ${indexed} of ${messages} messages indexed`,
      }
    })

    await tally.run('LanceDB unavailable: the index in the database serves, and LanceDB is brought up to date after', async () => {
      app = await restart({ store: { engine: 'database' } })
      await stateFacts(app, 3)
      const missingThere = await settle(app)
      app = await restart()
      const missingBack = await settle(app)
      return {
        ok: !missingThere.length && !missingBack.length && exists(join(dir, 'lancedb')),
        harm: { lost: missingThere.length + missingBack.length },
        detail: `${missingThere.length} not found on the database index, ${missingBack.length} after going back to LanceDB`,
      }
    })
  } finally {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  }
  return tally.result
}

/** Waits until the index table holds `want` rows (driving the outbox), or the deadline passes. */
async function settleCount(app: App, table: string, want: number, ms = 20_000): Promise<number> {
  const deadline = Date.now() + ms
  let count = await internalsOf(app.memory).index.count(table)
  while (count < want && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    await app.memory.flushOutbox()
    count = await internalsOf(app.memory).index.count(table)
  }
  return count
}
