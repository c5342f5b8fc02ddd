import { describe, expect, it } from 'vitest'
import { KeyedQueue } from '../../src/jobs/queue'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { InMemoryContextLogStore } from '../../src/short-term/context-log'
import { InMemoryEpisodeStore } from '../../src/short-term/episodic'
import { InMemoryMessageStore } from '../../src/short-term/in-memory-store'
import { InMemorySummaryStore } from '../../src/short-term/rolling-summary'
import { ShortTermMemory } from '../../src/short-term/short-term'
import type { MessageRow } from '../../src/store/tables'
import { Counters, ExactIndex, quiet } from './fakes'
import { channel, row, target } from './message-rows'

function setup() {
  const counters = new Counters()
  const store = new InMemoryMessageStore()
  const summaries = new InMemorySummaryStore()
  const episodes = new InMemoryEpisodeStore()
  const contextLog = new InMemoryContextLogStore()
  const index = new ExactIndex()
  const queue = new KeyedQueue({ limit: 100, concurrency: 2, counters, onError: () => {} })
  const shortTerm = new ShortTermMemory({
    index, embedder: new OfflineEmbedder(), store, summaries, episodes, contextLog, counters, logger: quiet,
    schedule: (key, job) => queue.push(key, job),
  }, { summary: { enabled: true, keepRecent: 4, minMessages: 3, refreshEvery: 2 } })
  const capture = (...rows: MessageRow[]) => {
    store.add(...rows)
    shortTerm.captured(rows)
  }
  return { shortTerm, store, summaries, episodes, contextLog, index, queue, capture }
}

describe('ShortTermMemory', () => {
  it('indexes captured messages, summarises, builds contexts and logs them', async () => {
    const { shortTerm, capture, queue, summaries, contextLog, index } = setup()
    await shortTerm.start()
    const lines = [
      'the garden needs new tomato plants this spring',
      'we should buy them at the market on saturday',
      'also compost for the raised beds',
      'who is driving to the market?',
      'I can drive, my car has room for the compost bags',
      'great, then we meet at nine',
      'do not forget the gloves',
      'and the watering can for the tomatoes',
    ]
    lines.forEach((content, i) => capture(row(`m${i}`, i % 2 ? 'bob' : 'ann', content, i)))
    await shortTerm.flush()
    await queue.idle()
    expect(index.rows.size).toBe(lines.length)
    expect((await summaries.get(channel))?.coveredCount).toBeGreaterThanOrEqual(3)

    const built = await shortTerm.buildContext(target('carol', 'who drives to the market with the compost?', 9))
    expect(built.fallback).toBe(false)
    expect(built.messages.map((m) => m.messageId)).toEqual(expect.arrayContaining(['m3', 'm4']))
    expect(built.summary).not.toBe('')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(contextLog.records).toHaveLength(1)
    expect((await shortTerm.metrics()).contexts).toBe(1)
  })

  it('records exchanges, recalls them into the prompt, and forgets them', async () => {
    const { shortTerm, capture, queue, episodes, contextLog } = setup()
    const question = row('q1', 'ann', 'how often should I water tomatoes?', 0)
    const answer = row('a1', 'bot', 'Deeply, about twice a week.', 1, { role: 'assistant', replyMessageId: 'q1' })
    capture(question, answer)
    const first = await shortTerm.buildContext(target('ann', 'how often should I water tomatoes?', 0, { messageId: 'q1' }))
    expect(first.messages).toEqual([])
    shortTerm.replied(question, answer)
    await queue.idle()
    expect(episodes.rows.size).toBe(1)
    expect(contextLog.records[0]?.reply).toBe('Deeply, about twice a week.')

    const later = target('ann', 'and my tomatoes in pots?', 60 * 24 * 3)
    const { messages, context } = await shortTerm.assemblePrompt(later, { system: 'You are a gardener.' })
    expect(messages[0]).toEqual({ role: 'system', content: 'You are a gardener.' })
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Ann: and my tomatoes in pots?' })
    const episodeBlock = messages.find((m) => m.content.startsWith('Earlier exchanges'))
    const inContext = context.messages.some((m) => m.messageId === 'q1')
    expect(Boolean(episodeBlock) || inContext).toBe(true)

    await shortTerm.forget([question.id])
    expect(episodes.rows.size).toBe(0)
  })

  it('binds its search tool to a channel', async () => {
    const { shortTerm, capture } = setup()
    capture(row('m1', 'ann', 'the wifi password is on the fridge', 0), row('x1', 'eve', 'the wifi password is secret', 0, { channelId: 'other' }))
    await shortTerm.flush()
    const tool = shortTerm.searchTool({ platform: 'test', channelId: 'c1' })
    const { result } = await tool.handler({ query: 'wifi password' })
    expect(result.excerpts.flat().map((m) => m.id)).toEqual(['test:c1:m1'])
    expect((await shortTerm.topicSearch('wifi', { platform: 'test', channelId: 'other' })).excerpts.flat().map((m) => m.id)).toEqual(['test:other:x1'])
  })
})
