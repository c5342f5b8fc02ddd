import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HTTP } from '@koishijs/plugin-http'
import { Context } from 'koishi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GeminiGenerateResponse, GeminiModelsPort } from '../../src/providers/gemini'
import { GeminiEmbedder, GeminiLLM } from '../../src/providers/gemini'
import { GeminiRestModels } from '../../src/providers/gemini-rest'
import { Counters } from '../../src/core/observability'
import { createProviders } from '../../src/providers/factory'
import { quiet } from '../fakes/logger'
import { ProviderError } from '../../src/providers/types'

type Outcome<T> = T | Error

/** Koishi's own HTTP error, shaped as `ctx.http` throws it for a non-2xx answer. */
function httpError(status: number, data: unknown) {
  const error = new HTTP.Error(`request failed with status ${status}`)
  error.response = { url: 'x', status, statusText: '', data, headers: new Headers() }
  return error
}

/** A stand-in for `ai.models` that plays back scripted outcomes and records each request. */
class ScriptedModels implements GeminiModelsPort {
  generateCalls: any[] = []
  embedCalls: any[] = []
  constructor(
    private generateScript: Outcome<GeminiGenerateResponse>[] = [],
    private embedScript: Outcome<{ embeddings?: { values?: number[] }[] }>[] = [],
  ) {}
  async generateContent(params: any) {
    this.generateCalls.push(params)
    const next = this.generateScript.shift() ?? new Error('script exhausted')
    if (next instanceof Error) throw next
    return next
  }
  async embedContent(params: any) {
    this.embedCalls.push(params)
    const next = this.embedScript.shift() ?? new Error('script exhausted')
    if (next instanceof Error) throw next
    return next
  }
}

const KEY = 'AIzaSy-test-key-0123456789'

describe('GeminiLLM.chat', () => {
  it('sends system turns as the instruction, tools as function declarations, tool results as function responses', async () => {
    const models = new ScriptedModels([
      { functionCalls: [{ id: 'f1', name: 'search_chat_history', args: { query: '蛋糕' } }] },
      { text: '草莓味' },
    ])
    const llm = new GeminiLLM({ apiKey: KEY, model: 'm' }, models)
    const tools = [{ name: 'search_chat_history', description: 'd', parameters: { type: 'object' } }]
    const first = await llm.chat(
      [
        { role: 'system', content: 'persona' },
        { role: 'system', content: 'memories' },
        { role: 'user', content: '蛋糕什么味？' },
      ],
      { tools },
    )
    expect(first.toolCalls).toEqual([{ id: 'f1', name: 'search_chat_history', arguments: { query: '蛋糕' } }])
    expect(models.generateCalls[0].config.systemInstruction).toBe('persona\n\nmemories')
    expect(models.generateCalls[0].config.tools).toEqual([
      { functionDeclarations: [{ name: 'search_chat_history', description: 'd', parametersJsonSchema: { type: 'object' } }] },
    ])
    const second = await llm.chat([
      { role: 'user', content: '蛋糕什么味？' },
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'f1', name: 'search_chat_history', content: 'alice: 草莓蛋糕' },
    ])
    expect(second).toEqual({ text: '草莓味', toolCalls: [] })
    expect(models.generateCalls[1].contents).toEqual([
      { role: 'user', parts: [{ text: '蛋糕什么味？' }] },
      { role: 'model', parts: [{ functionCall: { id: 'f1', name: 'search_chat_history', args: { query: '蛋糕' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'f1', name: 'search_chat_history', response: { output: 'alice: 草莓蛋糕' } } }] },
    ])
  })
})

describe('GeminiLLM', () => {
  it('sends JSON mode, schema, temperature and system instruction, and returns the text', async () => {
    const models = new ScriptedModels([{ text: '{"should_remember": true}' }])
    const llm = new GeminiLLM({ apiKey: KEY, model: 'gemini-2.5-flash', thinkingBudget: 0 }, models)
    expect(llm.id).toBe('gemini:gemini-2.5-flash')
    const schema = { type: 'object', properties: { should_remember: { type: 'boolean' } } }
    await expect(llm.generate('Decide.', { json: true, schema, temperature: 0, system: 'Be brief.' })).resolves.toBe(
      '{"should_remember": true}',
    )
    expect(models.generateCalls[0]).toEqual({
      model: 'gemini-2.5-flash',
      contents: 'Decide.',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: schema,
        temperature: 0,
        systemInstruction: 'Be brief.',
        thinkingConfig: { thinkingBudget: 0 },
      },
    })
  })

  it("hands the caller's abort signal to the request, generation and embeddings alike", async () => {
    const models = new ScriptedModels([{ text: 'ok' }], [{ embeddings: [{ values: [1, 0] }] }])
    const { signal } = new AbortController()
    await new GeminiLLM({ apiKey: KEY, model: 'm' }, models).generate('p', { signal })
    await new GeminiEmbedder({ apiKey: KEY, model: 'e', dims: 2 }, models).embed(['a'], { signal })
    expect(models.generateCalls[0].config.abortSignal).toBe(signal)
    expect(models.embedCalls[0].config.abortSignal).toBe(signal)
  })

  it('sends no JSON settings for a plain-text call', async () => {
    const models = new ScriptedModels([{ text: 'Tom likes tea.' }])
    await new GeminiLLM({ apiKey: KEY, model: 'm' }, models).generate('Summarise.')
    expect(models.generateCalls[0].config).toEqual({})
  })

  it('maps an HTTP error to ProviderError with the HTTP status and retryability', async () => {
    const models = new ScriptedModels([
      httpError(429, { error: { code: 429, message: 'Resource exhausted' } }),
      httpError(400, { error: { code: 400, message: 'API key not valid' } }),
      httpError(500, { error: { code: 500, message: 'internal' } }),
      new HTTP.Error('request timeout', 'ETIMEDOUT'),
    ])
    const llm = new GeminiLLM({ apiKey: KEY, model: 'm' }, models)
    const e429 = await llm.generate('p').catch((e) => e)
    expect(e429).toBeInstanceOf(ProviderError)
    expect(e429).toMatchObject({ status: 429, retryable: true, provider: 'gemini:m' })
    expect(e429.message).toContain('Resource exhausted')
    await expect(llm.generate('p')).rejects.toMatchObject({ status: 400, retryable: false })
    await expect(llm.generate('p')).rejects.toMatchObject({ status: 500, retryable: true })
    await expect(llm.generate('p')).rejects.toMatchObject({ status: undefined, message: expect.stringMatching(/timed out/) })
  })

  it('treats a network failure as retryable, without a status, and never repeats the key', async () => {
    const cause = Object.assign(new Error(`connect ECONNRESET for key ${KEY}`), { code: 'ECONNRESET' })
    const models = new ScriptedModels([Object.assign(new TypeError('fetch failed'), { cause })])
    const error = await new GeminiLLM({ apiKey: KEY, model: 'm' }, models).generate('p').catch((e) => e)
    expect(error).toMatchObject({ status: undefined, retryable: true })
    const models2 = new ScriptedModels([new Error(`bad request with ${KEY}`)])
    const error2 = await new GeminiLLM({ apiKey: KEY, model: 'm' }, models2).generate('p').catch((e) => e)
    expect(error2.message).not.toContain(KEY)
    expect(error2.message).toContain('***')
  })

  it('reports a blocked prompt or an empty answer', async () => {
    const models = new ScriptedModels([
      { text: undefined, promptFeedback: { blockReason: 'SAFETY' } },
      { text: '  ', candidates: [{ finishReason: 'MAX_TOKENS' }] },
    ])
    const llm = new GeminiLLM({ apiKey: KEY, model: 'm' }, models)
    await expect(llm.generate('p')).rejects.toThrow(/prompt blocked \(SAFETY\)/)
    await expect(llm.generate('p')).rejects.toThrow(/finish reason MAX_TOKENS/)
  })
})

describe('GeminiEmbedder', () => {
  it('asks for the configured dimension and returns L2-normalised vectors', async () => {
    const models = new ScriptedModels([], [{ embeddings: [{ values: [3, 4, 0] }, { values: [0, 0, 2] }] }])
    const embedder = new GeminiEmbedder({ apiKey: KEY, model: 'gemini-embedding-001', dims: 3, taskType: 'SEMANTIC_SIMILARITY' }, models)
    expect(embedder.id).toBe('gemini:gemini-embedding-001')
    expect(embedder.dims).toBe(3)
    const vectors = await embedder.embed(['a', 'b'])
    expect(Array.from(vectors[0])).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6), 0])
    expect(Array.from(vectors[1])).toEqual([0, 0, 1])
    expect(models.embedCalls[0]).toEqual({
      model: 'gemini-embedding-001',
      contents: ['a', 'b'],
      config: { outputDimensionality: 3, taskType: 'SEMANTIC_SIMILARITY' },
    })
  })

  it('defaults to 768 dimensions', () => {
    expect(new GeminiEmbedder({ apiKey: KEY, model: 'm' }, new ScriptedModels()).dims).toBe(768)
  })

  it('splits large inputs into batches and keeps the order', async () => {
    const models = new ScriptedModels([], [{ embeddings: [{ values: [1, 0] }, { values: [0, 1] }] }, { embeddings: [{ values: [-1, 0] }] }])
    const vectors = await new GeminiEmbedder({ apiKey: KEY, model: 'm', dims: 2, batchSize: 2 }, models).embed(['a', 'b', 'c'])
    expect(models.embedCalls.map((c) => c.contents)).toEqual([['a', 'b'], ['c']])
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 0],
      [0, 1],
      [-1, 0],
    ])
  })

  it('rejects vectors of the wrong length and a wrong number of vectors', async () => {
    const models = new ScriptedModels([], [{ embeddings: [{ values: [1, 2, 3, 4] }] }, { embeddings: [] }])
    const embedder = new GeminiEmbedder({ apiKey: KEY, model: 'm', dims: 3 }, models)
    await expect(embedder.embed(['a'])).rejects.toThrow(/embedding 0 has 4 dimensions, expected 3/)
    await expect(embedder.embed(['a'])).rejects.toThrow(/asked for 1 embeddings, got 0/)
  })

  it('maps errors with their status', async () => {
    const models = new ScriptedModels([], [httpError(503, { error: { code: 503, message: 'unavailable' } })])
    await expect(new GeminiEmbedder({ apiKey: KEY, model: 'm' }, models).embed(['a'])).rejects.toMatchObject({
      status: 503,
      retryable: true,
    })
  })
})

describe("Gemini's REST API through ctx.http (loopback server, no internet)", () => {
  let server: Server
  let baseUrl: string
  let http: HTTP
  const ctx = new Context()
  const requests: { url: string; headers: IncomingMessage['headers']; body: any }[] = []
  let reply: (url: string, body: any) => { status: number; body: unknown }

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let data = ''
      req.on('data', (chunk) => (data += chunk))
      req.on('end', () => {
        const body = data ? JSON.parse(data) : undefined
        requests.push({ url: req.url!, headers: req.headers, body })
        const answer = reply(req.url!, body)
        res.writeHead(answer.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(answer.body))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    ctx.plugin(HTTP)
    await ctx.start()
    http = ctx.http
  })
  afterAll(async () => {
    await ctx.stop()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const rest = <T extends { apiKey: string; baseUrl?: string }>(options: T) => [options, new GeminiRestModels(http, options)] as const

  it('generates through generateContent with JSON mode', async () => {
    requests.length = 0
    reply = () => ({
      status: 200,
      body: { candidates: [{ content: { role: 'model', parts: [{ text: '{"ok":true}' }] }, finishReason: 'STOP' }] },
    })
    const llm = new GeminiLLM(...rest({ apiKey: KEY, model: 'gemini-2.5-flash', baseUrl }))
    await expect(llm.generate('hi', { json: true, temperature: 0 })).resolves.toBe('{"ok":true}')
    expect(requests[0].url).toMatch(/models\/gemini-2\.5-flash:generateContent/)
    expect(requests[0].url).not.toContain(KEY)
    expect(requests[0].body.generationConfig).toMatchObject({ responseMimeType: 'application/json', temperature: 0 })
  })

  it('sends the key in a header, the instruction and tools on the wire, and reads function calls but not thoughts', async () => {
    requests.length = 0
    reply = () => ({
      status: 200,
      body: {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { text: 'thinking…', thought: true },
                { text: '查一下' },
                { functionCall: { id: 'f1', name: 'search_chat_history', args: { query: '蛋糕' } } },
              ],
            },
          },
        ],
      },
    })
    const llm = new GeminiLLM(...rest({ apiKey: KEY, model: 'm', baseUrl: baseUrl + '/' }))
    const tools = [{ name: 'search_chat_history', description: 'd', parameters: { type: 'object' } }]
    const reply1 = await llm.chat(
      [
        { role: 'system', content: 'persona' },
        { role: 'user', content: '蛋糕什么味？' },
      ],
      { tools, maxTokens: 50 },
    )
    expect(reply1).toEqual({ text: '查一下', toolCalls: [{ id: 'f1', name: 'search_chat_history', arguments: { query: '蛋糕' } }] })
    expect(requests[0].url).toBe('/v1beta/models/m:generateContent')
    expect(requests[0].headers['x-goog-api-key']).toBe(KEY)
    expect(requests[0].body).toEqual({
      contents: [{ role: 'user', parts: [{ text: '蛋糕什么味？' }] }],
      systemInstruction: { role: 'user', parts: [{ text: 'persona' }] },
      tools: [{ functionDeclarations: [{ name: 'search_chat_history', description: 'd', parametersJsonSchema: { type: 'object' } }] }],
      generationConfig: { maxOutputTokens: 50 },
    })
  })

  it('carries the HTTP status of an error answer', async () => {
    reply = () => ({ status: 429, body: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } })
    const error = await new GeminiLLM(...rest({ apiKey: KEY, model: 'm', baseUrl })).generate('hi').catch((e) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ status: 429, retryable: true })
  })

  it('embeds a batch with outputDimensionality', async () => {
    requests.length = 0
    reply = (_url, body) => ({
      status: 200,
      body: { embeddings: body.requests.map((_: unknown, i: number) => ({ values: [i + 1, 0, 0, 0] })) },
    })
    const embedder = new GeminiEmbedder(...rest({ apiKey: KEY, model: 'gemini-embedding-001', dims: 4, baseUrl }))
    const vectors = await embedder.embed(['a', 'b'])
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 0, 0, 0],
      [1, 0, 0, 0],
    ])
    expect(requests[0].url).toMatch(/gemini-embedding-001:batchEmbedContents/)
    expect(requests[0].body.requests[0]).toMatchObject({ outputDimensionality: 4 })
  })
})

describe('createProviders with gemini', () => {
  const settings = {
    embedding: { provider: 'gemini' as const, model: '', apiKey: KEY, baseURL: '', dims: 8, sendDimensions: false, timeout: 1000 },
    llm: { provider: 'gemini' as const, model: '', apiKey: KEY, baseURL: '', temperature: 0, timeout: 1000 },
    retryIntervalSeconds: 1,
  }

  it('calls Gemini through the http service, and says so when it is not loaded', () => {
    const without = createProviders(undefined, settings, new Counters(), quiet)
    expect(without.choices).toEqual({
      embedder: { configured: 'gemini', used: 'offline', fallback: 'no-http' },
      llm: { configured: 'gemini', used: 'rules', fallback: 'no-http' },
    })
    const http = { post: async () => ({}) } as unknown as HTTP
    const withHttp = createProviders(http, settings, new Counters(), quiet)
    expect(withHttp.choices).toEqual({ embedder: { configured: 'gemini', used: 'gemini' }, llm: { configured: 'gemini', used: 'gemini' } })
  })
})
