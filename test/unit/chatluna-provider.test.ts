import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import type { ChatLunaAnswer, ChatLunaService } from '../../src/providers/chatluna'
import { ChatLunaEmbedder, ChatLunaLLM, chatlunaInstalled } from '../../src/providers/chatluna'
import { createProviders } from '../../src/providers/factory'
import { ProviderError } from '../../src/providers/types'
import { quiet } from '../fakes/logger'

/** A ChatLuna service with one platform whose models and answers a test sets. */
function fakeChatLuna(options: { models?: { name: string; type: number }[]; answer?: ChatLunaAnswer; vectors?: number[][] } = {}) {
  const models = options.models ?? [
    { name: 'demo/chat', type: 1 },
    { name: 'demo/embed', type: 2 },
  ]
  const calls: { messages: Record<string, unknown>[]; options?: Record<string, unknown> }[] = []
  const embedded: string[][] = []
  const service: ChatLunaService = {
    platform: { findModel: (name) => ({ value: models.find((model) => model.name === name) ?? null }) },
    awaitLoadPlatform: async () => {
      if (!models.length) throw new Error('Timeout waiting for platform demo to load')
    },
    createChatModel: async () => ({
      value: {
        async invoke(messages, callOptions) {
          calls.push({ messages, options: callOptions })
          return options.answer ?? { content: 'hello' }
        },
      },
    }),
    createEmbeddings: async () => ({
      value: {
        async embedDocuments(texts) {
          embedded.push(texts)
          return options.vectors ?? texts.map(() => [3, 4])
        },
      },
    }),
  }
  return { service, calls, embedded }
}

describe('ChatLunaLLM', () => {
  it('generates through the chat model ChatLuna makes for its full name', async () => {
    const { service, calls } = fakeChatLuna()
    const llm = new ChatLunaLLM(() => service, { model: 'demo/chat' })
    expect(llm.id).toBe('chatluna:demo/chat')
    expect(await llm.generate('hi', { system: 'be brief', temperature: 0.2 })).toBe('hello')
    expect(calls[0].messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ])
    expect(calls[0].options).toMatchObject({ temperature: 0.2 })
  })

  it('passes tools and earlier calls, and returns the calls the model makes', async () => {
    const { service, calls } = fakeChatLuna({
      answer: {
        content: [{ type: 'text', text: 'let me look' }],
        tool_calls: [{ id: 'c2', name: 'search_memories', args: { query: 'tea' } }],
      },
    })
    const llm = new ChatLunaLLM(() => service, { model: 'demo/chat' })
    const parameters = { type: 'object', properties: { query: { type: 'string' } }, additionalProperties: false }
    const reply = await llm.chat(
      [
        { role: 'user', content: 'what do I drink?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_user_profile', arguments: {} }] },
        { role: 'tool', toolCallId: 'c1', name: 'get_user_profile', content: 'No profile yet.' },
      ],
      { tools: [{ name: 'search_memories', description: 'search', parameters }] },
    )
    expect(reply).toEqual({ text: 'let me look', toolCalls: [{ id: 'c2', name: 'search_memories', arguments: { query: 'tea' } }] })
    expect(calls[0].messages[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', name: 'get_user_profile', args: {}, type: 'tool_call' }],
    })
    expect(calls[0].messages[2]).toEqual({ role: 'tool', content: 'No profile yet.', tool_call_id: 'c1', name: 'get_user_profile' })
    const tools = calls[0].options?.tools as { name: string; schema: unknown }[]
    expect(tools[0]).toMatchObject({ name: 'search_memories', schema: parameters })
    // a copy: an adapter that edits it leaves the memory's schema alone
    expect(tools[0].schema).not.toBe(parameters)
  })

  it('fails, to be tried again, while ChatLuna is not loaded', async () => {
    const llm = new ChatLunaLLM(() => undefined, { model: 'demo/chat', waitMs: 50 })
    const error = await llm.generate('hi').catch((e) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.retryable).toBe(true)
    expect(error.message).toMatch(/ChatLuna is not loaded/)
  })

  it('waits for ChatLuna to arrive', async () => {
    const { service } = fakeChatLuna()
    let loaded: ChatLunaService | undefined
    setTimeout(() => (loaded = service), 100)
    const llm = new ChatLunaLLM(() => loaded, { model: 'demo/chat', waitMs: 2000 })
    expect(await llm.generate('hi')).toBe('hello')
  })

  it('fails for good on a model the loaded platform does not list, or that is no chat model', async () => {
    const { service } = fakeChatLuna()
    for (const model of ['demo/missing', 'demo/embed']) {
      const error = await new ChatLunaLLM(() => service, { model, waitMs: 50 }).generate('hi').catch((e) => e)
      expect(error.retryable).toBe(false)
      expect(error.message).toMatch(/lists no chat model/)
    }
  })

  it('fails, to be tried again, while the platform has not loaded its models', async () => {
    const { service } = fakeChatLuna({ models: [] })
    const error = await new ChatLunaLLM(() => service, { model: 'demo/chat', waitMs: 50 }).generate('hi').catch((e) => e)
    expect(error.retryable).toBe(true)
    expect(error.message).toMatch(/has not loaded the platform demo/)
  })

  it('reports a failing model as a ProviderError', async () => {
    const { service } = fakeChatLuna()
    service.createChatModel = async () => ({
      value: {
        invoke: async () => {
          throw new Error('request timed out')
        },
      },
    })
    const error = await new ChatLunaLLM(() => service, { model: 'demo/chat' }).generate('hi').catch((e) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.retryable).toBe(true)
  })
})

describe('ChatLunaEmbedder', () => {
  it('embeds through ChatLuna and normalises the vectors', async () => {
    const { service, embedded } = fakeChatLuna()
    const embedder = new ChatLunaEmbedder(() => service, { model: 'demo/embed', dims: 2 })
    const [vector] = await embedder.embed(['tea'])
    expect(embedded).toEqual([['tea']])
    expect([...vector].map((x) => x.toFixed(2))).toEqual(['0.60', '0.80'])
  })

  it('says which dimensions to set when the model gives others', async () => {
    const { service } = fakeChatLuna({ vectors: [[1, 2, 3]] })
    const error = await new ChatLunaEmbedder(() => service, { model: 'demo/embed', dims: 2 }).embed(['tea']).catch((e) => e)
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/set the embedding dimensions to 3/)
  })
})

describe('createProviders with chatluna', () => {
  const settings = (chatlunaModel?: string) => ({
    embedding: {
      provider: 'chatluna' as const,
      model: '',
      apiKey: '',
      baseURL: '',
      dims: 8,
      sendDimensions: false,
      timeout: 1000,
      chatlunaModel: chatlunaModel && 'demo/embed',
    },
    llm: { provider: 'chatluna' as const, model: '', apiKey: '', baseURL: '', temperature: 0, timeout: 1000, chatlunaModel },
    retryIntervalSeconds: 1,
  })

  it('uses ChatLuna’s models when ChatLuna is installed and a model is chosen', async () => {
    const { service } = fakeChatLuna()
    const providers = createProviders(undefined, settings('demo/chat'), new Counters(), quiet, {
      installed: true,
      source: () => service,
    })
    expect(providers.choices).toEqual({
      embedder: { configured: 'chatluna', used: 'chatluna' },
      llm: { configured: 'chatluna', used: 'chatluna' },
    })
    expect(await providers.llm!.generate('hi')).toBe('hello')
    // the breaker keeps the model's function calling
    expect((await providers.llm!.chat!([{ role: 'user', content: 'hi' }])).text).toBe('hello')
    expect(providers.embedder.id).toBe('chatluna:demo/embed')
  })

  it('falls back to offline, saying why, without ChatLuna or without a model', () => {
    const absent = createProviders(undefined, settings('demo/chat'), new Counters(), quiet, {
      installed: false,
      source: () => undefined,
    })
    expect(absent.choices.llm).toEqual({ configured: 'chatluna', used: 'rules', fallback: 'no-chatluna' })
    expect(absent.choices.embedder).toEqual({ configured: 'chatluna', used: 'offline', fallback: 'no-chatluna' })
    expect(absent.llm).toBeUndefined()

    const unchosen = createProviders(undefined, settings(undefined), new Counters(), quiet, { installed: true, source: () => undefined })
    expect(unchosen.choices.llm.fallback).toBe('no-model')
    expect(unchosen.choices.embedder.fallback).toBe('no-model')

    const noAccess = createProviders(undefined, settings('demo/chat'), new Counters(), quiet)
    expect(noAccess.choices.llm.fallback).toBe('no-chatluna')
  })

  it('finds the installed package', () => {
    expect(chatlunaInstalled()).toBe(true)
    expect(
      chatlunaInstalled(() => {
        throw new Error('Cannot find module')
      }),
    ).toBe(false)
  })
})
