import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'koishi'
import { App } from 'koishi'
import mock from '@koishijs/plugin-mock'
import { HTTP } from '@koishijs/plugin-http'
import * as memory from '../../src'
import { dropDatabase, plugDatabase } from './database'
import { internalsOf } from '../../src/compose'

export interface Harness {
  app: App
  dir: string
  /** Stops the app; with `flush: false` as Koishi does (nothing written first, the database goes before the plugin). */
  stop(options?: { flush?: boolean }): Promise<void>
}

/** Where a restarted app finds its data again: the folder of an earlier harness, its database in a file there. */
export interface BootPlace {
  dir: string
  /** Keep the folder when this harness stops (the next one reuses it). */
  keep?: boolean
}

/**
 * A Koishi app with the mock adapter, the test database (`database.ts`) and the memory plugin on a
 * temp folder. SQLite is in memory, unless `place` names a folder: then it is a file there, so another
 * app can start on it. Returns once the plugin has started and, unless `warm` is false, once its
 * start-up work after the start (journal, dialogues read back, the index's checks) is done too.
 */
export async function boot(
  config: memory.ConfigInput = {},
  extra?: (app: App) => void,
  place?: BootPlace,
  { warm = true }: { warm?: boolean } = {},
): Promise<Harness> {
  const dir = place?.dir ?? mkdtempSync(join(tmpdir(), 'memory-test-'))
  const app = new App({ prefix: [''] })
  // disposed before the app: at app.stop() the mock bot would look for a bot list already gone
  const mockFork = app.plugin(mock, { selfId: '514' })
  app.plugin(HTTP)
  const database = await plugDatabase(app, dir, Boolean(place))
  app.plugin(memory, {
    ...config,
    store: { path: join(dir, 'lancedb'), retryIntervalSeconds: 1, ...config.store },
  })
  extra?.(app)
  await app.start()
  await ready(app)
  if (warm) await internalsOf(app.memory).lifecycle.ready()
  return {
    app,
    dir,
    async stop({ flush = true } = {}) {
      if (flush) await app.memory.flush()
      // tables a test declared late are still being created on a server database
      await app.database.prepared()
      mockFork.dispose()
      await app.stop()
      if (place?.keep) return
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Removes a `BootPlace` kept by its harnesses: the folder and the database it names. */
export async function removePlace(dir: string) {
  await dropDatabase(dir)
  rmSync(dir, { recursive: true, force: true })
}

export function ready(app: Context) {
  return new Promise<void>((resolve) => app.inject(['memory'], () => resolve()))
}

/** Sends a message and waits for capture and background memory work to settle. */
export async function say(app: App, user: string, text: string, channel?: string) {
  const replies = await app.mock.client(user, channel).receive(text)
  await app.memory.flush()
  return replies
}

/** What the memory stores of a user: the text of each of their facts. */
export async function factsOf(h: Harness, userId: string): Promise<string[]> {
  return (await h.app.database.get('memory_fact', { userId })).map((row) => row.content)
}
