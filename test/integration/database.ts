import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Context } from 'koishi'
import { App, Type } from 'koishi'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import { MySQLDriver } from '@minatojs/driver-mysql'
import { defineMessageTable } from '../../src/messages'

/**
 * The database the integration suite runs on: SQLite unless `MEMORY_TEST_DB=mysql`, then a MySQL or
 * MariaDB server reached by `MEMORY_TEST_MYSQL_HOST` (default 127.0.0.1), `MEMORY_TEST_MYSQL_PORT`
 * (3306), `MEMORY_TEST_MYSQL_USER` (root) and `MEMORY_TEST_MYSQL_PASSWORD` (empty). There each test
 * app gets a database of its own, named after its temp folder, so tests stay independent and an app
 * restarted on the same folder finds its data again.
 */
export type TestDatabase = 'sqlite' | 'mysql'

export const testDatabase: TestDatabase = process.env.MEMORY_TEST_DB === 'mysql' ? 'mysql' : 'sqlite'

export function mysqlServer() {
  const env = process.env
  return {
    host: env.MEMORY_TEST_MYSQL_HOST || '127.0.0.1',
    port: Number(env.MEMORY_TEST_MYSQL_PORT || 3306),
    user: env.MEMORY_TEST_MYSQL_USER || 'root',
    password: env.MEMORY_TEST_MYSQL_PASSWORD || '',
  }
}

/**
 * `@minatojs/driver-mysql` 3.3, the newest release for minato 3 that the registry carries, predates
 * minato 3.7 in two places, filled in here: the index API (called at every table's preparation), and
 * the type of the expression being built, which its logical operators read from the builder's state
 * (3.7's builder no longer keeps it there; a `groupBy` always has one such operator in its `HAVING`).
 */
class MySQL extends MySQLDriver {
  constructor(...args: ConstructorParameters<typeof MySQLDriver>) {
    super(...args)
    typeTheBuilder(Object.getPrototypeOf(this.sql))
  }

  async getIndexes(table: string) {
    const rows: { INDEX_NAME: string; NON_UNIQUE: number; COLUMN_NAME: string; COLLATION: string | null }[] = await this.queue(
      'SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME, COLLATION FROM information_schema.statistics ' +
        "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME, SEQ_IN_INDEX",
      [(this.config as { database: string }).database, table],
    )
    const indexes = new Map<string, { name: string; unique: boolean; keys: Record<string, 'asc' | 'desc'> }>()
    for (const row of rows) {
      const index = indexes.get(row.INDEX_NAME) ?? { name: row.INDEX_NAME, unique: !Number(row.NON_UNIQUE), keys: {} }
      index.keys[row.COLUMN_NAME] = row.COLLATION === 'D' ? 'desc' : 'asc'
      indexes.set(row.INDEX_NAME, index)
    }
    return [...indexes.values()]
  }

  async createIndex(table: string, index: { name?: string; unique?: boolean; keys: Record<string, 'asc' | 'desc' | undefined> }) {
    const keys = Object.entries(index.keys).map(([key, direction]) => `${escapeId(key)} ${direction ?? 'asc'}`)
    const name = index.name ?? Object.keys(index.keys).join('+')
    await this.query(`ALTER TABLE ${escapeId(table)} ADD ${index.unique ? 'UNIQUE ' : ''}INDEX ${escapeId(name)} (${keys.join(', ')})`)
  }

  async dropIndex(table: string, name: string) {
    await this.query(`DROP INDEX ${escapeId(name)} ON ${escapeId(table)}`)
  }
}

type BuilderProto = { parseEvalExpr(expr: unknown): string; state: { type?: unknown }; typed?: true }

function typeTheBuilder(builder: BuilderProto) {
  if (builder.typed) return
  builder.typed = true
  const parseEvalExpr = builder.parseEvalExpr
  builder.parseEvalExpr = function (this: BuilderProto, expr: unknown) {
    this.state.type = Type.fromTerm(expr as never)
    return parseEvalExpr.call(this, expr)
  }
}

const escapeId = (name: string) => `\`${name.replace(/`/g, '``')}\``

interface Connection {
  query(sql: string, callback: (error: Error | null) => void): void
  end(callback: (error?: Error | null) => void): void
}
const { createConnection } = require('@vlasky/mysql') as { createConnection(config: object): Connection }

async function admin(sql: string) {
  const connection = createConnection(mysqlServer())
  try {
    await new Promise<void>((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())))
  } finally {
    await new Promise<void>((resolve) => connection.end(() => resolve()))
  }
}

/** The database of a test folder: its name in hex, as folder names differ in case and MySQL's may not. */
export function databaseName(dir: string) {
  return `mt_${Buffer.from(basename(dir)).toString('hex').slice(-40)}`
}

export const createServerDatabase = (name: string) => admin(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4`)

export const dropServerDatabase = (name: string) => admin(`DROP DATABASE IF EXISTS \`${name}\``)

/**
 * Plugs the MySQL driver into `app` on the server database `name` (made by `createServerDatabase`), its
 * tables made with the binary collation the READMEs ask for: the driver's default compares text without
 * case, and ids that differ only in case would be one user.
 */
export function plugServerDatabase(app: Context, name: string) {
  app.plugin(MySQL, { ...mysqlServer(), database: name, charset: 'utf8mb4_bin' })
}

/** Plugs the test database into `app`; `drop` removes what it held. */
export async function plugDatabase(app: Context, dir: string, file: boolean): Promise<{ drop(): Promise<void> }> {
  if (testDatabase === 'sqlite') {
    app.plugin(SQLiteDriver, { path: file ? join(dir, 'koishi.db') : ':memory:' })
    return { drop: async () => {} }
  }
  const name = databaseName(dir)
  await createServerDatabase(name)
  plugServerDatabase(app, name)
  return { drop: () => dropServerDatabase(name) }
}

/** Drops the database of a test folder (nothing to do on SQLite: its file is in the folder). */
export async function dropDatabase(dir: string) {
  if (testDatabase === 'mysql') await dropServerDatabase(databaseName(dir))
}

/** An app with the database (SQLite, or the server `MEMORY_TEST_DB` names) and the message table, and how to take it down. */
export async function messageDatabase(prefix: string): Promise<{ app: App; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const app = new App()
  const { drop } = await plugDatabase(app, dir, false)
  await app.start()
  await new Promise<void>((resolve) => app.inject(['database'], () => resolve()))
  defineMessageTable(app)
  return {
    app,
    close: async () => {
      await app.stop()
      await drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
