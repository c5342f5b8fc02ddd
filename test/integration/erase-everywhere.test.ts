import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import { boot, type Harness, removePlace, say } from './harness'
import { testDatabase } from './database'
import { filesHolding, filesUnder, holding, koishiTexts, lanceTexts } from './stored-text'
import { internalsOf } from '../../src/compose'

// words nobody else says: wherever one of them is stored, it came from alice
const ALICE_WORDS = ['翡翠湖', '紫罗兰蛋糕', 'Zephyrine']
const BOB_WORD = '蓝莓松饼'

async function until(check: () => Promise<boolean>, ms = 5000) {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('forget --all erases a user from every table', () => {
  let h: Harness

  beforeEach(async () => {
    h = await boot({ summaries: { countThreshold: 3, minMessages: 2 } }, (app) => app.plugin(echo))
    // private: facts, episodes and the bot's echoes of her words
    await say(h.app, 'alice', '我住在翡翠湖边上')
    await say(h.app, 'alice', '我最喜欢吃紫罗兰蛋糕')
    // a group: topics, their summaries, the context log
    await say(h.app, 'alice', '<at id="514"/> 周末去翡翠湖划船吧，我叫 Zephyrine', 'g1')
    await say(h.app, 'bob', `${BOB_WORD}也不错，周末一起`, 'g1')
    await say(h.app, 'alice', '翡翠湖的紫罗兰蛋糕最好吃', 'g1')
    // a question is no fact: only the erasure of the bot's answers removes its echo
    await say(h.app, 'alice', '<at id="514"/> 翡翠湖几点关门？', 'g1')
    await h.app.memory.buildContext({
      platform: 'mock',
      guildId: 'g1',
      channelId: 'g1',
      userId: 'alice',
      content: '翡翠湖怎么去',
      time: new Date(),
    })
    for (const topic of await h.app.memory.topics.list({ platform: 'mock', guildId: 'g1', channelId: 'g1' }, 10)) {
      await h.app.memory.topics.summarizeNow(topic.id)
    }
    await h.app.memory.flushOutbox()
  })

  afterEach(() => h.stop())

  it('leaves none of her words in the database or the index, and keeps what bob said', async () => {
    // positive control: her words are there to be found before the erasure
    await until(async () => holding(await lanceTexts(h.dir), '紫罗兰蛋糕').includes('messages'))
    const before = await koishiTexts(h.app)
    const lanceBefore = await lanceTexts(h.dir)
    for (const table of ['memory_message', 'memory_fact', 'memory_episode', 'memory_context', 'memory_summary']) {
      expect(holding(before, '翡翠湖'), table).toContain(table)
    }
    for (const table of ['messages', 'episodes', 'memories', 'topic_summaries']) {
      expect(holding(lanceBefore, '翡翠湖'), table).toContain(table)
    }
    expect(filesHolding(h.dir, '翡翠湖').length).toBeGreaterThan(0)

    const [reply] = await h.app.mock.client('alice').receive('memory.forget --all -y')
    expect(reply).toBeTruthy()
    const after = await koishiTexts(h.app)
    const lanceAfter = await lanceTexts(h.dir)
    for (const word of ALICE_WORDS) {
      expect(holding(after, word), `Koishi tables holding ${word}`).toEqual([])
      expect(holding(lanceAfter, word), `LanceDB tables holding ${word}`).toEqual([])
      expect(filesHolding(h.dir, word), `files under the store holding ${word}`).toEqual([])
    }
    expect(holding(after, BOB_WORD)).toContain('memory_message')
    expect(holding(lanceAfter, BOB_WORD)).toContain('messages')
  })

  it('leaves no fact of a dialogue that was waiting to be memorised when the user was forgotten', async () => {
    const waiting = await boot({ memorize: { quietSeconds: 3600 } })
    try {
      await say(waiting.app, 'carol', '我养了一只仓鼠，叫团子', 'g9')
      expect(await waiting.app.database.get('memory_fact', { userId: 'carol' })).toEqual([])
      await waiting.app.mock.client('carol').receive('memory.forget --all -y')
      // the channel's dialogue ends after the forget: nothing of carol's may be stored from it
      await waiting.app.memory.closeIdleTopics()
      internalsOf(waiting.app.memory).capture.sweep(new Date(Date.now() + 7_200_000), 1)
      await waiting.app.memory.flush()
      expect(await waiting.app.database.get('memory_fact', { userId: 'carol' })).toEqual([])
    } finally {
      await waiting.stop()
    }
  })
})

describe('memory.forget <id> erases what the fact said wherever it went', () => {
  const word = '琥珀蜥蜴'
  let h: Harness
  let dir: string

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-forget-'))
    h = await boot({ knowledge: { enabled: true } }, (app) => app.plugin(echo), { dir, keep: true })
    await say(h.app, 'alice', `我养了一只${word}，叫阿橙`)
    await say(h.app, 'alice', '我住在青岛')
    await say(h.app, 'bob', '我养了一只蓝莓松饼色的猫')
  })

  afterEach(async () => {
    await h.stop()
    await removePlace(dir)
  })

  it('leaves no copy in the tables, the index, the bot’s listings, the profile or the database file, and says what went', async () => {
    const alice = h.app.mock.client('alice')
    const [listing] = await alice.receive('memory.list')
    expect(listing).toContain(word)
    await h.app.memory.flush()
    const fact = (await h.app.database.get('memory_fact', { userId: 'alice' })).find((row) => row.content.includes(word))!
    expect(fact).toBeTruthy()
    // positive control: the words are in the tables before the forget
    expect(holding(await koishiTexts(h.app), word)).toContain('memory_message')
    // what memory's own commands print is memory, not chat: the listing was never stored
    const botLines = await h.app.database.get('memory_message', { role: 'assistant' })
    expect(botLines.filter((row) => row.content.includes(fact.id))).toEqual([])

    const [reply] = await alice.receive(`memory.forget ${fact.id}`)
    expect(reply).toContain(fact.id)
    expect(reply).toMatch(/记忆 1 条|1 memories/)
    await h.app.memory.flush()
    const texts = await koishiTexts(h.app)
    expect(holding(texts, word), 'Koishi tables').toEqual([])
    expect(holding(await lanceTexts(h.dir), word), 'LanceDB tables').toEqual([])
    // what alice said besides, and bob's words, stay
    expect(holding(texts, '青岛')).toContain('memory_fact')
    expect(holding(texts, '蓝莓松饼')).toContain('memory_message')
    const [after] = await alice.receive('memory.list')
    expect(after).not.toContain(word)
    const [profile] = await alice.receive('memory.profile')
    expect(profile ?? '').not.toContain(word)

    // after a restart, nowhere on disk either (the SQLite file's free pages included)
    await h.stop()
    h = await boot({ knowledge: { enabled: true } }, (app) => app.plugin(echo), { dir, keep: true })
    expect(holding(await koishiTexts(h.app), word)).toEqual([])
    if (testDatabase === 'sqlite') expect(filesUnder(dir, '', word)).toEqual([])
  })
})
