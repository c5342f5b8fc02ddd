import { beforeEach, describe, expect, it } from 'vitest'
import { KeyedLock } from '../../src/core/keyed-lock'
import { Eraser } from '../../src/erase/eraser'
import { factIndexKind } from '../../src/facts/fact-index'
import type { MemorizeDeps } from '../../src/facts/memorize'
import { memorize } from '../../src/facts/memorize'
import { RuleJudge } from '../../src/facts/rule-judge'
import { Counters } from '../../src/core/observability'
import type { ErasedMessage } from '../../src/messages/types'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { IndexedTable } from '../../src/store/index-sync'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryFacts } from '../fakes/facts'
import { quiet } from '../fakes/logger'
import { row } from '../fakes/message-rows'
import { MemoryMessages } from '../fakes/messages'
import { MemoryOutbox } from '../fakes/outbox'

/** The message store the eraser needs: the in-memory one, with a user's rows and their removal. */
class ErasableMessages extends MemoryMessages {
  async ofUser(platform: string, userId: string): Promise<ErasedMessage[]> {
    return [...this.rows.values()].filter((r) => r.platform === platform && r.userId === userId)
  }
  async repliesTo(platform: string, said: Pick<ErasedMessage, 'channelId' | 'messageId'>[]): Promise<ErasedMessage[]> {
    return [...this.rows.values()].filter(
      (r) =>
        r.platform === platform &&
        r.role === 'assistant' &&
        said.some((line) => line.channelId === r.channelId && line.messageId === r.replyMessageId),
    )
  }
  async quoting(platform: string, channelIds: string[], texts: string[]): Promise<ErasedMessage[]> {
    return [...this.rows.values()].filter(
      (r) =>
        r.platform === platform &&
        r.role === 'assistant' &&
        channelIds.includes(r.channelId) &&
        texts.some((text) => r.content.includes(text)),
    )
  }
  async remove(ids: string[]) {
    for (const id of ids) this.rows.delete(id)
  }
}

const owner = { platform: 'test', userId: 'alice', guildId: '', channelId: 'c1' }

describe('forget one of several facts drawn from the same message', () => {
  let deps: MemorizeDeps
  let facts: MemoryFacts
  let messages: ErasableMessages
  let index: ExactIndex
  let eraser: Eraser
  const erasedFromIndex: string[][] = []
  let knowledgeErased: { userId: string; messageIds: string[] }[] = []
  let purged = 0

  beforeEach(async () => {
    facts = new MemoryFacts()
    index = new ExactIndex()
    messages = new ErasableMessages()
    const counters = new Counters()
    const embedder = new OfflineEmbedder({ dims: 256 })
    const factIndex = new IndexedTable(
      { index, embedder, outbox: new MemoryOutbox(), counters, logger: quiet },
      factIndexKind('memories', facts),
    )
    let n = 0
    deps = {
      judge: new RuleJudge(),
      embedder,
      facts,
      factIndex,
      counters,
      logger: quiet,
      dedupeThreshold: 0.85,
      commandPrefixes: ['/'],
      newId: () => `f${++n}`,
      now: () => new Date(2026, 10, 26, 10),
    }
    const said = '我叫小明，是一名大学老师，住在成都。我喜欢吃四川火锅，但是不吃香菜。'
    messages.add(
      row('m1', 'alice', said, 0),
      row('b1', 'bot', '好的，记住了', 1, { role: 'assistant', replyMessageId: 'm1' }),
      row('m9', 'alice', '今天好冷', 2),
    )
    erasedFromIndex.length = 0
    knowledgeErased = []
    purged = 0
    eraser = new Eraser({
      capture: { flush: async () => {}, forgetUser: async () => {} },
      facts,
      factIndex,
      messages,
      erasures: [
        { user: async (user, messageIds) => void knowledgeErased.push({ userId: user.userId, messageIds }) },
        {
          async messages(_owner, erased) {
            const ids = erased.map((row) => row.id)
            erasedFromIndex.push(ids)
            await messages.remove(ids)
          },
        },
      ],
      purgeIndex: async () => void purged++,
      lock: new KeyedLock(),
      fence: { mark: async () => {} },
      counters,
    })
    await memorize(deps, {
      owner,
      turns: [
        { role: 'user', name: 'Alice', content: said },
        { role: 'assistant', name: 'bot', content: '好的，记住了' },
      ],
      sourceIds: ['test:c1:m1', 'test:c1:b1'],
    })
  })

  it('a recalled message takes the facts no other line of hers supports (the bot’s answer is no support) and its answer; the rest stay, without it', async () => {
    const all = await facts.ofUser('test', 'alice')
    const city = all.find((f) => f.content === 'Alice住在成都。')!
    await facts.update(city.id, { sourceIds: [...city.sourceIds, 'test:c1:m9'] })
    const [said] = await messages.byIds(['test:c1:m1'])
    const report = await eraser.forgetMessage(said)
    expect(report.facts.sort()).toEqual(
      all
        .filter((f) => f.id !== city.id)
        .map((f) => f.id)
        .sort(),
    )
    expect(report.removed).toMatchObject({ facts: 4, messages: 1, replies: 1 })
    expect((await facts.get([city.id]))[0].sourceIds).toEqual(['test:c1:b1', 'test:c1:m9'])
    expect(erasedFromIndex).toEqual([['test:c1:m1', 'test:c1:b1']])
    expect(purged).toBe(1)
  })

  it('gathers the index purges of recalled messages into one, a while after the first', async () => {
    const timers: { ms: number; run: () => void }[] = []
    const later = new Eraser({
      ...(eraser as unknown as { deps: ConstructorParameters<typeof Eraser>[0] }).deps,
      schedule: (run, ms) => {
        timers.push({ ms, run })
        return () => {}
      },
    })
    for (const id of ['test:c1:m1', 'test:c1:m9']) await later.forgetMessage((await messages.byIds([id]))[0])
    expect(purged).toBe(0)
    expect(timers.map((timer) => timer.ms)).toEqual([5 * 60_000])
    timers[0].run()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(purged).toBe(1)
  })

  it('erases that fact only, and the message it came from though other facts name it: the line still says what was forgotten', async () => {
    const all = await facts.ofUser('test', 'alice')
    expect(all.map((f) => f.content)).toEqual([
      'Alice叫小明。',
      'Alice是一名大学老师。',
      'Alice住在成都。',
      'Alice喜欢吃四川火锅。',
      'Alice不吃香菜。',
    ])
    const cilantro = all.find((f) => f.content === 'Alice不吃香菜。')!
    expect(await eraser.forget(owner, [cilantro.id])).toEqual({ facts: [cilantro.id], removed: { facts: 1, messages: 1, replies: 1 } })
    expect((await facts.ofUser('test', 'alice')).map((f) => f.content)).toEqual([
      'Alice叫小明。',
      'Alice是一名大学老师。',
      'Alice住在成都。',
      'Alice喜欢吃四川火锅。',
    ])
    expect(await index.texts('memories', [cilantro.id])).toEqual([])
    expect([...messages.rows.keys()]).toEqual(['test:c1:m9'])
    expect(erasedFromIndex).toEqual([['test:c1:m1', 'test:c1:b1']])
    expect(purged).toBe(1)
    // forgetting one fact leaves the knowledge alone
    expect(knowledgeErased).toEqual([])
  })

  it('forget --all asks the knowledge to erase what every message of the user supports', async () => {
    await eraser.forgetAll(owner)
    expect(knowledgeErased).toEqual([{ userId: 'alice', messageIds: ['test:c1:m1', 'test:c1:m9', 'test:c1:b1'] }])
  })

  it('never erases a message of someone else that a fact names as its source (an imported fact can name any id)', async () => {
    messages.add(row('x1', 'bob', 'Bob 的话', 3), row('bx', 'bot', '回 Bob', 4, { role: 'assistant', replyMessageId: 'x1' }))
    const [first] = await facts.ofUser('test', 'alice')
    await facts.insert({ ...first, id: 'planted', content: '别人的来源', sourceIds: ['test:c1:x1', 'test:c1:bx'] })
    const report = await eraser.forget(owner, ['planted'])
    expect(report.facts).toEqual(['planted'])
    expect(messages.rows.has('test:c1:x1')).toBe(true)
    expect(messages.rows.has('test:c1:bx')).toBe(true)
  })

  it("erases the bot's messages that repeat a forgotten fact word for word (a memory.list it printed)", async () => {
    const house = (await facts.ofUser('test', 'alice')).find((f) => f.content === 'Alice住在成都。')!
    messages.add(row('l1', 'bot', `你的记忆：\n[${house.id}] Alice住在成都。`, 5, { role: 'assistant', isCommand: true }))
    const report = await eraser.forget(owner, [house.id])
    expect(messages.rows.has('test:c1:l1')).toBe(false)
    expect(report.removed.replies).toBe(2)
  })

  it('finds the user by the id capture stored: a lone surrogate written out', async () => {
    const odd = { platform: 'test', userId: 'al\ud800ice' }
    const stored = { ...owner, userId: 'al\\ud800ice' }
    await memorize(deps, { owner: stored, turns: [{ role: 'user', name: 'Odd', content: '我住在西安' }], sourceIds: [] })
    expect(await facts.ofUser('test', stored.userId)).toHaveLength(1)
    const report = await eraser.forgetAll(odd)
    expect(report.facts).toHaveLength(1)
    expect(await facts.ofUser('test', stored.userId)).toEqual([])
  })
})
