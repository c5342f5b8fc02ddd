import type { Session } from 'koishi'
import { describe, expect, it } from 'vitest'
import { addDocumentSet, memoryBlocks, presetPlacesMemory, toDocuments } from '../../src/chat/chatluna/prompt'
import { runTool, toolDescriptions } from '../../src/chat/chatluna/tools'

const session = (userId: string, guildId = '') =>
  ({ platform: 'qq', userId, guildId, channelId: guildId || `private:${userId}` }) as unknown as Session

/** A memory whose tools say whom they were made for. */
function fakeMemory() {
  const asked: string[] = []
  return {
    asked,
    memory: {
      replyTools: (s: Session) => {
        const tool = (name: string, answer: (s: Session) => string) => ({
          name,
          description: 'd',
          parameters: {},
          handler: async () => {
            asked.push(`${s.userId}@${s.guildId || 'private'}`)
            return { text: answer(s) }
          },
        })
        return [
          tool('search_memories', (who) => (who.userId === 'alice' ? '- alice likes tea' : 'Nothing is remembered about that.')),
          tool('search_chat_history', (who) => `chat of ${who.channelId}`),
          tool('search_entities', (who) => `entities of ${who.guildId || who.userId}`),
          tool('get_user_profile', (who) => `profile of ${who.userId}`),
          tool('query_knowledge_graph', () => 'graph'),
        ]
      },
    } as any,
  }
}

describe('the ChatLuna bridge’s tools', () => {
  it('describes every tool once', () => {
    const { memory } = fakeMemory()
    expect(toolDescriptions(memory).map((tool) => tool.name)).toEqual([
      'search_memories',
      'search_chat_history',
      'search_entities',
      'get_user_profile',
      'query_knowledge_graph',
    ])
  })

  it('runs each call in the scope of the session that made it', async () => {
    const { memory, asked } = fakeMemory()
    expect(await runTool(memory, 'search_memories', { query: 'tea' }, session('alice'))).toBe('- alice likes tea')
    expect(await runTool(memory, 'search_memories', { query: 'tea' }, session('bob', 'g1'))).toBe('Nothing is remembered about that.')
    expect(await runTool(memory, 'search_chat_history', { query: 'x' }, session('bob', 'g1'))).toBe('chat of g1')
    expect(asked).toEqual(['alice@private', 'bob@g1', 'bob@g1'])
    expect(await runTool(memory, 'get_user_profile', {}, session('carol', 'g2'))).toBe('profile of carol')
  })

  it('searches nothing without a chat, and answers an unknown name', async () => {
    const { memory, asked } = fakeMemory()
    expect(await runTool(memory, 'search_memories', { query: 'tea' }, undefined)).toMatch(/only works inside a chat/)
    expect(await runTool(memory, 'nope', {}, session('alice'))).toBe('Unknown tool nope.')
    expect(asked).toEqual([])
  })

  it('gives a failed search back as text', async () => {
    const { memory } = fakeMemory()
    memory.replyTools = () => [
      {
        name: 'search_memories',
        handler: async () => {
          throw new Error('index down')
        },
      },
    ]
    expect(await runTool(memory, 'search_memories', { query: 'tea' }, session('alice'))).toBe('The search failed: index down')
  })
})

describe('the ChatLuna bridge’s prompt', () => {
  it('keeps the memory blocks and leaves the current message to ChatLuna', async () => {
    const memory = {
      assemblePrompt: async () => [
        { role: 'system' as const, content: 'Long-term memories about the user:\n- alice likes tea' },
        { role: 'system' as const, content: 'Relevant chat messages:\nbob: hi' },
        { role: 'user' as const, content: 'alice: what do I like?' },
      ],
    }
    const blocks = await memoryBlocks(memory as any, session('alice'))
    expect(blocks).toEqual(['Long-term memories about the user:\n- alice likes tea', 'Relevant chat messages:\nbob: hi'])
    expect(toDocuments(blocks)[0]).toEqual({ pageContent: blocks[0], metadata: { source: 'memory' }, id: 'memory-1' })
  })

  it('adds its documents as one more set, keeping what other plugins put there', () => {
    const ours = toDocuments(['x'])
    const empty: Record<string, unknown> = {}
    addDocumentSet(empty, ours)
    expect(empty.documents).toEqual([ours])

    const other = [{ pageContent: 'theirs', metadata: {} }]
    const flat: Record<string, unknown> = { documents: other }
    addDocumentSet(flat, ours)
    expect(flat.documents).toEqual([other, ours])

    const sets: Record<string, unknown> = { documents: [other] }
    addDocumentSet(sets, ours)
    expect(sets.documents).toEqual([other, ours])
  })

  it('sees a preset that places {memory} itself', () => {
    expect(presetPlacesMemory('You are a cat.\n{memory}')).toBe(true)
    expect(presetPlacesMemory('You are a cat.')).toBe(false)
    expect(presetPlacesMemory(undefined)).toBe(false)
  })
})
