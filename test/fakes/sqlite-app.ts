import { App } from 'koishi'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import { defineFactTable } from '../../src/facts/table'
import { defineMessageTable } from '../../src/messages/table'
import { defineOutboxTable } from '../../src/store/outbox'
import { defineTopicTable } from '../../src/topics/table'

/** A started Koishi app on SQLite in memory with the message and topic tables defined. */
export async function sqliteApp(): Promise<App> {
  const app = new App()
  app.plugin(SQLiteDriver, { path: ':memory:' })
  await app.start()
  await new Promise<void>((resolve) => app.inject(['database'], () => resolve()))
  defineMessageTable(app)
  defineFactTable(app)
  defineOutboxTable(app)
  defineTopicTable(app)
  return app
}
