import type { App } from 'koishi'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import type { Dialogue, Turn } from '../../src/facts'
import type { HotTopic, KnowledgeScope } from '../../src/knowledge'
import {
  defineKnowledgeTables,
  entityIndexKind,
  Knowledge,
  KnowledgeExtractor,
  KnowledgeLearner,
  KoishiKnowledgeStore,
  ProfileBook,
} from '../../src/knowledge'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import type { Embedder, LLM } from '../../src/providers/types'
import { IndexedTable } from '../../src/store/index-sync'
import { FakeEmbedder, unit } from '../fakes/embedder'
import { ExactIndex } from '../fakes/exact-index'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { sqliteApp } from '../fakes/sqlite-app'

const group: KnowledgeScope = { platform: 'qq', guildId: 'g1', userId: '' }
const otherGroup: KnowledgeScope = { platform: 'qq', guildId: 'g2', userId: '' }
const alicePrivate: KnowledgeScope = { platform: 'qq', guildId: '', userId: 'alice' }

describe('knowledge learnt from dialogues', () => {
  let app: App
  let store: KoishiKnowledgeStore
  let index: ExactIndex
  let knowledge: Knowledge
  let clock: number
  let facts: Record<string, string[]>
  let n: number

  const build = (llm?: LLM, semantic?: { embedder: Embedder; mergeSimilarity?: number }) => {
    const counters = new Counters()
    const entityIndex = new IndexedTable(
      { index, embedder: semantic?.embedder ?? new OfflineEmbedder({ dims: 64 }), outbox: new MemoryOutbox(), counters, logger: quiet },
      entityIndexKind(store),
    )
    const now = () => new Date(clock)
    const profiles = new ProfileBook({
      store,
      factsOf: async (ref) => facts[ref.userId] ?? [],
      llm,
      threshold: 3,
      counters,
      logger: quiet,
      now,
    })
    const learner = new KnowledgeLearner({
      store,
      entityIndex,
      extractor: new KnowledgeExtractor(quiet),
      profiles,
      counters,
      logger: quiet,
      newId: () => `k${++n}`,
      now,
      mergeSimilarity: semantic?.mergeSimilarity,
    })
    knowledge = new Knowledge({ store, index: entityIndex, learner, profiles, logger: quiet })
  }

  /** One user's lines in a guild ('' for private), each its own message. */
  const dialogue = (guildId: string, userId: string, name: string, ...lines: string[]): Dialogue => {
    clock += 60_000
    const turns: Turn[] = lines.map((content) => ({ role: 'user', name, content, userId, time: new Date(clock) }))
    return {
      owner: { platform: 'qq', guildId, channelId: guildId || `private:${userId}`, userId: guildId ? '' : userId },
      turns,
      sourceIds: lines.map(() => `qq:m${++n}`),
    }
  }

  beforeEach(async () => {
    app = await sqliteApp()
    defineKnowledgeTables(app)
    store = new KoishiKnowledgeStore(app)
    index = new ExactIndex()
    clock = Date.UTC(2026, 0, 1)
    facts = {}
    n = 0
    build()
  })

  afterEach(() => app.stop())

  it('merges a second mention by name or alias into the same entity', async () => {
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', "I'm Alice Wong. I live in Paris"))
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'Paris is lovely, Alice Wong told me about it'))
    const rows = await store.entitiesOf(group)
    expect(rows.filter((row) => row.name === 'Paris')).toHaveLength(1)
    expect(rows.find((row) => row.name === 'Paris')).toMatchObject({ mentions: 2, type: 'LOCATION' })
    // "Alice Wong" is Alice's alias: Bob's mention lands on her entity
    const alice = rows.filter((row) => row.name === 'Alice Wong' || row.aliases.includes('Alice Wong'))
    expect(alice).toHaveLength(1)
    expect(alice[0].mentions).toBe(2)
    expect(alice[0].sourceIds).toHaveLength(2)
    expect(index.rows.size).toBe(rows.length)
  })

  /** An embedder that knows NYC is New York City and the Big Apple is near Apple: one axis per meaning. */
  const meanings = new FakeEmbedder({
    id: 'fake-semantic',
    dims: 4,
    vector: (text) =>
      unit(
        [0, 1, 2, 3].map((axis) =>
          Number(axis === (/NYC|New York City/.test(text) ? 0 : /Apple/.test(text) ? 1 : /Paris/.test(text) ? 2 : 3)),
        ),
      ),
  })

  it('with a semantic embedder, merges a new name into the nearest entity of the same type', async () => {
    build(undefined, { embedder: meanings, mergeSimilarity: 0.9 })
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I live in New York City'))
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'I moved to NYC'))
    const rows = await store.entitiesOf(group)
    const city = rows.filter((row) => row.name === 'New York City' || row.name === 'NYC')
    expect(city).toHaveLength(1)
    expect(city[0]).toMatchObject({ name: 'New York City', aliases: ['NYC'], mentions: 2, type: 'LOCATION' })
    // Bob's relation lands on the merged entity
    const bob = rows.find((row) => row.name === 'Bob')!
    const relations = await store.relationsTouching(group, [bob.id])
    expect(relations.map((row) => row.objectId)).toEqual([city[0].id])
    // near but of another type (an organisation, a place): two entities
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I work at Apple'))
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'I live in Big Apple'))
    const apples = (await store.entitiesOf(group)).filter((row) => /Apple/.test(row.name))
    expect(apples.map((row) => [row.name, row.type]).sort()).toEqual([
      ['Apple', 'ORGANIZATION'],
      ['Big Apple', 'LOCATION'],
    ])
    // and another group's New York City is not this group's
    await knowledge.learner.learn(dialogue('g2', 'carol', 'Carol', 'I moved to NYC'))
    expect((await store.entitiesOf(otherGroup)).map((row) => row.name)).toContain('NYC')
  })

  it('without a merge similarity (the offline embedder), names and aliases alone merge', async () => {
    build(undefined, { embedder: meanings })
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I live in New York City'))
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'I moved to NYC'))
    const names = (await store.entitiesOf(group)).map((row) => row.name)
    expect(names).toEqual(expect.arrayContaining(['New York City', 'NYC']))
  })

  it('promotes hot topics’ summaries into the group’s knowledge, each topic once, a bounded number per run', async () => {
    const hot = (topicId: string, guildId: string, summary: string): HotTopic => ({
      topicId,
      platform: 'qq',
      guildId,
      summaryId: `${topicId}#1`,
      summary,
      at: new Date(clock),
      sourceIds: async () => [`qq:${topicId}:1`, `qq:${topicId}:2`],
    })
    const topics = [
      hot('t1', 'g1', '大家聊了小明的婚礼。小明是小红的哥哥，婚礼在成都办。'),
      hot('t2', 'g1', "Everyone planned the trip: Carol is Dave's sister, and they fly to Tokyo."),
      hot('t3', '', '私聊里的话题不在群知识里：王五是赵六的同事'),
    ]
    expect(await knowledge.promoteTopics(topics, 1)).toBe(1)
    const first = await store.entitiesOf(group)
    expect(first.map((row) => row.name)).toEqual(expect.arrayContaining(['小明', '小红', '成都']))
    expect(first.find((row) => row.name === '小明')!.sourceIds).toEqual(['qq:t1:1', 'qq:t1:2'])
    const ming = await knowledge.entity(group, '小明')
    expect(
      ming!.relations.map((row) => [ming!.others.get(row.subjectId)!.name, row.predicate, ming!.others.get(row.objectId)!.name]),
    ).toEqual([['小红', '哥哥', '小明']])
    // no profile comes of a summary: no one in particular said it
    expect(await store.pendingProfiles(10)).toEqual([])
    // the next run takes the next topic; the private one is never promoted; a third run has nothing left
    expect(await knowledge.promoteTopics(topics, 1)).toBe(1)
    expect((await store.entitiesOf(group)).map((row) => row.name)).toEqual(expect.arrayContaining(['Carol', 'Dave', 'Tokyo']))
    expect(await knowledge.promoteTopics(topics, 5)).toBe(0)
    expect(await store.entitiesOf(alicePrivate)).toEqual([])
    expect(first.find((row) => row.name === '小明')!.mentions).toBe(1)
    expect((await store.entitiesOf(group)).find((row) => row.name === '小明')!.mentions).toBe(1)
  })

  it('closes the older relation of a single-valued predicate and keeps its history', async () => {
    await knowledge.learner.learn(dialogue('', 'alice', '小爱', '我住在成都'))
    await knowledge.learner.learn(dialogue('', 'alice', '小爱', '我搬到上海了'))
    const details = await knowledge.entity(alicePrivate, '小爱')
    const lines = details!.relations.map((row) => [details!.others.get(row.objectId)!.name, row.predicate, row.validTo !== null])
    expect(lines).toEqual([
      ['上海', '住在', false],
      ['成都', '住在', true],
    ])
    const now = await knowledge.queryGraph(alicePrivate, '小爱')
    expect(now.edges).toHaveLength(1)
    const history = await knowledge.queryGraph(alicePrivate, '小爱', { history: true })
    expect(history.edges).toHaveLength(2)
  })

  it('keeps knowledge in its scope: another group and the private chat see none of it', async () => {
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I live in Paris. I love jazz'))
    expect((await knowledge.searchEntities(group, 'Paris')).map((hit) => hit.entity.name)).toContain('Paris')
    expect(await knowledge.searchEntities(otherGroup, 'Paris')).toEqual([])
    expect(await knowledge.searchEntities(alicePrivate, 'Paris')).toEqual([])
    expect((await knowledge.queryGraph(otherGroup, 'Alice')).root).toBeUndefined()
    expect(await knowledge.getUserProfile({ platform: 'qq', guildId: 'g1', userId: 'alice' })).toBeTruthy()
    expect(await knowledge.getUserProfile({ platform: 'qq', guildId: 'g2', userId: 'alice' })).toBeUndefined()
    expect(await knowledge.getUserProfile({ platform: 'qq', guildId: '', userId: 'alice' })).toBeUndefined()
  })

  it('bounds the graph in depth, nodes and time', async () => {
    // a chain: 小一 → 小二 → … → 小九, each the friend of the next
    const names = ['王一', '王二', '王三', '王四', '王五', '王六', '王七', '王八', '王九']
    for (let i = 0; i + 1 < names.length; i++)
      await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', `${names[i + 1]}是${names[i]}的朋友`))
    const two = await knowledge.queryGraph(group, '王一', { maxDepth: 2 })
    expect(two.nodes.map((node) => node.entity.name).sort()).toEqual(['王一', '王三', '王二'])
    expect(two.edges).toHaveLength(2)
    const capped = await knowledge.queryGraph(group, '王一', { maxDepth: 10, maxNodes: 4 })
    expect(capped.nodes).toHaveLength(4)
    expect(capped.truncated).toBe(true)
    const deep = await knowledge.queryGraph(group, '王一', { maxDepth: 10 })
    expect(deep.nodes).toHaveLength(9)
    expect(deep.truncated).toBe(false)
    const late = await knowledge.queryGraph(group, '王一', { maxDepth: 10, timeMs: 0 })
    expect(late.truncated).toBe(true)
    expect(late.nodes.length).toBeLessThan(9)
  })

  it('builds a profile from the user’s own words; a contradicting preference closes the older one', async () => {
    facts.alice = ['Alice is a nurse.']
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I love olives. I am very shy'))
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'Alice loves opera, I think'))
    await knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I hate olives now'))
    const profile = await knowledge.getUserProfile({ platform: 'qq', guildId: 'g1', userId: 'alice' })
    const current = profile!.preferences.filter((one) => one.validTo === null).map((one) => `${one.key}:${one.value}`)
    expect(current).toEqual(['dislikes:olives'])
    expect(profile!.preferences.find((one) => one.key === 'likes')!.validTo).not.toBeNull()
    expect(profile!.traits.map((trait) => trait.name)).toEqual(['shy'])
    // offline, the text is rebuilt at each change
    expect(profile!.profileText).toBe('Dislikes: olives. Traits: shy. Known: Alice is a nurse.')
    expect(profile!.profileText).not.toContain('opera')
  })

  it('with a model, consolidates due profiles in one call each and leaves the others', async () => {
    const prompts: string[] = []
    build({
      id: 'scripted',
      async generate(prompt) {
        prompts.push(prompt)
        return '{"profile": "爱吃火锅的成都人。"}'
      },
    })
    await knowledge.learner.learn(dialogue('', 'alice', '小爱', '我喜欢吃火锅，我住在成都'))
    await knowledge.learner.learn(dialogue('', 'bob', '小波', '我喜欢跑步'))
    await knowledge.profiles.noteFacts({ platform: 'qq', guildId: '', userId: 'alice' }, '小爱', 2)
    // learning asked the model nothing; the offline text stands in meanwhile
    expect(prompts).toEqual([])
    expect(await knowledge.profiles.consolidateDue()).toBe(1)
    expect(prompts).toHaveLength(1)
    expect(prompts[0]).toContain('火锅')
    expect((await knowledge.getUserProfile({ platform: 'qq', guildId: '', userId: 'alice' }))!.profileText).toBe('爱吃火锅的成都人。')
    // a day later the other profile is due too
    clock += 86_400_000
    expect(await knowledge.profiles.consolidateDue()).toBe(1)
    expect(prompts).toHaveLength(2)
  })

  it('forget removes the profile and what only the user’s messages support, and keeps what others also said', async () => {
    const said = dialogue('g1', 'alice', 'Alice', 'I live in Paris. I love jazz')
    await knowledge.learner.learn(said)
    await knowledge.learner.learn(dialogue('g1', 'bob', 'Bob', 'I love Paris in spring'))
    const result = await knowledge.forgetUser({ platform: 'qq', userId: 'alice' }, said.sourceIds)
    expect(result.profiles).toBe(1)
    const rows = await store.entitiesOf(group)
    // Alice's entity went with her; Paris, which Bob also named, stays
    expect(rows.map((row) => row.name)).toEqual(['Paris'])
    expect(rows.find((row) => row.name === 'Paris')!.sourceIds).not.toContain(said.sourceIds[0])
    expect(
      await store.relationsTouching(
        group,
        rows.map((row) => row.id),
      ),
    ).toEqual([])
    expect([...index.rows.values()].map((row) => row.text).join(' ')).not.toContain('Alice')
    expect(await knowledge.getUserProfile({ platform: 'qq', guildId: 'g1', userId: 'alice' })).toBeUndefined()
  })

  it('never throws into the memorize chain', async () => {
    await app.stop()
    await expect(knowledge.learner.learn(dialogue('g1', 'alice', 'Alice', 'I live in Paris'))).resolves.toBeUndefined()
    app = await sqliteApp()
  })
})
