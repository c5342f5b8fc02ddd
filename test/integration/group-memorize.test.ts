import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, factsOf, removePlace, say } from './harness'
import { internalsOf } from '../../src/compose'

/** Waits until `check` holds, polling; fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 8000) {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('memorising without a reply plugin', () => {
  let h: Harness | undefined

  afterEach(async () => {
    await h?.stop()
    h = undefined
  })

  it('ends a group dialogue once the user has been quiet, with no bot reply at all', async () => {
    h = await boot({ memorize: { quietSeconds: 1 } })
    await say(h.app, 'alice', '我住在成都，在一家医院工作', 'g1')
    await say(h.app, 'bob', '今天天气不错', 'g1')
    await until(async () => (await factsOf(h!, 'alice')).length > 0)
    expect((await factsOf(h, 'alice')).join()).toContain('成都')
    expect(await h.app.database.get('memory_message', { role: 'assistant' })).toEqual([])
    // the job that stored the fact moves the watermark right after
    await h.app.memory.flush()
    const [mark] = await h.app.database.get('memory_watermark', { platform: 'mock' })
    expect(mark.channelId).toBe('g1')
  })

  it('reads a group dialogue of several speakers in one extraction and stores each fact for its own speaker', async () => {
    h = await boot({ memorize: { quietSeconds: 1 } })
    await say(h.app, 'alice', '我养了一只柯基，叫豆豆', 'g1')
    await say(h.app, 'bob', '我在学吉他', 'g1')
    await say(h.app, 'alice', '周末去哪玩？', 'g1')
    await until(async () => (await factsOf(h!, 'bob')).length > 0)
    await h.app.memory.flush()
    expect((await factsOf(h, 'alice')).join()).toContain('豆豆')
    expect((await factsOf(h, 'alice')).join()).not.toContain('吉他')
    expect((await factsOf(h, 'bob')).join()).toContain('吉他')
    expect((await factsOf(h, 'bob')).join()).not.toContain('豆豆')
    expect(internalsOf(h.app.memory).counters.get('memorize.extractions')).toBe(1)
  })

  it('stores a plan said as "下周三" with the date it stands for on the day it was said', async () => {
    h = await boot({ memorize: { quietSeconds: 0, groupEvery: 1 } })
    await say(h.app, 'alice', '我下周三要去上海出差', 'g1')
    const [fact] = await factsOf(h, 'alice')
    expect(fact).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/)
    expect(fact).not.toContain('下周三')
  })

  it("ends a group dialogue after the user's Nth message", async () => {
    h = await boot({ memorize: { quietSeconds: 0, groupEvery: 2 } })
    await say(h.app, 'alice', '我最近在学吉他', 'g1')
    expect(await factsOf(h, 'alice')).toEqual([])
    await say(h.app, 'alice', '我住在成都', 'g1')
    await h.app.memory.flush()
    expect((await factsOf(h, 'alice')).join()).toContain('成都')
  })

  it('reads back, after a restart, the dialogue the restart interrupted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-restart-'))
    try {
      h = await boot({ memorize: { quietSeconds: 3600 } }, undefined, { dir, keep: true })
      await say(h.app, 'alice', '我住在成都，在一家医院工作', 'g1')
      await h.stop()

      h = await boot({ memorize: { quietSeconds: 1 } }, undefined, { dir, keep: true })
      await until(async () => (await factsOf(h!, 'alice')).length > 0)
      await h.app.memory.flush()
      const stored = await factsOf(h, 'alice')
      expect(stored.join()).toContain('成都')
      await h.stop()

      // memorised once: a third start finds nothing waiting
      h = await boot({ memorize: { quietSeconds: 1 } }, undefined, { dir, keep: true })
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await h.app.memory.flush()
      expect(await factsOf(h, 'alice')).toEqual(stored)
      expect(internalsOf(h.app.memory).counters.get('memorize.stored')).toBe(0)
    } finally {
      await removePlace(dir)
    }
  })
})

describe('command output stays out of memory', () => {
  let h: Harness | undefined

  afterEach(async () => {
    await h?.stop()
    h = undefined
  })

  it("marks the bot's answers to a command like the command and keeps them out of topics and episodes", async () => {
    h = await boot({ memorize: { quietSeconds: 0 } }, (app) => app.command('say <text:text>').action((_, text) => `you said: ${text}`))
    await say(h.app, 'alice', '我喜欢吃四川火锅')
    await say(h.app, 'alice', 'say 火锅真好吃')
    // what memory's own commands print is memory itself, never stored as chat
    await say(h.app, 'alice', 'memory.list')
    const rows = await h.app.database.get('memory_message', {})
    const answers = rows.filter((row) => row.role === 'assistant')
    expect(answers.map((row) => row.content)).toEqual(['you said: 火锅真好吃'])
    expect(answers.every((row) => row.isCommand)).toBe(true)
    expect(answers.every((row) => !row.topicId)).toBe(true)
    expect(await h.app.database.get('memory_episode', {})).toEqual([])
    const context = await h.app.memory.buildContext({
      platform: 'mock',
      guildId: '',
      channelId: 'private:alice',
      userId: 'alice',
      content: '火锅',
      time: new Date(),
    })
    expect(context.messages.every((message) => message.role === 'user')).toBe(true)
  })
})

describe('a long backlog at a restart', () => {
  it('memorises every line a restart read back, however many, not only the last ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-backlog-'))
    let h: Harness | undefined
    const config = { memorize: { privateEvery: 0, afterReply: false }, retrieval: { dedupeThreshold: 1 }, topics: { enabled: false } }
    try {
      // a private chat: its quiet time is privateQuietSeconds
      h = await boot({ ...config, memorize: { ...config.memorize, privateQuietSeconds: 3600 } }, undefined, { dir, keep: true })
      const client = h.app.mock.client('alice')
      for (let i = 0; i < 90; i++) await client.receive(`我喜欢编号${i}的邮票`)
      await h.stop()
      h = await boot({ ...config, memorize: { ...config.memorize, privateQuietSeconds: 1 } }, undefined, { dir, keep: true })
      await until(async () => (await factsOf(h!, 'alice')).length >= 90, 20_000)
      const stored = await factsOf(h, 'alice')
      expect(new Set(stored.map((fact) => fact.match(/编号(\d+)/)?.[1])).size).toBe(90)
    } finally {
      await h?.stop()
      await removePlace(dir)
    }
  }, 60_000)
})

describe('a lost index folder', () => {
  it('is rebuilt from the database at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-lost-'))
    let h: Harness | undefined
    try {
      h = await boot({ memorize: { quietSeconds: 0, privateEvery: 1 } }, undefined, { dir, keep: true })
      await say(h.app, 'alice', '我住在成都')
      await say(h.app, 'alice', '我养了一只柯基，叫豆豆')
      expect(await h.app.memory.retrieve('alice', '柯基', { platform: 'mock' })).not.toEqual([])
      await h.stop()
      rmSync(join(dir, 'lancedb'), { recursive: true, force: true })

      h = await boot({ memorize: { quietSeconds: 0 } }, undefined, { dir, keep: true })
      await h.app.memory.flushOutbox()
      const found = await h.app.memory.retrieve('alice', '柯基', { platform: 'mock' })
      expect(found.map((memory) => memory.content).join()).toContain('豆豆')
      expect(await internalsOf(h.app.memory).index.count('messages')).toBeGreaterThanOrEqual(2)
    } finally {
      await h?.stop()
      await removePlace(dir)
    }
  })
})

describe('an index behind the database', () => {
  it('gets back, at the next start, facts whose index write a kill cut off, and a table whose files were damaged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-behind-'))
    let h: Harness | undefined
    try {
      h = await boot({ memorize: { quietSeconds: 0, privateEvery: 1 } }, undefined, { dir, keep: true })
      await say(h.app, 'alice', '我养了一只柯基，叫豆豆')
      await say(h.app, 'bob', '我在杭州读研究生')
      const [fact] = await h.app.database.get('memory_fact', { userId: 'alice' })
      // the database has the fact, the index not: as if the process died between the two writes
      await internalsOf(h.app.memory).index.delete('memories', [fact.id])
      expect(await h.app.memory.retrieve('alice', '柯基', { platform: 'mock', factsOnly: true })).toEqual([])
      await h.stop()

      h = await boot({ memorize: { quietSeconds: 0 } }, undefined, { dir, keep: true })
      await h.app.memory.flushOutbox()
      expect((await h.app.memory.retrieve('alice', '柯基', { platform: 'mock', factsOnly: true })).map((m) => m.content).join()).toContain(
        '豆豆',
      )
      await h.stop()

      const data = join(dir, 'lancedb', 'memories.lance', 'data')
      for (const file of readdirSync(data)) writeFileSync(join(data, file), 'garbage')
      h = await boot({ memorize: { quietSeconds: 0 } }, undefined, { dir, keep: true })
      await h.app.memory.flushOutbox()
      expect((await h.app.memory.retrieve('alice', '柯基', { platform: 'mock', factsOnly: true })).map((m) => m.content).join()).toContain(
        '豆豆',
      )
      expect((await h.app.memory.retrieve('bob', '杭州', { platform: 'mock', factsOnly: true })).map((m) => m.content).join()).toContain(
        '杭州',
      )
    } finally {
      await h?.stop()
      await removePlace(dir)
    }
  })
})
