import { App } from 'koishi'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import { defineMessageIndexes } from '../../src/store/koishi-messages'
import { defineTables } from '../../src/store/tables'
import { defineTopicTables } from '../../src/store/topic-tables'

/** A started Koishi app on SQLite in memory with the message and topic tables defined. */
export async function sqliteApp(): Promise<App> {
  const app = new App()
  app.plugin(SQLiteDriver, { path: ':memory:' })
  await app.start()
  await new Promise<void>((resolve) => app.inject(['database'], () => resolve()))
  defineTables(app)
  defineTopicTables(app)
  defineMessageIndexes(app)
  return app
}
