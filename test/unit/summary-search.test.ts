import { describe, expect, it } from 'vitest'
import { fuse, keywordScore, queryTerms, searchSummaries } from '../../src/topic-summaries/search'
import { TopicSummaries } from '../../src/topic-summaries/summaries'
import type { TopicSummaryRow } from '../../src/topic-summaries/types'
import type { Scope } from '../../src/scope'
import { Counters } from '../../src/core/observability'
import { at } from '../fakes/clock'
import { FakeEmbedder } from '../fakes/embedder'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryMessages } from '../fakes/messages'
import { MemoryTopics } from '../fakes/topics'
import { MemorySummaries, summaryRow } from '../fakes/summaries'

const g1: Scope = { platform: 'qq', guildId: 'g1', channelId: 'g1' }
const g2: Scope = { platform: 'qq', guildId: 'g2', channelId: 'g2' }

/**
 * A: the keyword match (its keywords hold 猫粮) whose vector is far from the query;
 * B: the vector match (same direction as the query) sharing no word with it.
 */
const embedder = FakeEmbedder.rules([
  ['比较了几种', [0, 1, 0]],
  ['宠物', [1, 0, 0]],
  ['猫粮', [1, 0, 0]],
])

async function setup(rows: TopicSummaryRow[], index = new ExactIndex()) {
  const store = new MemorySummaries()
  for (const row of rows) await store.insert(row)
  const counters = new Counters()
  const summaries = new TopicSummaries({
    store,
    topics: new MemoryTopics(),
    messages: new MemoryMessages(),
    embedder,
    llm: () => undefined,
    vector: { index, outbox: new MemoryOutbox() },
    counters,
    logger: quiet,
  })
  for (const row of rows) {
    if ((await store.latest(row.topicId))?.id !== row.id) continue
    await summaries.index!.table.write([row])
  }
  return { store, index, counters, summaries }
}

const keywordOnly = summaryRow({
  topicId: 'a',
  title: '价格',
  summary: '大家比较了几种猫粮的价格。',
  keywords: { 猫粮: 1, 价格: 0.6 },
  lastMessageAt: at(10),
})
const vectorOnly = summaryRow({ topicId: 'b', title: '喂养', summary: '讨论给宠物吃什么。', keywords: { 喂养: 1 }, lastMessageAt: at(20) })

describe('hybrid summary search', () => {
  it('a keyword-only and a vector-only match swap places when the fusion weights change', async () => {
    const { summaries } = await setup([keywordOnly, vectorOnly])
    const byDefault = await summaries.searchSummaries('猫粮', g1)
    expect(byDefault.map((h) => h.row.topicId)).toEqual(['b', 'a'])
    expect(byDefault[0]).toMatchObject({ keywordScore: 0, vectorScore: 1, score: 0.6 })
    expect(byDefault[1]).toMatchObject({ keywordScore: 1, vectorScore: 0, matched: ['猫粮'] })
    expect(byDefault[1].score).toBeCloseTo(0.4)

    const keywordHeavy = await summaries.searchSummaries('猫粮', g1, { weights: { keyword: 0.7, vector: 0.3 } })
    expect(keywordHeavy.map((h) => h.row.topicId)).toEqual(['a', 'b'])
  })

  it('takes its default weights from the options', async () => {
    const index = new ExactIndex()
    const { store } = await setup([keywordOnly, vectorOnly], index)
    const custom = new TopicSummaries({
      store,
      topics: new MemoryTopics(),
      messages: new MemoryMessages(),
      embedder,
      llm: () => undefined,
      vector: { index, outbox: new MemoryOutbox() },
      counters: new Counters(),
      logger: quiet,
      options: { searchWeights: { keyword: 0.9, vector: 0.1 } },
    })
    expect((await custom.searchSummaries('猫粮', g1)).map((h) => h.row.topicId)).toEqual(['a', 'b'])
  })

  it('keyword and vector modes use one leg each', async () => {
    const { summaries } = await setup([keywordOnly, vectorOnly])
    expect((await summaries.searchSummaries('猫粮', g1, { mode: 'keyword' })).map((h) => h.row.topicId)).toEqual(['a'])
    expect((await summaries.searchSummaries('猫粮', g1, { mode: 'vector' })).map((h) => h.row.topicId)).toEqual(['b'])
  })

  it("never returns another channel's summaries, even from an index that ignores the scope", async () => {
    const other = summaryRow({
      topicId: 'x',
      platform: 'qq',
      guildId: 'g2',
      channelId: 'g2',
      title: '猫粮',
      summary: '猫粮猫粮，宠物',
      keywords: { 猫粮: 1 },
    })
    const leaky = new ExactIndex()
    leaky.nearest = async function (table, vector, _scope, limit) {
      return ExactIndex.prototype.nearest.call(this, table, vector, { platform: 'qq' }, limit)
    }
    const { summaries } = await setup([keywordOnly, vectorOnly, other], leaky)
    const hits = await summaries.searchSummaries('猫粮', g1, { limit: 10 })
    expect(hits.map((h) => h.row.channelId)).toEqual(['g1', 'g1'])
    expect((await summaries.searchSummaries('猫粮', g2, { limit: 10 })).map((h) => h.row.topicId)).toEqual(['x'])
    await expect(summaries.searchSummaries('猫粮', { platform: 'qq' })).rejects.toThrow(/platform and a channel/)
  })

  it('only the newest version of a topic is found', async () => {
    const old = summaryRow({ topicId: 'a', version: 1, summary: '旧版本说到猫粮', keywords: { 猫粮: 1 } })
    const newer = summaryRow({ topicId: 'a', version: 2, summary: '新版本说到猫粮和罐头', keywords: { 猫粮: 1, 罐头: 0.5 } })
    const { summaries } = await setup([old, newer])
    const hits = await summaries.searchSummaries('猫粮', g1, { limit: 10 })
    expect(hits.map((h) => h.row.id)).toEqual(['a#2'])
  })

  it('answers from keywords alone when the vector store is down', async () => {
    const index = new ExactIndex()
    const { summaries, counters } = await setup([keywordOnly, vectorOnly], index)
    index.down = true
    expect((await summaries.searchSummaries('猫粮', g1)).map((h) => h.row.topicId)).toEqual(['a'])
    expect(counters.get('summary.search_degraded')).toBe(1)
  })

  it('works without any vector index, and refuses negative weights', async () => {
    const store = new MemorySummaries()
    await store.insert(keywordOnly)
    const deps = { store, counters: new Counters(), logger: quiet }
    expect((await searchSummaries(deps, '猫粮', g1)).map((h) => h.row.topicId)).toEqual(['a'])
    await expect(searchSummaries(deps, '猫粮', g1, { weights: { keyword: -1, vector: 1 } })).rejects.toThrow(RangeError)
    expect(await searchSummaries(deps, '  ', g1)).toEqual([])
  })
})

describe('keyword scoring', () => {
  it('scores query words by keyword weight, text mentions by one half', () => {
    const row = { title: '周末', summary: '大家去香山看红叶', keywords: { 香山: 1, 红叶: 0.6 } }
    expect(keywordScore(row, ['香山'])).toEqual({ score: 1, matched: ['香山'] })
    expect(keywordScore(row, ['红叶', '相机']).score).toBe(0.3)
    expect(keywordScore({ ...row, keywords: {} }, ['香山']).score).toBe(0.5)
    expect(queryTerms('上次说的香山红叶怎么样了')).toEqual(expect.arrayContaining(['香山']))
    expect(queryTerms('the Friday release')).toEqual(expect.arrayContaining(['friday', 'release']))
  })

  it('fuse adds the weighted legs', () => {
    const a = summaryRow({ topicId: 'a' })
    const hits = fuse(new Map([['a#1', { row: a, score: 0.5, matched: [] }]]), new Map([['a#1', { row: a, score: 0.5 }]]), {
      keyword: 0.4,
      vector: 0.6,
    })
    expect(hits[0].score).toBeCloseTo(0.5)
  })
})
