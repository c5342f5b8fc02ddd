import { afterEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

describe('a captured message readies what a reply to it reads', () => {
  let h: Harness | undefined

  afterEach(() => h?.stop())

  it("loads the speaker's and the channel's index scopes into memory before any reply reads them", async () => {
    h = await boot({ memorize: { enabled: false } })
    const { app } = h
    await say(app, 'alice', '我住在成都，平时喜欢吃火锅', 'g1')
    await app.memory.flush()
    const { index } = internalsOf(app.memory)
    await index.settled()
    const before = index.stats()
    expect(before.scopes).toBeGreaterThanOrEqual(2)
    expect(before.misses).toBe(0)

    const found = await app.memory.retrieve('alice', '我住在哪里', { platform: 'mock', guildId: 'g1' })
    expect(found.map((memory) => memory.content).join()).toContain('成都')
    const after = index.stats()
    // every search of the reply was answered from memory
    expect(after.misses).toBe(0)
    expect(after.hits).toBeGreaterThan(before.hits)
  })
})
