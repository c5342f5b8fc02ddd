import { describe, expect, it } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { InMemoryMessageStore } from '../fakes/message-store'
import { MessageIndex } from '../../src/messages/message-index'
import type { TopicTitles } from '../../src/context/search-tool'
import { quickSearch, topicSearch, topicSearchTool } from '../../src/context/search-tool'
import { Counters } from '../../src/core/observability'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { channel, row, T0 } from '../fakes/message-rows'

async function setup() {
  const rows = [
    row('m1', 'ann', 'where should we go hiking this weekend', 0),
    row('m2', 'bob', 'the lake trail, it is about ten kilometres', 1),
    row('m3', 'ann', 'sounds good, I will bring sandwiches', 2),
    row('m4', 'carol', 'unrelated: the printer is broken again', 3),
    row('x1', 'eve', 'hiking is my favourite weekend thing', 4, { channelId: 'other' }),
  ]
  const store = new InMemoryMessageStore()
  store.add(...rows)
  const index = new MessageIndex({
    index: new ExactIndex(),
    embedder: new OfflineEmbedder(),
    counters: new Counters(),
    logger: quiet,
    rows: store,
    outbox: new MemoryOutbox(),
  })
  await index.index(rows)
  const topics: TopicTitles = {
    list: async () => [
      { id: 't1', title: 'Weekend hiking plans', updatedAt: new Date(T0) },
      { id: 't2', title: 'Broken printer', updatedAt: new Date(T0) },
    ],
  }
  return { deps: { search: quickSearch(index), store, topics } }
}

describe('search', () => {
  it('quickSearch finds messages of one channel', async () => {
    const { deps } = await setup()
    const hits = await deps.search(channel, 'hiking weekend', { limit: 5 })
    expect(hits.map((hit) => hit.id)).not.toContain('test:other:x1')
    expect(hits[0].id).toBe('test:c1:m1')
  })

  it('topicSearch returns matching topics and excerpts with the turns around each hit', async () => {
    const { deps } = await setup()
    const result = await topicSearch(deps, 'hiking weekend', { platform: 'test', channelId: 'c1' }, { limit: 1, around: 1 })
    expect(result.topics.map((topic) => topic.id)).toEqual(['t1'])
    expect(result.excerpts).toHaveLength(1)
    expect(result.excerpts[0].map((m) => m.id)).toEqual(['test:c1:m1', 'test:c1:m2'])
    expect(result.excerpts[0].map((m) => m.hit)).toEqual([true, false])
    await expect(topicSearch(deps, 'x', { userId: 'ann' })).rejects.toThrow(TypeError)
  })

  it('is an LLM tool whose scope is bound by the caller, not the model', async () => {
    const { deps } = await setup()
    const tool = topicSearchTool(deps, { platform: 'test', guildId: 'g1', channelId: 'c1' })
    expect(tool.name).toMatch(/^[a-z_]+$/)
    expect(tool.description.length).toBeGreaterThan(20)
    expect(tool.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
      additionalProperties: false,
    })
    const answer = await tool.handler({ query: 'hiking', limit: 2, channelId: 'other' } as never)
    expect(answer.result.excerpts.flat().every((m) => m.id.startsWith('test:c1:'))).toBe(true)
    expect(answer.text).toContain('Topics: Weekend hiking plans')
    expect(answer.text).toContain('Bob: the lake trail')
    expect((await tool.handler({ query: '' })).text).toBe('No earlier messages match.')
  })

  it('returns what it still can when the index is down', async () => {
    const { deps } = await setup()
    const broken = {
      ...deps,
      search: async () => {
        throw new Error('down')
      },
    }
    const result = await topicSearch(broken, 'hiking', { platform: 'test', channelId: 'c1' })
    expect(result.excerpts).toEqual([])
    expect(result.topics).toHaveLength(1)
  })
})
