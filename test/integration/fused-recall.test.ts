import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RecalledMemory } from '../../src'
import type { Harness } from './harness'
import { boot, say } from './harness'

const sourceTexts = (found: RecalledMemory[]) => found.flatMap((memory) => memory.sources.map((line) => line.content))

describe('retrieve: facts and the lines they came from, fused', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({ memorize: { quietSeconds: 0, privateEvery: 1, groupEvery: 1 } })
  })

  afterEach(() => h.stop())

  it('the person asks in their own words and finds their fact, with the line it came from', async () => {
    await say(h.app, 'alice', '我养了一只猫，叫咪咪')
    await say(h.app, 'alice', '最近在学吉他')
    await say(h.app, 'alice', '今天天气不错')
    const found = await h.app.memory.retrieve('alice', '我的猫叫什么名字', { platform: 'mock', guildId: '', topK: 3 })
    expect(found[0].content).toContain('咪咪')
    expect(found[0].kind).toBe('fact')
    expect(found[0].sources).toEqual([expect.objectContaining({ content: '我养了一只猫，叫咪咪', userId: 'alice', name: 'alice' })])
    expect(found[0].sources[0].time).toBeInstanceOf(Date)

    await say(h.app, 'tom', 'I live in Chengdu and I work as a nurse')
    const where = await h.app.memory.retrieve('tom', 'Where do I live?', { platform: 'mock', guildId: '', topK: 3 })
    expect(sourceTexts(where.slice(0, 1)).join()).toContain('Chengdu')
  })

  it('a line no fact came from is listed itself; facts only on request', async () => {
    await say(h.app, 'alice', '咪咪最爱趴在窗台上晒太阳')
    const found = await h.app.memory.retrieve('alice', '咪咪晒太阳', { platform: 'mock', guildId: '' })
    const line = found.find((memory) => memory.kind === 'message')
    expect(line).toMatchObject({ content: '咪咪最爱趴在窗台上晒太阳', scope: { platform: 'mock', userId: 'alice', guildId: '' } })
    expect(line!.sources.map((source) => source.id)).toContain(line!.id)
    const facts = await h.app.memory.retrieve('alice', '咪咪晒太阳', { platform: 'mock', guildId: '', factsOnly: true })
    expect(facts.every((memory) => memory.kind === 'fact')).toBe(true)
  })

  it('in a group: the answer to what another member asked, never the other member’s own lines, never another group’s', async () => {
    await say(h.app, 'bob', 'alice，你家那只猫叫啥名字来着？', 'g1')
    await say(h.app, 'alice', '咪咪，三岁了', 'g1')
    await say(h.app, 'bob', '我家的猫叫球球', 'g1')
    await say(h.app, 'alice', '我在杭州工作', 'g2')
    const found = await h.app.memory.retrieve('alice', '我的猫叫什么名字', { platform: 'mock', guildId: 'g1', topK: 5 })
    const answer = found.find((memory) => memory.content.includes('咪咪'))
    expect(answer).toBeDefined()
    expect(answer!.sources.map((line) => line.content)).toEqual(['alice，你家那只猫叫啥名字来着？', '咪咪，三岁了'])
    expect(found.every((memory) => memory.scope.userId === 'alice' && memory.scope.guildId === 'g1')).toBe(true)
    expect(found.map((memory) => memory.content).join()).not.toContain('球球')
    const elsewhere = await h.app.memory.retrieve('alice', '杭州', { platform: 'mock', guildId: 'g1' })
    expect(elsewhere.map((memory) => memory.content).join()).not.toContain('杭州')
  })

  it('in a group: another member’s statement said just before the user’s is no part of the user’s memory', async () => {
    await say(h.app, 'bob', '我最喜欢吃榴莲酥', 'g1')
    await say(h.app, 'alice', '我最喜欢吃蛋挞', 'g1')
    const found = await h.app.memory.retrieve('alice', '榴莲酥', { platform: 'mock', guildId: 'g1', topK: 5 })
    expect(JSON.stringify(found)).not.toContain('榴莲酥')
    const mine = await h.app.memory.retrieve('alice', '我最喜欢吃什么', { platform: 'mock', guildId: 'g1', topK: 5 })
    expect(JSON.stringify(mine)).toContain('蛋挞')
    expect(JSON.stringify(mine)).not.toContain('榴莲酥')
  })

  it('the user’s own questions are no memory to recall', async () => {
    await say(h.app, 'alice', '我的猫叫什么名字？')
    const found = await h.app.memory.retrieve('alice', '我的猫叫什么名字', { platform: 'mock', guildId: '' })
    expect(found).toEqual([])
  })
})
