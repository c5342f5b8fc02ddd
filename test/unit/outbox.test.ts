import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { App } from 'koishi'
import { KoishiOutbox } from '../../src/store/outbox'
import { sqliteApp } from '../fakes/sqlite-app'

describe('KoishiOutbox shared by instances', () => {
  let app: App

  beforeEach(async () => {
    app = await sqliteApp()
  })

  afterEach(() => app.stop())

  it('gives each instance its own work, and work filed before instances had names to anyone', async () => {
    const a = new KoishiOutbox(app, 'aaaa')
    const b = new KoishiOutbox(app, 'bbbb')
    await a.addMany('memories', ['f1', 'f2'], 'upsert')
    await b.addMany('memories', ['f1'], 'delete')
    await new KoishiOutbox(app).add('memories', 'old', 'upsert')

    const taken = await a.take('memories', 10)
    expect(taken.map((row) => [row.table, row.rowId, row.op])).toEqual([
      ['memories', 'f1', 'upsert'],
      ['memories', 'f2', 'upsert'],
      ['memories', 'old', 'upsert'],
    ])
    expect((await b.take('memories', 10)).map((row) => [row.rowId, row.op])).toEqual([
      ['f1', 'delete'],
      ['old', 'upsert'],
    ])
    expect(await a.size()).toBe(2)

    await a.forget('memories', ['f1'])
    expect((await b.take('memories', 10)).map((row) => row.rowId)).toEqual(['f1', 'old'])
    expect((await a.take('memories', 10)).map((row) => row.rowId)).toEqual(['f2', 'old'])
  })
})
