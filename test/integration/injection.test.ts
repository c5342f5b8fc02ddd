import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

const EVIL = [`x' OR '1'='1`, `bob'; DROP TABLE memories; --`, `"quoted" \\ user`]

describe('ids and names with quotes or SQL fragments', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    await say(h.app, 'bob', '我喜欢吃寿司')
    for (const id of EVIL) await say(h.app, id, '<at id="514"/> 我喜欢吃寿司和拉面', `g'1 OR guild_id != '`)
  })

  afterEach(() => h.stop())

  it("stores and finds each hostile user's own fact only", async () => {
    for (const id of EVIL) {
      const found = await h.app.memory.retrieve(id, '寿司', { platform: 'mock' })
      expect(found.length).toBe(1)
      expect(found[0].scope.userId).toBe(id)
      expect(found[0].scope.guildId).toBe(`g'1 OR guild_id != '`)
    }
  })

  it('does not widen a query through a crafted id or guild', async () => {
    expect(await h.app.memory.retrieve(`' OR '1'='1`, '寿司', { platform: 'mock' })).toEqual([])
    expect(await h.app.memory.retrieve('bob', '寿司', { platform: 'mock', guildId: `' OR '1'='1` })).toEqual([])
    const bob = await h.app.memory.retrieve('bob', '寿司', { platform: 'mock' })
    expect(bob.map((m) => m.scope.userId)).toEqual(['bob'])
    expect(await internalsOf(h.app.memory).index.count('memories')).toBe(1 + EVIL.length)
  })
})
