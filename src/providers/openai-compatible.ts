import { providerError, scrub } from './errors'
import type { ChatOptions, ChatReply, ChatTurn, Embedder, EmbedOptions, GenerateOptions, LLM, ToolCall } from './types'
import { ProviderError } from './types'
import { l2normalize } from './vectors'

/**
 * The one HTTP call these providers need. Koishi's `ctx.http` has this shape; its errors carry
 * `response.status` and the decoded body in `response.data`, and `code: 'ETIMEDOUT'` on timeout.
 */
export interface HttpPort {
  post(url: string, data: unknown, config?: { headers?: Record<string, string>; timeout?: number; signal?: AbortSignal }): Promise<unknown>
}

/** What an error of `ctx.http` may carry. */
interface HttpFailure {
  message?: string
  code?: string
  response?: { status?: unknown; data?: unknown }
}

/** The parts of an OpenAI-compatible answer that are read; servers differ, so every field is checked. */
interface ChatAnswer {
  choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[]
}

interface EmbeddingAnswer {
  data?: unknown
}

interface EmbeddingItem {
  index?: unknown
  embedding?: unknown
}

function failure(error: unknown): HttpFailure {
  return typeof error === 'object' && error !== null ? (error as HttpFailure) : {}
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
}

export interface OpenAICompatibleOptions {
  /** API root that holds `/chat/completions` and `/embeddings`, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string
  /** Sent as `Authorization: Bearer …` when set (local servers such as Ollama need none). */
  apiKey?: string
  model: string
  /** HTTP timeout in ms. Unset: none here (the resilience wrapper has its own). */
  timeoutMs?: number
  /** Extra request headers. */
  headers?: Record<string, string>
}

export interface OpenAICompatibleEmbedderOptions extends OpenAICompatibleOptions {
  /** Length of the vectors the model returns (checked on every answer). */
  dims: number
  /**
   * Send `dimensions: dims` so the model shortens its vectors (OpenAI text-embedding-3-*, Qwen
   * text-embedding-v3/v4). Leave off for models with a fixed size; many servers reject the field.
   */
  sendDimensions?: boolean
  /** Texts per request. Default 10 (DashScope's limit; OpenAI accepts far more). */
  batchSize?: number
}

function endpoint(baseURL: string, path: string): string {
  return `${baseURL.replace(/\/+$/, '')}${path}`
}

function headersFor(options: OpenAICompatibleOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`
  return headers
}

/** The error text the server sent: OpenAI's `{error: {message}}`, or `{message}`, `{detail}`, `{error: "…"}`. */
function serverMessage(error: HttpFailure): string {
  const data = error.response?.data
  const inner = field(data, 'error')
  const fromBody =
    typeof data === 'string'
      ? data
      : (field(inner, 'message') ?? (typeof inner === 'string' ? inner : undefined) ?? field(data, 'message') ?? field(data, 'detail'))
  const text = typeof fromBody === 'string' ? fromBody : fromBody !== undefined ? JSON.stringify(fromBody) : ''
  return [error.message, text].filter(Boolean).join(': ')
}

function toProviderError(provider: string, error: unknown, apiKey?: string): ProviderError {
  if (error instanceof ProviderError) return error
  const e = failure(error)
  const status = typeof e.response?.status === 'number' ? e.response.status : undefined
  if (status === undefined && e.code === 'ETIMEDOUT') {
    return providerError(provider, `${provider}: request timed out`, undefined, error)
  }
  const detail = scrub(serverMessage(e) || String(error), [apiKey])
  return providerError(provider, `${provider}: ${status ? `HTTP ${status} ` : ''}${detail}`, status, error)
}

/** A 400 that says the server does not take `response_format` (many local servers). */
function rejectsResponseFormat(error: unknown): boolean {
  const e = failure(error)
  return e.response?.status === 400 && /response_format|json_object/i.test(serverMessage(e))
}

/** Text of `choices[0].message.content`, which is a string or (some servers) a list of text parts. */
function contentOf(data: ChatAnswer | undefined): string | undefined {
  const content = data?.choices?.[0]?.message?.content
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content.map((part: unknown) => (typeof part === 'string' ? part : String(field(part, 'text') ?? ''))).join('')
  return undefined
}

/** A turn as `/chat/completions` takes it. */
function wireTurn(turn: ChatTurn): Record<string, unknown> {
  if (turn.role === 'tool') return { role: 'tool', tool_call_id: turn.toolCallId, content: turn.content }
  if (turn.role === 'assistant' && turn.toolCalls?.length)
    return {
      role: 'assistant',
      content: turn.content || null,
      tool_calls: turn.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      })),
    }
  return { role: turn.role, content: turn.content }
}

/** `tool_calls` of an answer; arguments arrive as a JSON string (or, from some servers, an object). */
function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((call: unknown, index) => {
    const fn = field(call, 'function')
    const name = field(fn, 'name')
    if (typeof name !== 'string' || !name) return []
    const raw = field(fn, 'arguments')
    let args: unknown = raw
    if (typeof raw === 'string') {
      try {
        args = raw.trim() ? JSON.parse(raw) : {}
      } catch {
        args = {}
      }
    }
    const id = field(call, 'id')
    return [
      {
        id: typeof id === 'string' && id ? id : `call_${index}`,
        name,
        arguments: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
      },
    ]
  })
}

/**
 * A chat model behind any OpenAI-compatible `/chat/completions` endpoint (OpenAI, DeepSeek,
 * Qwen/DashScope, SiliconFlow, Ollama, vLLM…). JSON mode is `response_format: {type: "json_object"}`;
 * a server that answers 400 about `response_format` is asked again without it, and not asked with it
 * again.
 */
export class OpenAICompatibleLLM implements LLM {
  readonly id: string
  private jsonModeSupported = true

  constructor(
    private readonly http: HttpPort,
    private readonly options: OpenAICompatibleOptions,
  ) {
    this.id = `openai-compatible:${options.model}`
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    const messages: { role: 'system' | 'user'; content: string }[] = []
    if (options.system) messages.push({ role: 'system', content: options.system })
    messages.push({ role: 'user', content: prompt })
    const body: Record<string, unknown> = { model: this.options.model, messages }
    if (options.temperature !== undefined) body.temperature = options.temperature
    const useJsonMode = !!options.json && this.jsonModeSupported
    if (useJsonMode) body.response_format = { type: 'json_object' }

    let data: ChatAnswer | undefined
    try {
      data = await this.post(body, options.signal)
    } catch (error) {
      if (!(useJsonMode && rejectsResponseFormat(error))) throw toProviderError(this.id, error, this.options.apiKey)
      this.jsonModeSupported = false
      delete body.response_format
      try {
        data = await this.post(body, options.signal)
      } catch (retryError) {
        throw toProviderError(this.id, retryError, this.options.apiKey)
      }
    }
    const text = contentOf(data)
    if (text && text.trim()) return text
    const finish = data?.choices?.[0]?.finish_reason
    throw new ProviderError(`${this.id}: no text in the answer${finish ? ` (finish reason ${finish})` : ''}`, this.id)
  }

  /** A conversation with function calling (`tools` / `tool_calls`). */
  async chat(turns: ChatTurn[], options: ChatOptions = {}): Promise<ChatReply> {
    const body: Record<string, unknown> = { model: this.options.model, messages: turns.map(wireTurn) }
    if (options.temperature !== undefined) body.temperature = options.temperature
    if (options.maxTokens) body.max_tokens = options.maxTokens
    if (options.tools?.length)
      body.tools = options.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }))
    let data: ChatAnswer | undefined
    try {
      data = await this.post(body, options.signal)
    } catch (error) {
      throw toProviderError(this.id, error, this.options.apiKey)
    }
    const toolCalls = toolCallsOf(data?.choices?.[0]?.message?.tool_calls)
    const text = contentOf(data) ?? ''
    if (text.trim() || toolCalls.length) return { text, toolCalls }
    const finish = data?.choices?.[0]?.finish_reason
    throw new ProviderError(`${this.id}: no text in the answer${finish ? ` (finish reason ${finish})` : ''}`, this.id)
  }

  private async post(body: Record<string, unknown>, signal?: AbortSignal): Promise<ChatAnswer | undefined> {
    const answer = await this.http.post(endpoint(this.options.baseURL, '/chat/completions'), body, {
      headers: headersFor(this.options),
      timeout: this.options.timeoutMs,
      signal,
    })
    return typeof answer === 'object' && answer !== null ? (answer as ChatAnswer) : undefined
  }
}

/** Embeddings from any OpenAI-compatible `/embeddings` endpoint; vectors checked against `dims` and L2-normalised. */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string
  readonly dims: number
  private readonly batchSize: number

  constructor(
    private readonly http: HttpPort,
    private readonly options: OpenAICompatibleEmbedderOptions,
  ) {
    if (!Number.isInteger(options.dims) || options.dims <= 0)
      throw new RangeError(`embedding dims must be a positive integer, got ${options.dims}`)
    this.id = `openai-compatible:${options.model}`
    this.dims = options.dims
    this.batchSize = Math.max(1, options.batchSize ?? 10)
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize), options.signal)))
    }
    return out
  }

  private async embedBatch(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { model: this.options.model, input: texts, encoding_format: 'float' }
    if (this.options.sendDimensions) body.dimensions = this.dims
    let data: EmbeddingAnswer | undefined
    try {
      data = (await this.http.post(endpoint(this.options.baseURL, '/embeddings'), body, {
        headers: headersFor(this.options),
        timeout: this.options.timeoutMs,
        signal,
      })) as EmbeddingAnswer | undefined
    } catch (error) {
      throw toProviderError(this.id, error, this.options.apiKey)
    }
    const items: EmbeddingItem[] = Array.isArray(data?.data)
      ? data.data.map((item: unknown) => (typeof item === 'object' && item !== null ? item : {}))
      : []
    if (items.length !== texts.length) {
      throw new ProviderError(`${this.id}: asked for ${texts.length} embeddings, got ${items.length}`, this.id)
    }
    // `index` gives each vector's input; servers are not obliged to keep the order.
    const ordered = items.every((item) => typeof item.index === 'number')
      ? [...items].sort((a, b) => (a.index as number) - (b.index as number))
      : items
    return ordered.map((item, i) => {
      const values = item.embedding
      if (!Array.isArray(values) || values.length !== this.dims) {
        const got = Array.isArray(values) ? `${values.length} dimensions` : typeof values === 'string' ? 'a base64 string' : 'no vector'
        throw new ProviderError(`${this.id}: embedding ${i} has ${got}, expected ${this.dims}`, this.id)
      }
      return l2normalize(Float32Array.from(values))
    })
  }
}
