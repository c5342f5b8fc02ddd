import { describe, expect, it } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import type { MessageRow } from '../../src/messages/table'
import { countTokens, renderLine } from '../../src/text/token-count'
import type { ContextBuilderDeps } from '../../src/context/builder-config'
import { ContextBuilder } from '../../src/context/context-builder'
import { namesIn } from '../../src/context/candidate-scoring'
import { InMemoryMessageStore } from '../fakes/message-store'
import { RelevanceScorer } from '../../src/context/scorer'
import { MessageIndex } from '../../src/messages/message-index'
import { quickSearch } from '../../src/context/search-tool'
import { TermStats } from '../../src/context/term-stats'
import type { BuiltContext } from '../../src/context/types'
import type { MessageStore } from '../../src/messages/store'
import { Counters } from '../../src/core/observability'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { channel, row, T0, target } from '../fakes/message-rows'

async function setup(
  rows: MessageRow[],
  deps: Partial<ContextBuilderDeps> = {},
  config: ConstructorParameters<typeof ContextBuilder>[1] = {},
) {
  const store = new InMemoryMessageStore()
  store.add(...rows)
  const counters = new Counters()
  const embedder = new OfflineEmbedder()
  const index = new ExactIndex()
  const messages = new MessageIndex({ index, embedder, counters, logger: quiet, rows: store, outbox: new MemoryOutbox() })
  await messages.index(rows)
  const termStats = new TermStats()
  for (const r of rows) termStats.add(r, r.content)
  const builder = new ContextBuilder(
    { store, search: quickSearch(messages), embedder, termStats, counters, logger: quiet, ...deps },
    config,
  )
  return { store, builder, counters, index }
}

/** What the context costs when rendered: every section line plus a line break each. */
function renderedTokens(built: BuiltContext) {
  let total = built.summary ? countTokens(built.summary) + 1 : 0
  for (const memory of built.longTerm) total += countTokens(`- ${memory.content}`) + 1
  for (const memory of built.group ?? []) total += countTokens(`- ${memory.statement}`) + 1
  for (const message of built.messages) total += countTokens(renderLine(message.userName, message.content)) + 1
  return total
}

const ids = (built: BuiltContext) => built.messages.map((message) => message.messageId)

describe('ContextBuilder candidates', () => {
  it('follows the reply chain and explains the choice', async () => {
    const rows = [
      row('m1', 'ann', 'Who has the key to the server room?', 0),
      row('m2', 'bob', 'Carol has it, ask her', 1, { replyMessageId: 'm1' }),
      row('m3', 'dan', 'lunch anyone? pizza place downstairs', 2),
      row('m4', 'carol', 'I left it at the front desk', 3, { replyMessageId: 'm2', rootMessageId: 'm1' }),
    ]
    const { builder } = await setup(rows)
    const built = await builder.build(target('ann', 'thanks, where exactly at the desk?', 30, { messageId: 'm5', replyMessageId: 'm4' }))
    expect(built.fallback).toBe(false)
    expect(ids(built)).toEqual(['m1', 'm2', 'm4'])
    const m4 = built.messages.find((m) => m.messageId === 'm4')!
    expect(m4.sources).toContain('reply-chain')
    expect(m4.signals.replyChain).toBe(1)
    expect(built.messages.find((m) => m.messageId === 'm2')!.signals.replyChain).toBeCloseTo(0.9)
    // oldest first
    expect(built.messages.map((m) => m.createdAt.getTime())).toEqual([...built.messages.map((m) => m.createdAt.getTime())].sort())
  })

  it('brings in the thread the reply chain started from', async () => {
    const rows = [
      row('r', 'ann', 'Release 2.0 planning thread', 0),
      row('t1', 'bob', 'I can take the changelog', 1, { replyMessageId: 'r' }),
      row('t2', 'carol', 'docs are on me', 2, { replyMessageId: 'r' }),
      row('x', 'dan', 'anyone seen my umbrella', 3),
    ]
    const { builder } = await setup(rows, {}, { timeWindowHours: 0 })
    const built = await builder.build(target('eve', 'what is left to do?', 10, { messageId: 'q', replyMessageId: 't2' }))
    expect(ids(built)).toEqual(['r', 't1', 't2'])
    expect(built.messages[1].sources).toContain('thread-root')
  })

  it('uses the topic the attribution set and not the other topic of an interleaved chat', async () => {
    const rows = [
      row('a1', 'ann', 'the deploy pipeline failed on the migration step', 0, { topicId: 'deploy' }),
      row('b1', 'bob', 'who wants to play football on saturday', 1, { topicId: 'football' }),
      row('a2', 'carol', 'migration 42 locks the users table', 2, { topicId: 'deploy' }),
      row('b2', 'dan', 'count me in for saturday, I bring the ball', 3, { topicId: 'football' }),
      row('a3', 'ann', 'we could run it with a lock timeout', 4, { topicId: 'deploy' }),
      row('b3', 'bob', 'kick-off at ten then', 5, { topicId: 'football' }),
      row('q', 'carol', 'so do we retry the pipeline now?', 6, { topicId: 'deploy' }),
    ]
    const { builder } = await setup(rows)
    const built = await builder.build(target('carol', 'so do we retry the pipeline now?', 6, { messageId: 'q' }))
    expect(ids(built)).toEqual(expect.arrayContaining(['a1', 'a2', 'a3']))
    expect(ids(built)).not.toContain('q')
    expect(ids(built).filter((id) => id.startsWith('b'))).toEqual([])
    expect(built.messages.find((m) => m.messageId === 'a3')!.sources).toContain('topic')
  })

  it('separates interleaved topics by content when no topic is set yet', async () => {
    const rows = [
      row('a1', 'ann', 'the deploy pipeline failed on the database migration', 0),
      row('b1', 'bob', 'who wants to play football on saturday morning', 1),
      row('a2', 'carol', 'the migration locks the users table during deploy', 2),
      row('b2', 'dan', 'count me in for football, I bring the ball', 3),
    ]
    const { builder } = await setup(rows)
    const built = await builder.build(target('eve', 'did the database migration in the deploy get fixed?', 5))
    expect(ids(built)).toEqual(['a1', 'a2'])
  })

  it('works on Chinese: segmented keywords, not spaces', async () => {
    const rows = [
      row('a1', 'ming', '周末去吃全聚德的烤鸭吧', 0),
      row('b1', 'hong', '下周的数学考试复习了吗', 1),
      row('a2', 'gang', '烤鸭要提前订位，我来打电话', 2),
      row('b2', 'li', '考试范围是第三章到第五章', 3),
    ]
    const { builder } = await setup(rows, {}, { timeWindowHours: 0 })
    // "订好位子" and "订位" are segmented differently; characters and bigrams still meet
    const built = await builder.build(target('hong', '烤鸭店订好位子了吗？', 60 * 24 * 7))
    expect(ids(built)).toEqual(['a2'])
    expect(built.messages[0].signals.keywordOverlap).toBeGreaterThan(0.2)
  })

  it('finds old messages by meaning and the turns around them', async () => {
    const rows: MessageRow[] = [
      row('o1', 'ann', 'what are you reading these days?', 0),
      row('o2', 'bob', 'Dune, the first book, for the third time', 1),
      row('o3', 'ann', 'nice', 2),
    ]
    // two days of unrelated chatter in between
    for (let i = 0; i < 60; i++)
      rows.push(row(`n${i}`, i % 2 ? 'ann' : 'bob', `status update ${i}: tickets triaged and standup notes posted`, 2880 + i))
    const { builder } = await setup(rows, {}, { tokenBudget: 400 })
    const built = await builder.build(target('carol', 'what were you reading?', 2950))
    expect(ids(built)).toEqual(expect.arrayContaining(['o1', 'o2']))
    const answer = built.messages.find((m) => m.messageId === 'o2')!
    expect(answer.sources).toContain('semantic')
    expect(answer.signals.adjacent).toBeGreaterThan(0)
  })

  it('keeps the link to a neighbouring turn the attribution put in another topic', async () => {
    const dialogue = (answerTopic: string) => [
      row('o1', 'ann', 'anything good on your nightstand lately?', 0, { topicId: 't1' }),
      row('o2', 'bob', 'Dune, the first book, for the third time', 1, { topicId: answerTopic }),
    ]
    const adjacency = async (answerTopic: string) => {
      // no time window: the recent window's messages inherit nothing from their neighbours
      const { builder } = await setup(dialogue(answerTopic), { scorer: new RelevanceScorer({ threshold: 0 }) }, { timeWindowHours: 0 })
      const built = await builder.build(target('carol', 'who has read Dune three times?', 5))
      return built.messages.find((m) => m.messageId === 'o1')!.signals.adjacent ?? 0
    }
    const same = await adjacency('t1')
    const other = await adjacency('t2')
    expect(same).toBeGreaterThan(0)
    expect(other).toBeCloseTo(same)
  })

  it('reads a message written again with other words anew', async () => {
    const { builder, store } = await setup([row('m1', 'ann', 'the staging cache is cold again', 0)], {
      scorer: new RelevanceScorer({ threshold: 0 }),
    })
    const ask = target('bob', 'who booked the pizza place for friday?', 5)
    const overlap = async () => (await builder.build(ask)).messages.find((m) => m.messageId === 'm1')?.signals.keywordOverlap ?? 0
    expect(await overlap()).toBe(0)
    store.add(row('m1', 'ann', 'I booked the pizza place for friday', 0))
    expect(await overlap()).toBeGreaterThan(0.5)
  })

  it('counts a bot command between two turns as a turn, and never shows it', async () => {
    const dialogue = (command: boolean) => [
      row('o1', 'ann', 'anything good on your nightstand lately?', 0),
      ...(command ? [row('c1', 'ann', 'memory.stats', 1, { isCommand: true })] : []),
      row('o2', 'bob', 'Dune, the first book, for the third time', 2),
      row('o3', 'ann', 'wow, third time!', 3),
    ]
    const adjacency = async (command: boolean) => {
      const { builder } = await setup(dialogue(command), { scorer: new RelevanceScorer({ threshold: 0 }) }, { timeWindowHours: 0 })
      const built = await builder.build(target('carol', 'who has read Dune three times?', 5))
      expect(ids(built)).not.toContain('c1')
      const adjacent = (id: string) => built.messages.find((m) => m.messageId === id)!.signals.adjacent ?? 0
      return { before: adjacent('o1'), after: adjacent('o3') }
    }
    const plain = await adjacency(false)
    const interrupted = await adjacency(true)
    expect(plain.before).toBeGreaterThan(0)
    expect(interrupted.before).toBeCloseTo(plain.before * 0.7)
    expect(interrupted.after).toBeCloseTo(plain.after)
  })

  it('lets recency count less when the target asks about something said earlier', async () => {
    const rows = [
      row('m1', 'ann', 'the staging database password rotates every friday', 0),
      row('m2', 'bob', 'ok noted, rotates on friday', 1),
      // two days later, so only these are in the recent window
      row('m3', 'carol', 'who wants pizza for lunch today?', 3000),
      row('m4', 'dan', 'me! pepperoni please', 3001),
    ]
    const ask = target('eve', 'when does the staging database password rotate?', 3002)
    const lunch = target('eve', 'pizza for lunch sounds good, which place?', 3002)
    const recency = (built: BuiltContext) => built.messages.find((m) => m.messageId === 'm4')?.signals.timeDecay
    // every candidate shown, so the recency signal of the unrelated recent line can be read
    const { builder: plain } = await setup(rows, { scorer: new RelevanceScorer({ threshold: 0 }) }, { recencyFloor: 1 })
    const { builder } = await setup(rows, { scorer: new RelevanceScorer({ threshold: 0 }) })
    const raw = recency(await plain.build(ask))!
    expect(raw).toBeGreaterThan(0.9)
    const gated = recency(await builder.build(ask))!
    expect(gated).toBeLessThan(raw)
    expect(gated).toBeGreaterThanOrEqual(raw * builder.config.recencyFloor - 1e-9)
    // a target that carries on the recent talk keeps its recency
    expect(recency(await builder.build(lunch))).toBeCloseTo(recency(await plain.build(lunch))!)
  })

  it('treats a participant named in the text as mentioned', async () => {
    expect(namesIn('What did Caroline research?', ['Caroline', 'Melanie'])).toEqual(['caroline'])
    expect(namesIn('小明昨天去哪了', ['小明', '小红'])).toEqual(['小明'])
    const rows = [
      row('m1', 'carol', 'I researched adoption agencies all week', 0),
      row('m2', 'mel', 'I researched camping spots all week', 1),
    ]
    const { builder } = await setup(rows)
    const built = await builder.build(target('eve', 'What did Carol research all week?', 3))
    const [first] = [...built.messages].sort((a, b) => b.score - a.score)
    expect(first.messageId).toBe('m1')
    expect(first.signals.mentionRelation).toBe(1)
  })
})

describe('ContextBuilder names', () => {
  it('does not let the name of someone talked about outweigh what is asked about them', async () => {
    const rows = [
      row('m1', 'ann', 'Maria says hi', 0),
      row('m2', 'bob', 'Maria is my colleague', 1),
      row('m3', 'ann', 'She keeps most of her savings in treasury bonds from the bank', 2),
      row('m4', 'bob', 'the weather is nice today', 3),
      row('m5', 'ann', 'we should grab lunch on friday', 4),
    ]
    const { builder } = await setup(rows, { scorer: new RelevanceScorer({ threshold: 0 }) })
    const built = await builder.build(target('eve', 'Which bonds does Maria hold?', 600))
    const [first] = [...built.messages].sort((a, b) => b.score - a.score)
    expect(first.messageId).toBe('m3')
  })
})

describe('ContextBuilder budget and sections', () => {
  it('never exceeds the token budget, whatever the budget', async () => {
    const rows: MessageRow[] = []
    const words = ['deploy', 'cache', 'redis', '数据库', '迁移', 'football', 'lunch', '烤鸭', 'timeout', 'review']
    for (let i = 0; i < 120; i++) {
      const text = Array.from({ length: 3 + ((i * 7) % 25) }, (_, j) => words[(i * 3 + j * 5) % words.length]).join(i % 3 ? ' ' : '')
      rows.push(row(`m${i}`, ['ann', 'bob', 'carol'][i % 3], text, i * 3, { replyMessageId: i % 5 === 0 && i ? `m${i - 1}` : '' }))
    }
    const summary = 'Ann and Bob argued about the cache. '.repeat(20)
    const longTerm = [
      {
        id: 'f1',
        content: 'Ann prefers PostgreSQL',
        score: 0.8,
        relevance: 0.8,
        createdAt: new Date(T0),
        scope: { platform: 'test', userId: 'ann', guildId: 'g1', channelId: 'c1' },
      },
    ]
    const group = Array.from({ length: 8 }, (_, i) => ({
      id: `g${i}`,
      statement: `The group agreed on rule ${i}: reviews before merges`,
      score: 0.5,
    }))
    const { builder } = await setup(rows, { summary: async () => summary, longTerm: async () => longTerm, group: async () => group })
    for (const budget of [0, 1, 7, 30, 120, 500, 1000, 2000]) {
      const built = await builder.build(
        target('ann', 'what about the redis cache timeout and 数据库迁移?', 400, { replyMessageId: 'm100' }),
        { tokenBudget: budget },
      )
      expect(built.tokens).toBeLessThanOrEqual(budget)
      expect(renderedTokens(built)).toBe(built.tokens)
      expect(built.fallback).toBe(false)
      if (budget >= 1000) expect(built.group?.length).toBeGreaterThan(0)
    }
  })

  it('gives long-term memories and the summary at most their share', async () => {
    const rows = [row('m1', 'ann', 'the cache is cold after deploys', 0)]
    const memories = Array.from({ length: 5 }, (_, i) => ({
      id: `f${i}`,
      content: `Ann fact number ${i} about caches and deploys`,
      score: 0.9,
      relevance: 0.9,
      createdAt: new Date(T0),
      scope: { platform: 'test', userId: 'ann', guildId: 'g1', channelId: 'c1' },
    }))
    const { builder } = await setup(
      rows,
      {
        summary: async () => 'The team talked about caches. They agreed to warm them after deploys. Bob will write the script.',
        longTerm: async () => memories,
      },
      { longTermShare: 0.2, summaryShare: 0.2 },
    )
    const built = await builder.build(target('ann', 'is the cache warm now?', 5), { tokenBudget: 100 })
    const longTermTokens = built.longTerm.reduce((sum, m) => sum + countTokens(`- ${m.content}`) + 1, 0)
    expect(longTermTokens).toBeLessThanOrEqual(20)
    expect(built.longTerm.length).toBeGreaterThan(0)
    expect(countTokens(built.summary) + 1).toBeLessThanOrEqual(20)
    // only the sentences that bear on the target: warming, not who writes the script
    expect(built.summary).toContain('They agreed to warm them after deploys.')
    expect(built.summary).not.toContain('Bob will write the script.')
    expect(ids(built)).toEqual(['m1'])
    // a target without keywords gets the summary as it is (within its share), one it does not touch none
    const plain = await builder.build(target('ann', 'ok', 5), { tokenBudget: 100 })
    expect(plain.summary.startsWith('The team talked about caches.')).toBe(true)
    expect(countTokens(plain.summary) + 1).toBeLessThanOrEqual(20)
    expect((await builder.build(target('ann', 'lunch at noon?', 5), { tokenBudget: 100 })).summary).toBe('')
    expect((await builder.build(target('ann', 'who writes the script?', 5), { tokenBudget: 100 })).summary).toBe(
      'Bob will write the script.',
    )
    const bare = await builder.build(target('ann', 'is the cache warm now?', 5), { tokenBudget: 100, longTerm: false, summary: false })
    expect(bare).toMatchObject({ longTerm: [], summary: '' })
  })

  it('asks for group memories only in a group chat, within their share', async () => {
    let asked = 0
    const group = async () => {
      asked++
      return [{ id: 'g1', statement: 'This group deploys on Fridays', score: 0.6 }]
    }
    const { builder } = await setup([row('m1', 'ann', 'deploy today?', 0)], { group })
    const inGroup = await builder.build(target('ann', 'when do we deploy?', 5), { tokenBudget: 200 })
    expect(inGroup.group).toEqual([{ id: 'g1', statement: 'This group deploys on Fridays', score: 0.6 }])
    const direct = await builder.build(target('ann', 'when do we deploy?', 5, { guildId: '' }), { tokenBudget: 200 })
    expect(direct.group).toBeUndefined()
    const without = await builder.build(target('ann', 'when do we deploy?', 5), { tokenBudget: 200, group: false })
    expect(without.group).toBeUndefined()
    expect(asked).toBe(1)
  })

  it('merges duplicates: one message from several sources, the same words said twice', async () => {
    const rows = [
      row('m1', 'ann', 'is the build green?', 0),
      row('m2', 'bob', 'yes, the build is green', 1, { replyMessageId: 'm1' }),
      row('m3', 'bob', 'yes, the build is green', 2),
    ]
    const { builder } = await setup(rows)
    const built = await builder.build(target('ann', 'great, is the build green on main too?', 3, { replyMessageId: 'm2' }))
    expect(ids(built)).toEqual(['m1', 'm2'])
    expect(built.messages[1].sources).toEqual(expect.arrayContaining(['reply-chain', 'time-window', 'semantic']))
  })

  it('counts the plain window it replaces', async () => {
    const rows = [row('m1', 'ann', 'one two three', 0), row('m2', 'bob', 'four five six', 1)]
    const { builder } = await setup(rows)
    const built = await builder.build(target('ann', 'seven', 2))
    expect(built.windowTokens).toBe(rows.reduce((sum, r) => sum + countTokens(renderLine(r.userName, r.content)) + 1, 0))
  })

  it('leaves out what is below the threshold', async () => {
    const rows = [row('m1', 'bob', 'unrelated chatter about lunch', 0)]
    const { builder } = await setup(rows)
    const built = await builder.build(target('ann', 'deploy status?', 60 * 48))
    expect(built.messages).toEqual([])
  })
})

describe('ContextBuilder degradation', () => {
  const rows = [row('m1', 'ann', 'first', 0), row('m2', 'bob', 'second', 1), row('m3', 'ann', 'third', 2)]

  it('falls back to the recent window that fits when the build times out, and counts it', async () => {
    const store = new InMemoryMessageStore()
    store.add(...rows)
    const slow: MessageStore = Object.assign(Object.create(store), { byIds: () => new Promise<never>(() => {}) })
    const counters = new Counters()
    const builder = new ContextBuilder(
      {
        store: slow,
        search: async () => [
          { id: 'test:c1:m1', text: 'first', similarity: 1, relevance: 1, createdAt: new Date(T0), userId: 'ann', channelId: 'c1' },
        ],
        counters,
        logger: quiet,
      },
      { timeoutMs: 50 },
    )
    const started = Date.now()
    const budget = countTokens('Bob: second') + 1 + countTokens('Ann: third') + 1
    const built = await builder.build(target('bob', 'hello', 3), { tokenBudget: budget })
    expect(Date.now() - started).toBeLessThan(2000)
    expect(built.fallback).toBe(true)
    expect(ids(built)).toEqual(['m2', 'm3'])
    expect(built.tokens).toBeLessThanOrEqual(budget)
    expect(counters.get('context.fallback')).toBe(1)
  })

  it('falls back on an error and returns an empty context when even the window fails', async () => {
    const counters = new Counters()
    const broken: MessageStore = {
      window: async () => {
        throw new Error('db down')
      },
      byMessageIds: async () => {
        throw new Error('db down')
      },
      around: async () => {
        throw new Error('db down')
      },
      byIds: async () => {
        throw new Error('db down')
      },
      byTopic: async () => {
        throw new Error('db down')
      },
      byRoot: async () => {
        throw new Error('db down')
      },
      setTopic: async () => {},
    }
    const builder = new ContextBuilder({ store: broken, counters, logger: quiet })
    const built = await builder.build(target('ann', 'anything', 5, { replyMessageId: 'm1' }))
    expect(built).toMatchObject({ fallback: true, messages: [], tokens: 0 })
    expect(counters.get('context.fallback')).toBe(1)
    expect(counters.get('context.fallback-empty')).toBe(1)
  })

  it('goes on without the search, the embedder, the summary or long-term memories when they fail', async () => {
    const { builder, index, counters } = await setup(rows, {
      summary: async () => {
        throw new Error('no')
      },
      longTerm: async () => {
        throw new Error('no')
      },
      embedder: {
        id: 'broken',
        dims: 512,
        embed: async () => {
          throw new Error('no')
        },
      },
    })
    index.down = true
    const built = await builder.build(target('ann', 'third time', 3))
    expect(built.fallback).toBe(false)
    expect(ids(built)).toContain('m3')
    expect(counters.get('context.embed-failed')).toBeGreaterThan(0)
  })

  it('takes the similarities the search can tell at once, and embeds only the candidates it cannot', async () => {
    const offline = new OfflineEmbedder()
    const embedded: string[] = []
    const asked: string[] = []
    const { builder } = await setup(rows, {
      search: async () => [],
      similarities: (_, __, ids) => {
        asked.push(...ids)
        return ids.map((id) => (id.endsWith(':m1') ? 0.9 : undefined))
      },
      embedder: {
        id: offline.id,
        dims: offline.dims,
        embed: async (texts) => {
          embedded.push(...texts)
          return offline.embed(texts)
        },
      },
    })
    const built = await builder.build(target('ann', 'third time', 3))
    expect(asked).toEqual(expect.arrayContaining(['test:c1:m1', 'test:c1:m2']))
    const m1 = rows.find((r) => r.messageId === 'm1')!
    const m2 = rows.find((r) => r.messageId === 'm2')!
    expect(embedded).not.toContain(m1.content)
    expect(embedded).toContain(m2.content)
    // the most similar candidate by the given similarity carries the full embedding part of the signal
    expect(built.messages.find((m) => m.messageId === 'm1')?.signals.semantic).toBeGreaterThan(0)
  })

  it('reports every build to the log and survives a throwing log', async () => {
    const seen: BuiltContext[] = []
    const { builder } = await setup(rows, {
      onBuilt: (_, built) => {
        seen.push(built)
        throw new Error('log broke')
      },
    })
    const built = await builder.build(target('ann', 'third', 3))
    expect(seen).toEqual([built])
  })

  it('leaves bot commands out of the context', async () => {
    const { builder } = await setup([...rows, row('c', 'ann', '/memory.stats third', 2.5, { isCommand: true })])
    const built = await builder.build(target('ann', 'third', 3))
    expect(ids(built)).not.toContain('c')
  })

  it('never sends the target itself or messages after it', async () => {
    const later = [...rows, row('m4', 'bob', 'from the future', 10)]
    const { builder } = await setup(later)
    const built = await builder.build(target('ann', 'third', 2, { messageId: 'm3' }))
    expect(ids(built)).not.toContain('m3')
    expect(ids(built)).not.toContain('m4')
    expect(channel.channelId).toBe('c1')
  })
})
