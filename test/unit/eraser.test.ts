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
  async repliesTo(): Promise<ErasedMessage[]> {
    return []
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
    messages.add(row('m1', 'alice', said, 0), row('b1', 'bot', '好的，记住了', 1, { role: 'assistant' }), row('m9', 'alice', '今天好冷', 2))
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
      fence: { mark: () => {} },
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
    expect(await eraser.forget(owner, [cilantro.id])).toEqual([cilantro.id])
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
    expect(knowledgeErased).toEqual([{ userId: 'alice', messageIds: ['test:c1:m1', 'test:c1:m9'] }])
  })
})
