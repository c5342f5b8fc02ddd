import { describe, expect, it } from 'vitest'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { EpisodicMemory, episodeScope, episodeText, EPISODES_TABLE } from '../../src/episodes/episodic'
import { InMemoryEpisodeStore } from '../fakes/episodes'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { row } from '../fakes/message-rows'

function setup() {
  const store = new InMemoryEpisodeStore()
  const index = new ExactIndex()
  const embedder = FakeEmbedder.wrap(new OfflineEmbedder())
  const counters = new Counters()
  const outbox = new MemoryOutbox()
  const episodic = new EpisodicMemory({ store, index, embedder, counters, logger: quiet, outbox })
  return { store, index, embedder, counters, episodic, outbox }
}

const topics = [
  'how do I water tomatoes in summer',
  'what is a good name for a cat',
  'recommend a sci-fi book like Dune',
  'how long should I boil an egg',
  'which tomato varieties grow in pots',
  'is it too late to plant garlic',
  'tell me a joke about programmers',
  'how to fix a flat bike tire',
]

describe('EpisodicMemory', () => {
  it('stores each exchange in the database and indexes it for the user', async () => {
    const { episodic, store, index } = setup()
    expect(episodic.table).toBe(EPISODES_TABLE)
    const user = row('u1', 'ann', 'how do I water tomatoes', 0)
    const episode = await episodic.record(user, { content: 'Deeply, twice a week.' })
    expect(episode).toMatchObject({ id: user.id, userId: 'ann', userText: 'how do I water tomatoes', botText: 'Deeply, twice a week.' })
    expect(store.rows.size).toBe(1)
    expect(index.rows.get(user.id)).toMatchObject({ text: episodeText(episode!), user_id: 'ann', guild_id: 'g1' })
    await episodic.record(user, { content: 'In the morning.' })
    expect((await store.get([user.id]))[0].botText).toBe('Deeply, twice a week.\nIn the morning.')
    expect(await episodic.record(row('u2', 'ann', '   ', 1), { content: 'x' })).toBeUndefined()
    expect(await episodic.record(row('u3', 'ann', '/memory.list', 2, { isCommand: true }), { content: '1. …' })).toBeUndefined()
  })

  it('recalls the 3 most recent and the 3 most similar exchanges, each once, oldest first', async () => {
    const { episodic } = setup()
    for (let i = 0; i < topics.length; i++) await episodic.record(row(`u${i}`, 'ann', topics[i], i * 60), { content: `answer ${i}` })
    const recalled = await episodic.recall(
      episodeScope({ platform: 'test', userId: 'ann', guildId: 'g1', channelId: 'c1' }),
      'my tomatoes in pots need water',
    )
    const texts = recalled.map((e) => e.userText)
    // recent: the last three; similar: the tomato ones (and one more), none twice
    expect(texts.slice(-3)).toEqual(topics.slice(-3))
    expect(texts).toEqual(expect.arrayContaining([topics[0], topics[4]]))
    expect(new Set(texts).size).toBe(texts.length)
    expect(recalled.length).toBe(6)
    expect(recalled.map((e) => e.createdAt.getTime())).toEqual([...recalled.map((e) => e.createdAt.getTime())].sort((a, b) => a - b))
    expect(recalled.find((e) => e.userText === topics[0])?.reason).toBe('similar')
    expect(['recent', 'both']).toContain(recalled.find((e) => e.userText === topics[7])?.reason)
  })

  it('marks an exchange that is both recent and similar, and fills the similar slots with others', async () => {
    const { episodic } = setup()
    for (let i = 0; i < topics.length; i++) await episodic.record(row(`u${i}`, 'ann', topics[i], i * 60), { content: `answer ${i}` })
    const recalled = await episodic.recall({ platform: 'test', userId: 'ann', guildId: 'g1' }, 'fix my bike tire', {
      recent: 3,
      similar: 3,
    })
    expect(recalled.find((e) => e.userText === topics[7])?.reason).toBe('both')
    expect(recalled.filter((e) => e.reason === 'similar')).toHaveLength(3)
  })

  it("never recalls another user's exchanges", async () => {
    const { episodic } = setup()
    await episodic.record(row('u1', 'ann', 'my secret tomato recipe', 0), { content: 'noted' })
    await episodic.record(row('u2', 'bob', 'tomato recipe please', 1), { content: 'here' })
    const recalled = await episodic.recall({ platform: 'test', userId: 'bob', guildId: 'g1' }, 'tomato recipe')
    expect(recalled.map((e) => e.userId)).toEqual(['bob'])
  })

  it('keeps the database row when indexing fails, and recalls recent ones when search fails', async () => {
    const { episodic, store, embedder, counters } = setup()
    embedder.down = true
    await episodic.record(row('u1', 'ann', 'hello there', 0), { content: 'hi' })
    expect(store.rows.size).toBe(1)
    expect(counters.get('episodes.index-failed')).toBe(1)
    const recalled = await episodic.recall({ platform: 'test', userId: 'ann', guildId: 'g1' }, 'hello')
    expect(recalled.map((e) => e.reason)).toEqual(['recent'])
    expect(counters.get('episodes.recall-failed')).toBe(1)
    embedder.down = false
    expect(await episodic.index([...store.rows.values()])).toBe(1)
  })

  it('scopes a private chat to its channel and removes episodes', async () => {
    expect(episodeScope({ platform: 'p', userId: 'u', guildId: '', channelId: 'private:u' })).toEqual({
      platform: 'p',
      userId: 'u',
      guildId: '',
      channelId: 'private:u',
    })
    const { episodic, store, index } = setup()
    const user = row('u1', 'ann', 'hello there', 0)
    await episodic.record(user, { content: 'hi' })
    await episodic.remove([user.id])
    expect(store.rows.size).toBe(0)
    expect(index.rows.size).toBe(0)
  })
})
