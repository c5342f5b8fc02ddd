import { describe, expect, it } from 'vitest'
import { formatForPrompt, Retriever } from '../../src/facts/retrieve'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { ExactIndex } from '../fakes/exact-index'

async function setup() {
  const embedder = FakeEmbedder.wrap(new OfflineEmbedder({ dims: 256 }))
  const index = new ExactIndex()
  const warnings: string[] = []
  const infos: string[] = []
  const logger = { debug() {}, info: (m: string) => infos.push(m), warn: (m: string) => warnings.push(m), error() {} }
  const texts = { a1: ['alice', '小明喜欢吃四川火锅。'], a2: ['alice', '小明下周三去上海出差。'], b1: ['bob', '小红喜欢吃火锅。'] }
  for (const [id, [user, text]] of Object.entries(texts)) {
    const [vector] = await embedder.embed([text])
    await index.upsert('m', [{ id, text, vector, platform: 'qq', user_id: user, guild_id: 'g', channel_id: 'c', created_at: 5 }])
  }
  const retriever = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger })
  return { retriever, embedder, index, warnings, infos }
}

describe('Retriever', () => {
  it("ranks the scope's memories and maps them", async () => {
    const { retriever } = await setup()
    const found = await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0.05)
    expect(found[0]).toMatchObject({ id: 'a1', content: '小明喜欢吃四川火锅。', scope: { userId: 'alice', guildId: 'g' } })
    expect(found.every((m) => m.scope.userId === 'alice')).toBe(true)
    expect(found[0].createdAt.getTime()).toBe(5)
  })

  it('ranks the candidates by how rare the shared words are among them (offline embedder: BM25 alone)', async () => {
    const embedder = new OfflineEmbedder({ dims: 256 })
    const index = new ExactIndex()
    const texts = ['小明今天很开心，小明玩得很开心。', '小明学会了变魔术。', '小明吃了冰淇淋，很开心。']
    for (const [i, text] of texts.entries()) {
      const [vector] = await embedder.embed([text])
      await index.upsert('m', [{ id: `f${i}`, text, vector, platform: 'qq', user_id: 'u', guild_id: '', channel_id: 'c', created_at: i }])
    }
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const query = '小明说：我好开心，我要给大家表演魔术！'
    const plain = await index.search('m', { vector: (await embedder.embed([query]))[0], text: query, scope: { userId: 'u' }, limit: 3 })
    expect(plain[0].id).not.toBe('f1')
    const found = await new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger }).retrieve(
      { userId: 'u' },
      query,
      3,
      0,
    )
    expect(found[0].id).toBe('f1')
    expect(found[0].relevance).toBe(1)
  })

  it('returns current facts by default, and closed ones with their validity on request', async () => {
    const { embedder, index } = await setup()
    const may = new Date(2026, 4, 1)
    const june = new Date(2026, 5, 1)
    const rows = new Map([
      ['a1', { id: 'a1', content: '小明喜欢吃四川火锅。', createdAt: may, validFrom: may, validTo: june }],
      ['a2', { id: 'a2', content: '小明下周三去上海出差。', createdAt: june, validFrom: null, validTo: null }],
    ])
    const facts = { get: async (ids: string[]) => ids.flatMap((id) => rows.get(id) ?? []) }
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const retriever = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger, facts: facts as never })
    const scope = { platform: 'qq', userId: 'alice' }
    expect((await retriever.retrieve(scope, '火锅 上海', 5, 0)).map((m) => [m.id, m.validFrom, m.validTo])).toEqual([['a2', june, null]])
    const history = await retriever.retrieve(scope, '火锅 上海', 5, 0, { history: true })
    expect(history.map((m) => [m.id, m.validFrom, m.validTo]).sort()).toEqual([
      ['a1', may, june],
      ['a2', june, null],
    ])
  })

  it('lets a hit on a closed fact stand for the current fact that closed it, through several closings', async () => {
    const { embedder, index } = await setup()
    const t = (month: number) => new Date(2026, month, 1)
    const rows = new Map([
      ['a1', { id: 'a1', content: '小明喜欢吃四川火锅。', createdAt: t(1), validTo: t(2), supersededBy: 'x1', channelId: 'c' }],
      ['x1', { id: 'x1', content: '小明不再吃辣了。', createdAt: t(2), validTo: t(3), supersededBy: 'x2', channelId: 'c' }],
      ['x2', { id: 'x2', content: '小明改吃清汤锅了。', createdAt: t(3), validTo: null, supersededBy: '', channelId: 'c2' }],
    ])
    const facts = { get: async (ids: string[]) => ids.flatMap((id) => rows.get(id) ?? []) }
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const retriever = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger, facts: facts as never })
    const found = await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0)
    expect(found.map((m) => [m.id, m.content, m.scope.channelId])).toEqual([['x2', '小明改吃清汤锅了。', 'c2']])
    const history = await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0, { history: true })
    expect(history.map((m) => m.id)).toEqual(['a1', 'x2'])
  })

  it("never lets a closed fact stand for another person's fact it names as its successor (an imported link)", async () => {
    const { embedder, index } = await setup()
    const t = (month: number) => new Date(2026, month, 1)
    const alice = { platform: 'qq', userId: 'alice', guildId: 'g' }
    const rows = new Map([
      ['a1', { ...alice, id: 'a1', content: '小明喜欢吃四川火锅。', createdAt: t(1), validTo: t(2), supersededBy: 'b1', channelId: 'c' }],
      [
        'b1',
        {
          ...alice,
          userId: 'bob',
          id: 'b1',
          content: '小红喜欢吃火锅。',
          createdAt: t(2),
          validTo: null,
          supersededBy: '',
          channelId: 'c',
        },
      ],
    ])
    const facts = { get: async (ids: string[]) => ids.flatMap((id) => rows.get(id) ?? []) }
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const retriever = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger, facts: facts as never })
    expect(await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0)).toEqual([])
  })

  it("checks hits against the database: a fact gone from it is dropped, and the text is the database's", async () => {
    const { embedder, index } = await setup()
    const rows = new Map([['a1', '小明喜欢吃四川火锅，尤其是牛油锅底。']])
    const facts = { get: async (ids: string[]) => ids.filter((id) => rows.has(id)).map((id) => ({ id, content: rows.get(id)! })) }
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const retriever = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger, facts: facts as never })
    const found = await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '火锅 上海', 5, 0)
    expect(found.map((m) => [m.id, m.content])).toEqual([['a1', '小明喜欢吃四川火锅，尤其是牛油锅底。']])
  })

  it('with a share of similarity, drops memories under the minimum score', async () => {
    const { embedder, index } = await setup()
    const logger = { debug() {}, info() {}, warn() {}, error() {} }
    const blended = new Retriever({ embedder, index, table: 'm', counters: new Counters(), logger, lexicalShare: 0.3 })
    expect(await blended.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0.99)).toEqual([])
    expect((await blended.retrieve({ platform: 'qq', userId: 'alice' }, '火锅', 5, 0.05)).map((m) => m.id)).toContain('a1')
  })

  it('ranked by words alone, keeps what shares a word however little of the query that is, and drops what shares none', async () => {
    const { retriever } = await setup()
    const found = await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '我上次跟你说过我喜欢吃的那个东西是什么来着', 5, 0.99)
    expect(found.map((m) => m.id)).toEqual(['a1'])
    expect(await retriever.retrieve({ platform: 'qq', userId: 'alice' }, '天气怎么样', 5, 0)).toEqual([])
  })

  it('returns [] on failure and logs once per outage', async () => {
    const { retriever, embedder, index, warnings, infos } = await setup()
    embedder.down = true
    expect(await retriever.retrieve({ userId: 'alice' }, '火锅', 5, 0)).toEqual([])
    expect(await retriever.retrieve({ userId: 'alice' }, '火锅', 5, 0)).toEqual([])
    embedder.down = false
    index.down = true
    expect(await retriever.retrieve({ userId: 'alice' }, '火锅', 5, 0)).toEqual([])
    expect(warnings).toHaveLength(1)
    index.down = false
    expect((await retriever.retrieve({ userId: 'alice' }, '火锅', 5, 0)).length).toBeGreaterThan(0)
    expect(infos).toHaveLength(1)
  })

  it('formats memories for a system prompt', () => {
    expect(formatForPrompt([])).toBe('')
    expect(formatForPrompt([{ content: 'A' }, { content: 'B' }], '记忆：')).toBe('记忆：\n- A\n- B')
  })
})
