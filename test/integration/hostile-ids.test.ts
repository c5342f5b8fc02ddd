import { afterEach, describe, expect, it } from 'vitest'
import { cleanId } from '../../src/scope'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'
import { internalsOf } from '../../src/compose'

describe('hostile ids', () => {
  let h: Harness | undefined

  afterEach(async () => {
    await h?.stop()
    h = undefined
  })

  it('writes control characters and lone surrogates out, so distinct ids stay distinct', () => {
    expect(cleanId('a\u0000b')).toBe('a\\u0000b')
    expect(cleanId('ls\ud800x')).not.toBe(cleanId('ls\udc00x'))
    expect(cleanId('小明😀 ok')).toBe('小明😀 ok')
  })

  it('a NUL in a user id stops nobody else from being recorded', async () => {
    h = await boot({ memorize: { privateEvery: 1 } }, (app) => app.plugin(echo))
    await say(h.app, 'evil\u0000', '我住在深圳')
    await say(h.app, 'alice', '我住在成都')
    const users = (await h.app.database.get('memory_message', { role: 'user' })).map((row) => row.userId).sort()
    expect(users).toEqual(['alice', 'evil\\u0000'])
    expect(internalsOf(h.app.memory).counters.get('capture.write-failed')).toBe(0)
    // Koishi's own user table refuses the id too, so the user cannot run a command; the service still finds their facts
    const facts = await h.app.memory.list({ platform: 'mock', userId: 'evil\u0000' })
    expect(facts.map((fact) => fact.content).join()).toContain('深圳')
  })

  it("two users whose ids differ only in a lone surrogate never see each other's facts", async () => {
    h = await boot({}, (app) => app.plugin(echo))
    await say(h.app, 'ls\ud800x', '我养了一只猫')
    await say(h.app, 'ls\udc00x', '我养了一只狗')
    const [first] = await h.app.mock.client('ls\ud800x').receive('memory.list')
    const [second] = await h.app.mock.client('ls\udc00x').receive('memory.list')
    expect(first).toContain('猫')
    expect(first).not.toContain('狗')
    expect(second).toContain('狗')
    expect(second).not.toContain('猫')
  })
})

describe('ids that differ only in case', () => {
  let h: Harness

  afterEach(() => h.stop())

  it("are two users, who never see or erase each other's facts", async () => {
    h = await boot({ memorize: { privateEvery: 1 } }, (app) => app.plugin(echo))
    await say(h.app, 'Alice', '我养了一只猫')
    await say(h.app, 'alice', '我养了一只狗')
    const [upper] = await h.app.mock.client('Alice').receive('memory.list')
    const [lower] = await h.app.mock.client('alice').receive('memory.list')
    expect(upper).toContain('猫')
    expect(upper).not.toContain('狗')
    expect(lower).toContain('狗')
    expect(lower).not.toContain('猫')
    await h.app.mock.client('alice').receive('memory.forget --all -y')
    await h.app.memory.flush()
    expect((await h.app.memory.list({ platform: 'mock', userId: 'Alice' })).map((fact) => fact.content).join()).toContain('猫')
    expect(await h.app.memory.list({ platform: 'mock', userId: 'alice' })).toEqual([])
  })
})
