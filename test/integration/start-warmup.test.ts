import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Harness } from './harness'
import { boot, removePlace } from './harness'
import { internalsOf } from '../../src/compose'
import type { Turn } from '../../src/facts'
import { KoishiWatermarkStore } from '../../src/messages'

const config = { memorize: { quietSeconds: 3600, privateEvery: 3, afterReply: false }, topics: { enabled: false } }

describe('the start-up work after a start', () => {
  let h: Harness | undefined
  let dir: string | undefined

  afterEach(async () => {
    vi.restoreAllMocks()
    await h?.stop()
    h = undefined
    if (dir) await removePlace(dir)
    dir = undefined
  })

  it('answers while the last run’s dialogue is read back; a line said meanwhile joins it once, after it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-warmup-'))
    h = await boot(config, undefined, { dir, keep: true })
    const alice = h.app.mock.client('alice')
    await alice.receive('我住在成都')
    await alice.receive('我养了一只柯基，叫豆豆')
    await h.stop()

    // the read-back of the next start waits until the test lets it go
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const unmemorised = KoishiWatermarkStore.prototype.unmemorised
    vi.spyOn(KoishiWatermarkStore.prototype, 'unmemorised').mockImplementation(async function (this: KoishiWatermarkStore, ...args) {
      await gate
      return unmemorised.apply(this, args)
    })
    h = await boot(config, undefined, { dir, keep: true }, { warm: false })
    const memory = internalsOf(h.app.memory)
    let warmed = false
    void memory.lifecycle.ready().then(() => (warmed = true))
    const extracted: Turn[][] = []
    const extract = memory.modules.part('facts').judge.extract.bind(memory.modules.part('facts').judge)
    vi.spyOn(memory.modules.part('facts').judge, 'extract').mockImplementation((turns, options) => {
      extracted.push(turns)
      return extract(turns, options)
    })

    // the plugin answers before its start-up work is done
    expect(await h.app.memory.retrieve('alice', '住在哪里', { platform: 'mock' })).toEqual(expect.any(Array))
    expect(warmed).toBe(false)

    // said now, and stored before the read-back reads the table
    await h.app.mock.client('alice').receive('我在杭州读研究生')
    await memory.capture.flush()
    release()
    await h.app.memory.flush()

    expect(warmed).toBe(true)
    // the third line ends the dialogue (privateEvery 3): its lines in the order said, each once
    expect(extracted.map((turns) => turns.filter((turn) => turn.role === 'user').map((turn) => turn.content))).toEqual([
      ['我住在成都', '我养了一只柯基，叫豆豆', '我在杭州读研究生'],
    ])
  })

  it('leaves the start-up work until a few seconds after the start, unless something waits for it', async () => {
    const readBack = vi.spyOn(KoishiWatermarkStore.prototype, 'unmemorised')
    h = await boot(config, undefined, undefined, { warm: false })
    await new Promise((resolve) => setTimeout(resolve, 300))
    // the first replies go first
    expect(readBack).not.toHaveBeenCalled()
    await internalsOf(h.app.memory).lifecycle.ready()
    expect(readBack).toHaveBeenCalledTimes(1)
  })

  it('finds at the next start a message the database has and the index lost while stopped', async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-warmup-'))
    h = await boot(config, undefined, { dir, keep: true })
    await h.app.mock.client('alice').receive('我家的猫叫年糕')
    await h.app.memory.flush()
    const [row] = await h.app.database.get('memory_message', { userId: 'alice' })
    const index = internalsOf(h.app.memory).index
    await index.delete('messages', [row.id])
    expect(await index.ids('messages', [row.id])).toEqual([])
    await h.stop()

    h = await boot(config, undefined, { dir, keep: true }, { warm: false })
    await h.app.memory.flushOutbox()
    expect(await internalsOf(h.app.memory).index.ids('messages', [row.id])).toEqual([row.id])
  })
})
