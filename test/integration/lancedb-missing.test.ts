import { mkdtempSync, rmSync } from 'node:fs'
import Module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Logger } from 'koishi'
import { afterEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

/** What Node says on a machine LanceDB publishes no native build for. */
const NO_BUILD = "Cannot find module '@lancedb/lancedb-linux-riscv64-gnu'"

type Load = (request: string, parent: unknown, isMain: boolean) => unknown
const loader = Module as unknown as { _load: Load }

/** Runs `run` with `require('@lancedb/lancedb')` failing as it does without a native build; returns how often it was tried. */
async function withoutLanceDB(run: () => Promise<void>): Promise<number> {
  const original = loader._load
  let tried = 0
  loader._load = function (request, parent, isMain) {
    if (request === '@lancedb/lancedb') {
      tried++
      throw new Error(NO_BUILD)
    }
    return original.call(this, request, parent, isMain)
  }
  try {
    await run()
  } finally {
    loader._load = original
  }
  return tried
}

/** Log lines of the `memory` logger while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = []
  const target: Logger.Target = { colors: 0, record: (record) => record.name === 'memory' && lines.push(record.content) }
  Logger.targets.push(target)
  try {
    await run()
  } finally {
    Logger.targets.splice(Logger.targets.indexOf(target), 1)
  }
  return lines
}

describe('when LanceDB cannot load', () => {
  let h: Harness | undefined
  const dirs: string[] = []

  afterEach(async () => {
    await h?.stop()
    h = undefined
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('remembers, recalls and forgets on the index in the database, and says so once', async () => {
    let lines: string[] = []
    const tried = await withoutLanceDB(async () => {
      lines = await logged(async () => {
        h = await boot({}, (app) => app.plugin(echo))
        const { app } = h
        await app.mock.initUser('alice', 1)
        expect(internalsOf(app.memory).index.state).toBe('ready')

        await say(app, 'alice', '我喜欢吃四川火锅')
        await say(app, 'alice', 'I have a corgi named Biscuit')
        const [fact] = await app.database.get('memory_fact', { userId: 'alice', content: { $regex: '火锅' } })
        expect(fact).toBeTruthy()
        expect((await app.memory.status()).outbox).toBe(0)
        expect(await internalsOf(app.memory).index.texts('memories', [fact.id])).toEqual([fact.content])

        const found = await app.memory.retrieve('alice', '火锅', { platform: 'mock' })
        expect(found[0].content).toContain('四川火锅')
        const [recalled] = await app.mock.client('alice').receive('memory.recall 我爱吃什么火锅')
        expect(recalled).toContain('四川火锅')
        const [status] = await app.mock.client('alice').receive('memory.status')
        expect(status).toContain('数据库中的内置索引')
        expect(status).toContain(NO_BUILD)

        const [done] = await app.mock.client('alice').receive(`memory.forget ${fact.id}`)
        expect(done).toContain(fact.id)
        await app.memory.flush()
        expect(await app.memory.retrieve('alice', '火锅', { platform: 'mock' })).toEqual([])
        expect(JSON.stringify(await app.database.get('memory_vector', {}))).not.toContain('火锅')
        // what was not forgotten is still found
        expect((await app.memory.retrieve('alice', 'corgi', { platform: 'mock' }))[0].content).toContain('Biscuit')
      })
    })
    expect(tried).toBeGreaterThanOrEqual(1)
    const fallback = lines.filter((line) => line.includes('LanceDB'))
    expect(fallback).toHaveLength(1)
    expect(fallback[0]).toContain(NO_BUILD)
  })

  it('keeps each engine in step after the other served: new facts are found, forgotten ones are not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-engines-'))
    dirs.push(dir)
    const place = { dir, keep: true }
    const start = async () => {
      h = await boot({}, (app) => app.plugin(echo), place)
      await h.app.memory.flushOutbox()
      return h.app
    }
    const stop = async () => {
      await h!.stop()
      h = undefined
    }
    const recall = async (query: string) =>
      (await h!.app.memory.retrieve('alice', query, { platform: 'mock' })).map((m) => m.content).join()
    const factAbout = async (word: string) => (await h!.app.database.get('memory_fact', { content: { $regex: word } }))[0]
    const alice = { platform: 'mock', userId: 'alice' }

    await withoutLanceDB(async () => {
      const app = await start()
      await say(app, 'alice', '我喜欢吃四川火锅')
      await say(app, 'alice', 'I have a corgi named Biscuit')
      await stop()
    })

    // LanceDB loads again: its tables are built from the database, and the database's copy is dropped
    let app = await start()
    expect(await recall('火锅')).toContain('四川火锅')
    expect(await app.database.get('memory_vector', {})).toEqual([])
    const hotpot = await factAbout('火锅')
    await app.memory.forget(alice, [hotpot.id])
    await say(app, 'alice', '我住在成都')
    await stop()

    let corgi = hotpot
    await withoutLanceDB(async () => {
      const app = await start()
      expect(await recall('成都')).toContain('成都')
      expect(await recall('火锅')).not.toContain('火锅')
      corgi = await factAbout('Biscuit')
      await app.memory.forget(alice, [corgi.id])
      await say(app, 'alice', 'I work as a nurse')
      await stop()
    })

    // back on LanceDB: what was said while it could not load is found, what was forgotten meanwhile is gone from it
    app = await start()
    expect(await internalsOf(app.memory).index.texts('memories', [corgi.id])).toEqual([])
    expect(await recall('corgi')).not.toContain('Biscuit')
    expect(await recall('nurse')).toContain('nurse')
    expect(await recall('成都')).toContain('成都')
  })
})
