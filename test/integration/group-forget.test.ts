import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { App } from 'koishi'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { memoryRow } from '../fakes/group-store'
import type { Harness } from './harness'
import { boot, removePlace, say } from './harness'
import { chat, ScriptedServer } from './scripted-server'
import { filesHolding, holding, koishiTexts } from './stored-text'

// words only alice says: wherever one of them is stored, it came from her
const ALICE_WORDS = ['翡翠湖', 'Zephyrine']
const BOB_ONLY = '群里有人爱吃蓝莓松饼'
const BOTH = '群友约在山茶花公园见面'
const G1 = { platform: 'mock', guildId: 'g1' }

/**
 * The evolution model, scripted on the discussion it is given: each line it knows becomes a memory;
 * the memory of alice and bob names alice's lake only when her line is there.
 */
function evolution(input: { existing_memories: { id: number; statement: string }[]; new_discussions: string[] }): string {
  const said = (words: string) => input.new_discussions.some((line) => line.includes(words))
  const ops: object[] = []
  if (said('蓝莓松饼')) ops.push({ action: 'create', statement: BOB_ONLY })
  if (said('翡翠湖划船')) ops.push({ action: 'create', statement: '有成员周末去翡翠湖划船，自称 Zephyrine' })
  if (said('山茶花公园等你们')) ops.push({ action: 'create', statement: said('翡翠湖') ? `${BOTH}，再一起去翡翠湖` : BOTH })
  const both = input.existing_memories.find((memory) => memory.statement.startsWith(BOTH))
  if (said('周六开门') && both) ops.push({ action: 'update', old_id: both.id, statement: `${BOTH}，公园周六开门` })
  if (said('我住在翡翠湖边')) ops.push({ action: 'create', statement: '有成员住在翡翠湖边' })
  if (said('是我的网名')) ops.push({ action: 'create', statement: '有成员的网名是 Zephyrine' })
  if (said('门票')) ops.push({ action: 'create', statement: '翡翠湖门票很贵' })
  return ops.map((op) => JSON.stringify({ ...op, change_reason: '群聊' })).join('\n')
}

const server = new ScriptedServer((_path, body, res) => {
  const user: string = body.messages?.at(-1)?.content ?? ''
  if (!user.includes('"new_discussions"')) return chat(res, '')
  chat(res, evolution(JSON.parse(user)))
})
const evolutionInputs = () =>
  server.requests
    .map((request) => request.body.messages?.at(-1)?.content as string)
    .filter((content) => content?.includes('"new_discussions"'))
    .map((content) => JSON.parse(content) as { new_discussions: string[] })

async function groupTexts(app: App) {
  const texts = await koishiTexts(app)
  return new Map([...texts].filter(([table]) => table.startsWith('memory_group') || table === 'memory_vector'))
}

async function contextOf(app: App, content: string) {
  const context = await app.memory.buildContext({ ...G1, channelId: 'g1', userId: 'carol', content, time: new Date() })
  return (context.group ?? []).map((memory) => memory.statement).join('\n')
}

async function shown(app: App, command: string) {
  const [reply] = await app.mock.client('bob', 'g1').receive(command)
  return reply ?? ''
}

let baseURL = ''
beforeAll(async () => {
  baseURL = await server.start()
})
afterAll(() => server.stop())

describe.each(['lancedb', 'database'] as const)('forget --all reaches group memory (%s index)', (engine) => {
  let dir: string
  let h: Harness | undefined
  const start = async () => {
    h = await boot(
      {
        llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
        memorize: { enabled: false },
        topics: { enabled: false },
        store: { engine },
      },
      undefined,
      { dir, keep: true },
    )
    return h.app
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-group-forget-'))
  })
  afterEach(async () => {
    await h?.stop()
    h = undefined
    await removePlace(dir)
  })

  it("leaves none of alice's words in group memory, its change log, review queue or index, and keeps bob's", async () => {
    let app = await start()
    await say(app, 'bob', '我最爱吃蓝莓松饼', 'g1')
    expect((await app.memory.evolve(G1)).stats.created).toBe(1)
    await say(app, 'alice', '周末我要去翡翠湖划船，我叫 Zephyrine', 'g1')
    await say(app, 'bob', '我在山茶花公园等你们', 'g1')
    expect((await app.memory.evolve(G1)).stats.created).toBe(2)
    await say(app, 'bob', '山茶花公园周六开门', 'g1')
    const update = await app.memory.evolve(G1)
    expect(update.stats.updated).toBe(1)
    const [{ old_id: drawnV1, new_id: drawnV2 }] = update.changes as { old_id: string; new_id: string }[]
    // a moderated group: her words wait in its review queue, and one proposal was approved
    await say(app, 'alice', '翡翠湖的门票好贵，Zephyrine 是我的网名', 'g2')
    await app.memory.setReviewMode('mock:g2', 'review')
    expect((await app.memory.evolve({ platform: 'mock', guildId: 'g2' })).review?.queued).toBe(2)
    const [proposal] = (await app.memory.reviewQueue('mock:g2')).reviews.filter((review) => review.statement.includes('门票'))
    await app.memory.approveReview(proposal.review_id, { by: 'mock:admin' })
    await app.memory.flushOutbox()

    // positive controls: her words are there to be found
    const before = await groupTexts(app)
    for (const table of ['memory_group', 'memory_group_change', 'memory_group_review']) expect(holding(before, '翡翠湖')).toContain(table)
    if (engine === 'database') expect(holding(before, '翡翠湖')).toContain('memory_vector')
    else expect(filesHolding(dir, '翡翠湖').length).toBeGreaterThan(0)
    expect(await contextOf(app, '周末去翡翠湖划船')).toContain('翡翠湖')
    expect(await shown(app, 'memory.group.list')).toContain('翡翠湖')

    const [reply] = await app.mock.client('alice').receive('memory.forget --all -y')
    expect(reply).toBeTruthy()

    const check = async (when: string) => {
      const after = await groupTexts(app)
      for (const word of ALICE_WORDS) {
        expect(holding(after, word), `${when}: tables holding ${word}`).toEqual([])
        expect(filesHolding(dir, word), `${when}: index files holding ${word}`).toEqual([])
        expect(await contextOf(app, '周末去翡翠湖划船 Zephyrine 山茶花'), when).not.toContain(word)
        expect(await shown(app, 'memory.group.list'), when).not.toContain(word)
        expect(await shown(app, `memory.group.search ${word}`), when).not.toContain(word)
      }
      expect(await shown(app, 'memory.group.list'), when).toContain(BOB_ONLY)
      // a memory drawn from her words goes whole, with the version that no longer names her lake
      expect(await app.database.get('memory_group', { id: [drawnV1, drawnV2] }), when).toEqual([])
    }
    await check('after the forget')
    expect(await shown(app, `memory.group.history ${drawnV2}`)).not.toContain(BOTH)

    // the group's watermark went back: the next evolution makes bob's part again from what is left
    const seen = evolutionInputs().length
    await app.memory.evolve(G1)
    const [again] = evolutionInputs().slice(seen)
    expect(again.new_discussions).toEqual(['bob: 我在山茶花公园等你们', 'bob: 山茶花公园周六开门'])
    expect(await shown(app, 'memory.group.list')).toContain(BOTH)

    await h!.stop()
    app = await start()
    await app.memory.flushOutbox()
    await check('after a restart')
  })
})

describe('group memory and forget, beyond forget --all', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
      memorize: { enabled: false },
      topics: { enabled: false },
    })
  })
  afterEach(() => h.stop())

  it('takes a memory written before sources were recorded as drawn from every message of its group', async () => {
    const { app } = h
    await say(app, 'alice', '大家好', 'g1')
    await say(app, 'bob', '我最爱吃蓝莓松饼', 'g1')
    await say(app, 'bob', '下棋吗', 'g3')
    await say(app, 'alice', '有人在吗', 'g5')
    await app.database.upsert('memory_group', [
      memoryRow(G1, 'legacy1', 'Zephyrine 常在群里发言', { runId: 'oldrun' }),
      memoryRow({ platform: 'mock', guildId: 'g3' }, 'legacy3', '三号群的人喜欢下棋', { runId: 'oldrun3' }),
    ])
    await app.memory.evolve(G1)
    const seen = evolutionInputs().length

    await app.memory.forgetAll({ platform: 'mock', userId: 'alice' })
    expect(await app.database.get('memory_group', { id: 'legacy1' })).toEqual([])
    // bob's memory was made by a run that read her greeting: it goes, and comes back from what is left
    expect(await app.database.get('memory_group', { statement: BOB_ONLY })).toEqual([])
    expect((await app.database.get('memory_group', { id: 'legacy3' })).length).toBe(1)
    // a group with no group memory is left alone (no lease taken for it)
    expect(await app.database.get('memory_group_lease', { guildId: 'g5' })).toEqual([])
    await app.memory.evolve(G1)
    expect(evolutionInputs()[seen].new_discussions).toEqual(['bob: 我最爱吃蓝莓松饼'])
    expect((await app.database.get('memory_group', { statement: BOB_ONLY, status: 'active' })).length).toBe(1)
  })

  it('forgetting one fact removes the group memories drawn from the message it came from, and no others', async () => {
    const { app } = h
    await say(app, 'alice', '我住在翡翠湖边', 'g1')
    await say(app, 'bob', '我在山茶花公园等你们', 'g1')
    await app.memory.evolve(G1)
    await say(app, 'alice', 'Zephyrine 是我的网名', 'g4')
    await app.memory.evolve({ platform: 'mock', guildId: 'g4' })
    const [message] = await app.database.get('memory_message', { userId: 'alice', guildId: 'g1' })
    const now = new Date()
    await app.memory.remember({
      id: 'lake1',
      platform: 'mock',
      guildId: 'g1',
      channelId: 'g1',
      userId: 'alice',
      content: 'alice住在翡翠湖边。',
      reason: '',
      version: 1,
      parentId: '',
      sourceIds: [message.id],
      createdAt: now,
      updatedAt: now,
      validFrom: now,
      validTo: null,
    })
    await app.memory.flushOutbox()
    expect(holding(await groupTexts(app), '翡翠湖')).toContain('memory_group')

    const [reply] = await app.mock.client('alice').receive('memory.forget lake1')
    expect(reply).toContain('lake1')
    const after = await groupTexts(app)
    expect(holding(after, '翡翠湖')).toEqual([])
    expect(filesHolding(h.dir, '翡翠湖')).toEqual([])
    expect(await contextOf(app, '翡翠湖')).not.toContain('翡翠湖')
    // drawn from a message of hers that was not forgotten: it stays
    expect(holding(after, 'Zephyrine')).toContain('memory_group')
  })
})
