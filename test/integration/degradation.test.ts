import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { json, ScriptedServer } from './scripted-server'
import { internalsOf } from '../../src/compose'

describe('graceful degradation', () => {
  let h: Harness | undefined
  let server: ScriptedServer | undefined
  let blocked: string | undefined

  afterEach(async () => {
    await h?.stop()
    await server?.stop()
    h = server = undefined
    // after the stop: the store's retries may make the folder again until then
    if (blocked) rmSync(dirname(blocked), { recursive: true, force: true })
    blocked = undefined
  })

  it('keeps facts in the database and the outbox while LanceDB cannot open, and indexes them after', async () => {
    blocked = join(mkdtempSync(join(tmpdir(), 'memory-blocked-')), 'lancedb')
    // a regular file where the folder should be: the store cannot open (root ignores permissions)
    writeFileSync(blocked, 'not a folder')
    h = await boot({ store: { path: blocked, retryIntervalSeconds: 1 } }, (app) => app.plugin(echo))
    expect(internalsOf(h.app.memory).index.state).toBe('open')

    const replies = await say(h.app, 'alice', '我喜欢吃四川火锅')
    expect(replies).toEqual(['ok: 我喜欢吃四川火锅'])
    expect(await h.app.database.get('memory_fact', { userId: 'alice' })).toHaveLength(1)
    // the fact and the exchange with the bot wait to be indexed
    // filed under this instance's name
    expect((await h.app.database.get('memory_outbox', {})).map((row) => row.table.replace(/^\w+\//, '')).sort()).toEqual([
      'episodes',
      'memories',
    ])
    expect(await h.app.memory.retrieve('alice', '火锅', { platform: 'mock' })).toEqual([])

    rmSync(blocked)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await h.app.memory.flushOutbox()
    expect((await h.app.memory.status()).outbox).toBe(0)
    const found = await h.app.memory.retrieve('alice', '火锅', { platform: 'mock' })
    expect(found.map((m) => m.content).join()).toContain('四川火锅')
  })

  it('returns [] from retrieve while the embedder is down, and stores facts for later', async () => {
    server = new ScriptedServer((path, body, res) => json(res, 503, { error: { message: 'down' } }))
    const baseURL = await server.start()
    h = await boot(
      {
        embedding: { provider: 'openai-compatible', baseURL, model: 'embed', dims: 64, timeout: 300 },
      },
      (app) => app.plugin(echo),
    )
    await say(h.app, 'alice', '我喜欢吃四川火锅')
    expect(await h.app.database.get('memory_fact', { userId: 'alice' })).toHaveLength(1)
    // the fact and the exchange wait to be indexed (with the messages, whose table the embedder's outage left new)
    const waiting = new Set((await h.app.database.get('memory_outbox', {})).map((row) => row.table.replace(/^\w+\//, '')))
    expect([...waiting].filter((table) => table !== 'messages').sort()).toEqual(['episodes', 'memories'])
    expect(await h.app.memory.retrieve('alice', '火锅', { platform: 'mock' })).toEqual([])
    expect(internalsOf(h.app.memory).counters.get('retrieve.failed')).toBeGreaterThanOrEqual(1)
  })
})
