import { HTTP } from '@koishijs/plugin-http'
import { describe, expect, it } from 'vitest'
import type { HttpPort } from '../../src/providers/openai-compatible'
import { OpenAICompatibleEmbedder, OpenAICompatibleLLM } from '../../src/providers/openai-compatible'
import { ProviderError } from '../../src/providers/types'

/** Koishi's own HTTP error, shaped as `ctx.http` throws it for a non-2xx answer. */
function httpError(status: number, statusText: string, data: unknown) {
  const error = new HTTP.Error(statusText)
  error.response = { url: 'x', status, statusText, data, headers: new Headers() }
  return error
}

type Call = { url: string; data: any; config?: { headers?: Record<string, string>; timeout?: number; signal?: AbortSignal } }

/** An HttpPort that plays back scripted answers (or errors) and records each request. */
class ScriptedHttp implements HttpPort {
  calls: Call[] = []
  constructor(private script: unknown[]) {}
  async post<T>(url: string, data: any, config?: Call['config']): Promise<T> {
    this.calls.push({ url, data: structuredClone(data), config })
    const next = this.script.shift()
    if (next === undefined) throw new Error('script exhausted')
    if (next instanceof Error) throw next
    return next as T
  }
}

const chat = (content: unknown, finish = 'stop') => ({
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }],
})

describe('OpenAICompatibleLLM.chat', () => {
  const tools = [{ name: 'search_memories', description: 'd', parameters: { type: 'object', properties: {} } }]

  it('offers tools, reads tool calls (arguments as a JSON string, or broken), and sends the results back paired', async () => {
    const http = new ScriptedHttp([
      {
        choices: [
          {
            message: {
              content: null,
              tool_calls: [
                { id: 'a', type: 'function', function: { name: 'search_memories', arguments: '{"query":"狗"}' } },
                { id: 'b', type: 'function', function: { name: 'search_memories', arguments: '{broken' } },
                { type: 'function', function: { arguments: '{}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
      chat('旺财'),
    ])
    const llm = new OpenAICompatibleLLM(http, { baseURL: 'http://x/v1', model: 'm' })
    const first = await llm.chat([{ role: 'user', content: 'q' }], { tools, temperature: 0.5 })
    expect(first.toolCalls).toEqual([
      { id: 'a', name: 'search_memories', arguments: { query: '狗' } },
      { id: 'b', name: 'search_memories', arguments: {} },
    ])
    expect(http.calls[0].data.tools).toEqual([{ type: 'function', function: tools[0] }])
    expect(http.calls[0].data.temperature).toBe(0.5)
    const second = await llm.chat([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'a', name: 'search_memories', content: '- 狗叫旺财' },
    ])
    expect(second).toEqual({ text: '旺财', toolCalls: [] })
    expect(http.calls[1].data.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'search_memories', arguments: '{"query":"狗"}' } },
          { id: 'b', type: 'function', function: { name: 'search_memories', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '- 狗叫旺财' },
    ])
    expect(http.calls[1].data.tools).toBeUndefined()
  })

  it('throws a ProviderError for an answer with neither text nor tool calls', async () => {
    const llm = new OpenAICompatibleLLM(new ScriptedHttp([chat('', 'length')]), { baseURL: 'http://x/v1', model: 'm' })
    await expect(llm.chat([{ role: 'user', content: 'q' }])).rejects.toThrow(/finish reason length/)
  })
})

describe('OpenAICompatibleLLM', () => {
  it('posts chat completions with JSON mode, system message, temperature and the bearer key', async () => {
    const http = new ScriptedHttp([chat('{"should_remember": false}')])
    const llm = new OpenAICompatibleLLM(http, {
      baseURL: 'https://api.deepseek.com/v1/',
      apiKey: 'sk-secret',
      model: 'deepseek-chat',
      timeoutMs: 5000,
    })
    expect(llm.id).toBe('openai-compatible:deepseek-chat')
    await expect(llm.generate('Decide in JSON.', { json: true, system: 'sys', temperature: 0 })).resolves.toBe('{"should_remember": false}')
    expect(http.calls[0]).toEqual({
      url: 'https://api.deepseek.com/v1/chat/completions',
      data: {
        model: 'deepseek-chat',
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'Decide in JSON.' },
        ],
        temperature: 0,
        response_format: { type: 'json_object' },
      },
      config: { headers: { Authorization: 'Bearer sk-secret' }, timeout: 5000 },
    })
  })

  it("hands the caller's abort signal to the request, chat and embeddings alike", async () => {
    const http = new ScriptedHttp([chat('ok'), { data: [{ index: 0, embedding: [1, 0] }] }])
    const { signal } = new AbortController()
    await new OpenAICompatibleLLM(http, { baseURL: 'http://localhost:11434/v1', model: 'm' }).generate('p', { signal })
    await new OpenAICompatibleEmbedder(http, { baseURL: 'http://localhost:11434/v1', model: 'e', dims: 2 }).embed(['a'], { signal })
    expect(http.calls.map((call) => call.config?.signal)).toEqual([signal, signal])
  })

  it('sends no Authorization header without a key and no response_format for plain text', async () => {
    const http = new ScriptedHttp([chat('Tom likes tea.')])
    await new OpenAICompatibleLLM(http, { baseURL: 'http://localhost:11434/v1', model: 'qwen2.5' }).generate('Summarise.')
    expect(http.calls[0].config?.headers).toEqual({})
    expect(http.calls[0].data).toEqual({ model: 'qwen2.5', messages: [{ role: 'user', content: 'Summarise.' }] })
  })

  it('retries without response_format when the server rejects it, and remembers that', async () => {
    const http = new ScriptedHttp([
      httpError(400, 'Bad Request', {
        error: { message: 'Unrecognized request argument supplied: response_format', type: 'invalid_request_error' },
      }),
      chat('{"a": 1}'),
      chat('{"b": 2}'),
    ])
    const llm = new OpenAICompatibleLLM(http, { baseURL: 'http://vllm:8000/v1', model: 'm' })
    await expect(llm.generate('p', { json: true })).resolves.toBe('{"a": 1}')
    await expect(llm.generate('p', { json: true })).resolves.toBe('{"b": 2}')
    expect(http.calls.map((c) => 'response_format' in c.data)).toEqual([true, false, false])
  })

  it('does not retry other 400 errors', async () => {
    const http = new ScriptedHttp([httpError(400, 'Bad Request', { error: { message: 'context length exceeded' } }), chat('never')])
    const error = await new OpenAICompatibleLLM(http, { baseURL: 'u', model: 'm' }).generate('p', { json: true }).catch((e) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ status: 400, retryable: false })
    expect(error.message).toContain('context length exceeded')
    expect(http.calls).toHaveLength(1)
  })

  it('maps HTTP status, timeouts and network failures, and keeps the key out of messages', async () => {
    const network = new HTTP.Error('fetch http://localhost:11434/v1/chat/completions failed')
    network.cause = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    })
    const http = new ScriptedHttp([
      httpError(429, 'Too Many Requests', { error: { message: 'Rate limit reached' } }),
      httpError(401, 'Unauthorized', { error: { message: 'Incorrect API key provided: sk-secret' } }),
      httpError(502, 'Bad Gateway', '<html>bad gateway</html>'),
      new HTTP.Error('request timeout', 'ETIMEDOUT'),
      network,
    ])
    const llm = new OpenAICompatibleLLM(http, { baseURL: 'u', model: 'm', apiKey: 'sk-secret' })
    const e429 = await llm.generate('p').catch((e) => e)
    expect(e429).toMatchObject({ status: 429, retryable: true })
    expect(e429.message).toContain('Rate limit reached')
    const e401 = await llm.generate('p').catch((e) => e)
    expect(e401).toMatchObject({ status: 401, retryable: false })
    expect(e401.message).not.toContain('sk-secret')
    await expect(llm.generate('p')).rejects.toMatchObject({ status: 502, retryable: true })
    await expect(llm.generate('p')).rejects.toMatchObject({
      status: undefined,
      retryable: false,
      message: expect.stringMatching(/timed out/),
    })
    await expect(llm.generate('p')).rejects.toMatchObject({ status: undefined, retryable: true })
  })

  it('reads content given as a list of text parts, and rejects an empty answer', async () => {
    const http = new ScriptedHttp([
      chat([
        { type: 'text', text: '{"a":' },
        { type: 'text', text: '1}' },
      ]),
      chat(null, 'content_filter'),
      chat(''),
    ])
    const llm = new OpenAICompatibleLLM(http, { baseURL: 'u', model: 'm' })
    await expect(llm.generate('p')).resolves.toBe('{"a":1}')
    await expect(llm.generate('p')).rejects.toThrow(/no text in the answer \(finish reason content_filter\)/)
    await expect(llm.generate('p')).rejects.toThrow(/no text/)
  })
})

describe('OpenAICompatibleEmbedder', () => {
  it('posts /embeddings with dimensions when asked, and returns normalised vectors in input order', async () => {
    const http = new ScriptedHttp([
      {
        data: [
          { object: 'embedding', index: 1, embedding: [0, 2, 0] },
          { object: 'embedding', index: 0, embedding: [3, 0, 4] },
        ],
      },
    ])
    const embedder = new OpenAICompatibleEmbedder(http, {
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'k',
      model: 'text-embedding-3-small',
      dims: 3,
      sendDimensions: true,
    })
    expect(embedder.id).toBe('openai-compatible:text-embedding-3-small')
    expect(embedder.dims).toBe(3)
    const vectors = await embedder.embed(['first', 'second'])
    expect(Array.from(vectors[0])).toEqual([expect.closeTo(0.6, 6), 0, expect.closeTo(0.8, 6)])
    expect(Array.from(vectors[1])).toEqual([0, 1, 0])
    expect(http.calls[0]).toMatchObject({
      url: 'https://api.openai.com/v1/embeddings',
      data: { model: 'text-embedding-3-small', input: ['first', 'second'], encoding_format: 'float', dimensions: 3 },
      config: { headers: { Authorization: 'Bearer k' } },
    })
  })

  it('leaves dimensions out by default and batches the input', async () => {
    const http = new ScriptedHttp([
      {
        data: [
          { index: 0, embedding: [1, 0] },
          { index: 1, embedding: [0, 1] },
        ],
      },
      { data: [{ index: 0, embedding: [1, 1] }] },
    ])
    const vectors = await new OpenAICompatibleEmbedder(http, {
      baseURL: 'http://localhost:11434/v1',
      model: 'bge-m3',
      dims: 2,
      batchSize: 2,
    }).embed(['a', 'b', 'c'])
    expect(vectors).toHaveLength(3)
    expect(http.calls.map((c) => c.data.input)).toEqual([['a', 'b'], ['c']])
    expect('dimensions' in http.calls[0].data).toBe(false)
    expect(Array.from(vectors[2])).toEqual([expect.closeTo(Math.SQRT1_2, 6), expect.closeTo(Math.SQRT1_2, 6)])
  })

  it('rejects wrong vector lengths and wrong counts', async () => {
    const http = new ScriptedHttp([
      { data: [{ index: 0, embedding: [1, 2, 3] }] },
      { data: [] },
      { data: [{ index: 0, embedding: 'AAAA' }] },
    ])
    const embedder = new OpenAICompatibleEmbedder(http, { baseURL: 'u', model: 'm', dims: 2 })
    await expect(embedder.embed(['a'])).rejects.toThrow(/embedding 0 has 3 dimensions, expected 2/)
    await expect(embedder.embed(['a'])).rejects.toThrow(/asked for 1 embeddings, got 0/)
    await expect(embedder.embed(['a'])).rejects.toThrow(/base64/)
  })

  it('maps HTTP errors with their status', async () => {
    const http = new ScriptedHttp([httpError(503, 'Service Unavailable', { message: 'model loading' })])
    const error = await new OpenAICompatibleEmbedder(http, { baseURL: 'u', model: 'm', dims: 2 }).embed(['a']).catch((e) => e)
    expect(error).toMatchObject({ status: 503, retryable: true })
    expect(error.message).toContain('model loading')
  })

  it('refuses a nonsensical dimension', () => {
    expect(() => new OpenAICompatibleEmbedder(new ScriptedHttp([]), { baseURL: 'u', model: 'm', dims: 0 })).toThrow(RangeError)
  })
})
