import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

describe('facts that know when they were true', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({}, (app) => app.plugin(echo))
    await h.app.mock.initUser('alice', 1)
    await say(h.app, 'alice', '我住在成都')
    await say(h.app, 'alice', '我搬到上海了')
    await h.app.memory.flush()
  })

  afterEach(() => h.stop())

  it('a move closes where alice lived: retrieve gives the current city, history both', async () => {
    const current = await h.app.memory.retrieve('alice', '住在哪', { platform: 'mock' })
    expect(current.map((m) => m.content)).toEqual([expect.stringContaining('上海')])
    expect(current[0].validTo).toBeNull()

    const history = await h.app.memory.retrieve('alice', '住在哪', { platform: 'mock', history: true })
    const chengdu = history.find((m) => m.content.includes('成都'))
    expect(history.map((m) => m.content).some((content) => content.includes('上海'))).toBe(true)
    expect(chengdu?.validTo).toBeInstanceOf(Date)
    const [row] = await h.app.database.get('memory_fact', { id: chengdu!.id })
    expect(row.supersededBy).toBe(current[0].id)
    // the closed fact stays in the index, for history queries
    expect(await internalsOf(h.app.memory).index.texts('memories', [chengdu!.id])).toHaveLength(1)
  })

  it('memory.list shows current facts, --history the closed one with its period, in both locales', async () => {
    const [list] = await h.app.mock.client('alice').receive('memory.list')
    expect(list).toMatch(/共 1 条记忆/)
    expect(list).toContain('上海')
    expect(list).not.toContain('成都')
    const [all] = await h.app.mock.client('alice').receive('memory.list --history')
    expect(all).toMatch(/共 2 条记忆/)
    expect(all).toMatch(/成都[^\n]*已不再成立：\d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d/)
    expect(all).toMatch(/上海[^\n]*自 \d{4}-\d\d-\d\d 起/)
    await h.app.mock.initUser('admin', 3, { locales: ['en-US'] })
    const [en] = await h.app.mock.client('admin').receive('memory.list -a -u mock:alice')
    expect(en).toMatch(/成都[^\n]*no longer true: \d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d/)
  })
})
