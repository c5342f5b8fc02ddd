import { describe, expect, it } from 'vitest'
import type { App } from 'koishi'
import type { RecalledMemory } from '../../src'
import { internalsOf } from '../../src/compose'
import { message } from '../fakes/message-rows'
import { boot } from './harness'
import { testDatabase } from './database'

const USERS = ['ann', 'bob', 'cai', 'dan']
const CHANNELS = ['g1', 'g2']
const TOPICS = ['猫', '吉他', '杭州', 'the garden', 'my bike', 'coffee']

/**
 * Older talk written straight to the store and its index (as capture writes it): more than a small
 * budget holds, about none of the topics asked (near-identical lines would tie, and ties may fall either way).
 */
const FILLER = 1200
const WORDS = ['晚饭', 'weather', '周末', 'movies', '地铁', 'music', '加班', 'rain', '考试', 'pizza', '旅行', 'dogs']

async function fill(app: App) {
  const { modules } = internalsOf(app.memory)
  const messages = modules.part('messages')
  const rows = Array.from({ length: FILLER }, (_, i) => {
    const channelId = CHANNELS[i % CHANNELS.length]
    const messageId = `old${i}`
    const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]}`
    return {
      ...message({ messageId, userId: USERS[i % USERS.length], content: `${words}，第${i}句 line ${i}`, at: i * 30 }),
      id: `mock:${channelId}:${messageId}`,
      platform: 'mock',
      guildId: channelId,
      channelId,
      createdAt: new Date(Date.now() - 86_400_000 + i * 30_000),
    }
  })
  await messages.store.upsert(rows)
  messages.index.add(rows)
  await messages.index.flush()
}

/** The same chat in every app: each user says a line about each topic in each channel, then asks. */
async function chat(app: App) {
  await fill(app)
  let n = 0
  for (const channel of CHANNELS)
    for (const topic of TOPICS)
      for (const user of USERS) {
        n++
        const line = n % 2 ? `我最近常聊${topic}，第${n}次说到它` : `I keep talking about ${topic}, time ${n}`
        await app.mock.client(user, channel).receive(line)
      }
  await app.memory.flush()
  // LanceDB's full-text index covers rows written before its last optimize only; the scope cache scores
  // every row: with the index brought up to date both answer alike
  await internalsOf(app.memory).index.optimize()
}

const seen = (found: RecalledMemory[]) =>
  found.map((memory) => ({ kind: memory.kind, content: memory.content, sources: memory.sources.map((line) => line.content) }))

/**
 * Every user's memories of every topic in every channel, asked twice (the second time from memory
 * where it fits), with a reply's context built for each.
 */
async function answers(app: App) {
  const all: ReturnType<typeof seen>[] = []
  for (let round = 0; round < 2; round++) {
    all.length = 0
    for (const user of USERS)
      for (const guildId of CHANNELS)
        for (const topic of TOPICS) {
          all.push(seen(await app.memory.retrieve(user, topic, { platform: 'mock', guildId, topK: 5 })))
          const target = { platform: 'mock', guildId, channelId: guildId, userId: user, content: topic, time: new Date() }
          // the builder fills the caches of channels, rows and features; its term statistics are no copy
          // of the store (a smaller share holds fewer channels), so its choice may differ with the budget
          const built = await app.memory.buildContext(target)
          expect(built.fallback).toBe(false)
          expect(built.messages.length).toBeGreaterThan(0)
        }
    await app.memory.flush()
  }
  return all
}

async function run(memoryMB: number) {
  const h = await boot({ store: { memoryMB }, memorize: { quietSeconds: 0 }, context: { timeoutMs: 120_000 } })
  try {
    await chat(h.app)
    const found = await answers(h.app)
    const status = await h.app.memory.status()
    const [reply] = await h.app.mock.client('ann').receive('memory.status')
    return { found, memory: status.memory, reply }
  } finally {
    await h.stop()
  }
}

// the caches and their shares do not depend on the database: the suite's run on a server (CI's second,
// slower pass) leaves out its three whole chats
describe.skipIf(testDatabase === 'mysql')('store.memoryMB: one budget for every cache', () => {
  it('answers the same with a budget too small for the store, a big one and none, each cache within its share', async () => {
    const big = await run(64)
    const small = await run(1)
    const none = await run(0)
    expect(big.found.some((list) => list.length)).toBe(true)
    expect(small.found).toEqual(big.found)
    expect(none.found).toEqual(big.found)

    // LanceDB's session keeps a few hundred bytes of bookkeeping even when given no cache
    const slack = (name: string) => (name === 'lancedb' ? 1024 : 0)
    for (const { memory } of [big, small, none]) {
      expect(memory.usedBytes).toBeLessThanOrEqual(memory.budgetBytes + 1024)
      for (const use of memory.consumers) expect(use.bytes).toBeLessThanOrEqual(use.capBytes + slack(use.name))
    }
    expect(none.memory.usedBytes).toBeLessThanOrEqual(1024)
    // the small budget is full where the big one is not: the caches evicted to stay within it
    const use = (report: typeof big.memory, name: string) => report.consumers.find((one) => one.name === name)!
    expect(use(small.memory, 'rows').bytes).toBeGreaterThan(use(small.memory, 'rows').capBytes / 2)
    expect(use(big.memory, 'rows').bytes).toBeGreaterThan(use(small.memory, 'rows').capBytes)
    expect(big.memory.usedBytes).toBeGreaterThan(small.memory.budgetBytes)

    // the command's reply (in the default locale): the budget, then each cache against its share
    expect(small.reply).toMatch(/store\.memoryMB）：已用 [\d.]+ \/ 1 MB/)
    expect(small.reply).toMatch(/最近读取的消息行：已用 [\d.]+ \/ 0\.1 MB，\d+ 条消息/)
  }, 180_000)
})
