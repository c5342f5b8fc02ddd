import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness, removePlace, say } from './harness'
import { testDatabase } from './database'

interface RawDatabase {
  exec(sql: string): { values: unknown[][] }[]
  close(): void
}

/** The embedded SQLite keeps its file locked while the plugin runs; a restart in the same process must find it free. */
describe.skipIf(testDatabase === 'mysql')('the embedded SQLite file at a restart', () => {
  let dir: string | undefined

  afterEach(async () => {
    if (dir) await removePlace(dir)
    dir = undefined
  })

  it('is free to another connection as soon as Koishi’s stop resolves, before the driver closes its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-test-'))
    const first: Harness = await boot({}, undefined, { dir, keep: true })
    await say(first.app, 'alice', '我住在成都')
    const raw = (first.app.database as unknown as { drivers: { db: RawDatabase }[] }).drivers[0].db
    const Database = raw.constructor as new (path: string) => RawDatabase
    // as Koishi stops: nothing written first, and the driver closes its connection only a moment later
    await first.stop({ flush: false })
    const other = new Database(join(dir, 'koishi.db'))
    try {
      const [counted] = other.exec("SELECT count(*) FROM memory_message WHERE content = '我住在成都'")
      expect(counted.values[0][0]).toBe(1)
    } finally {
      other.close()
    }
    const second = await boot({}, undefined, { dir, keep: true })
    expect(await second.app.database.get('memory_message', { content: '我住在成都' })).toHaveLength(1)
    await second.stop()
  })
})
