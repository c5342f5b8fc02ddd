import { providerError, scrub } from './errors'
import type { ChatOptions, ChatReply, ChatTurn, Embedder, EmbedOptions, GenerateOptions, LLM } from './types'
import { ProviderError } from './types'
import { l2normalize } from './vectors'

/** A turn of a Gemini conversation: the bot is `model`. */
export interface GeminiContent {
  role: 'user' | 'model'
  parts: Record<string, unknown>[]
}

/** What a `generateContent` call sets: the generation settings, and the instruction, tools and signal beside them. */
export interface GeminiGenerateConfig {
  responseMimeType?: string
  responseJsonSchema?: unknown
  temperature?: number
  maxOutputTokens?: number
  thinkingConfig?: { thinkingBudget: number }
  systemInstruction?: string
  tools?: { functionDeclarations: { name: string; description: string; parametersJsonSchema: unknown }[] }[]
  abortSignal?: AbortSignal
}

export interface GeminiGenerateParams {
  model: string
  contents: string | GeminiContent[]
  config: GeminiGenerateConfig
}

export interface GeminiEmbedParams {
  model: string
  contents: string[]
  config: { outputDimensionality: number; taskType?: string; abortSignal?: AbortSignal }
}

/**
 * Gemini's `models` calls these providers use, in the shape of `GoogleGenAI#models` of Google's SDK.
 * `GeminiRestModels` (gemini-rest.ts) makes them through `ctx.http`; tests pass a scripted object.
 */
export interface GeminiModelsPort {
  generateContent(params: GeminiGenerateParams): Promise<GeminiGenerateResponse>
  embedContent(params: GeminiEmbedParams): Promise<{ embeddings?: { values?: number[] }[] }>
}

/** What is read from a generateContent answer. */
export interface GeminiGenerateResponse {
  text?: string
  functionCalls?: { id?: string; name?: string; args?: Record<string, unknown> }[]
  promptFeedback?: { blockReason?: string }
  candidates?: { finishReason?: string }[]
}

export interface GeminiClientOptions {
  apiKey: string
  /** Another endpoint, e.g. a proxy. Default: generativelanguage.googleapis.com. */
  baseUrl?: string
  /** HTTP timeout in ms. The resilience wrapper has its own. */
  timeoutMs?: number
}

export interface GeminiLLMOptions extends GeminiClientOptions {
  /** e.g. `gemini-2.5-flash`. */
  model: string
  /** Thinking token budget for models that think (0 turns thinking off on Flash models). Unset: the model's default. */
  thinkingBudget?: number
}

export interface GeminiEmbedderOptions extends GeminiClientOptions {
  /** e.g. `gemini-embedding-001`. */
  model: string
  /** Output dimensionality asked for and checked. Default 768. */
  dims?: number
  /** Texts per request. Default 100 (the API's batch limit). */
  batchSize?: number
  /** Embedding task type, e.g. `SEMANTIC_SIMILARITY`. Unset: the model's default. */
  taskType?: string
}

/** What a failed call may carry: `ctx.http`'s error (status and body in `response`, `ETIMEDOUT`), or a network error. */
interface Failure {
  message?: string
  code?: string
  status?: unknown
  response?: { status?: unknown; data?: unknown }
}

/** The message Gemini's error body gives (`{error: {message}}`). */
function serverMessage(data: unknown): string {
  const message = (data as { error?: { message?: unknown } } | undefined)?.error?.message
  return typeof message === 'string' ? message : typeof data === 'string' ? data : ''
}

/** Maps a failed call to a `ProviderError` with its HTTP status, never leaking the key. */
function toProviderError(provider: string, error: unknown, apiKey: string): ProviderError {
  if (error instanceof ProviderError) return error
  const e: Failure = typeof error === 'object' && error !== null ? error : {}
  const status = [e.response?.status, e.status].find((value): value is number => typeof value === 'number')
  if (status === undefined && e.code === 'ETIMEDOUT') return providerError(provider, `${provider}: request timed out`, undefined, error)
  const detail = [e.message ?? String(error), serverMessage(e.response?.data)].filter(Boolean).join(': ')
  return providerError(provider, `${provider}: ${status ? `HTTP ${status} ` : ''}${scrub(detail, [apiKey])}`, status, error)
}

/** Gemini chat model. JSON mode is `responseMimeType: application/json`. */
export class GeminiLLM implements LLM {
  readonly id: string
  private readonly models: GeminiModelsPort

  constructor(
    private readonly options: GeminiLLMOptions,
    models: GeminiModelsPort,
  ) {
    this.id = `gemini:${options.model}`
    this.models = models
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    const config: GeminiGenerateConfig = {}
    if (options.json) config.responseMimeType = 'application/json'
    if (options.json && options.schema) config.responseJsonSchema = options.schema
    if (options.temperature !== undefined) config.temperature = options.temperature
    if (options.system) config.systemInstruction = options.system
    if (this.options.thinkingBudget !== undefined) config.thinkingConfig = { thinkingBudget: this.options.thinkingBudget }
    if (options.signal) config.abortSignal = options.signal

    let response: GeminiGenerateResponse
    try {
      response = await this.models.generateContent({ model: this.options.model, contents: prompt, config })
    } catch (error) {
      throw toProviderError(this.id, error, this.options.apiKey)
    }
    const text = response.text
    if (typeof text === 'string' && text.trim()) return text
    const blocked = response.promptFeedback?.blockReason
    const finish = response.candidates?.[0]?.finishReason
    const why = blocked ? `prompt blocked (${blocked})` : finish ? `no text (finish reason ${finish})` : 'no text in the answer'
    throw new ProviderError(`${this.id}: ${why}`, this.id)
  }

  /** A conversation with function calling: system turns become the system instruction, tools function declarations. */
  async chat(turns: ChatTurn[], options: ChatOptions = {}): Promise<ChatReply> {
    const config: GeminiGenerateConfig = {}
    const system = turns.filter((turn) => turn.role === 'system').map((turn) => turn.content)
    if (system.length) config.systemInstruction = system.join('\n\n')
    if (options.temperature !== undefined) config.temperature = options.temperature
    if (options.maxTokens) config.maxOutputTokens = options.maxTokens
    if (this.options.thinkingBudget !== undefined) config.thinkingConfig = { thinkingBudget: this.options.thinkingBudget }
    if (options.signal) config.abortSignal = options.signal
    if (options.tools?.length)
      config.tools = [
        {
          functionDeclarations: options.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: tool.parameters,
          })),
        },
      ]
    let response: GeminiGenerateResponse
    try {
      response = await this.models.generateContent({ model: this.options.model, contents: geminiContents(turns), config })
    } catch (error) {
      throw toProviderError(this.id, error, this.options.apiKey)
    }
    const toolCalls = (response.functionCalls ?? [])
      .filter((call) => call.name)
      .map((call, index) => ({ id: call.id || `call_${index}`, name: call.name!, arguments: call.args ?? {} }))
    const text = typeof response.text === 'string' ? response.text : ''
    if (text.trim() || toolCalls.length) return { text, toolCalls }
    const blocked = response.promptFeedback?.blockReason
    const finish = response.candidates?.[0]?.finishReason
    const why = blocked ? `prompt blocked (${blocked})` : finish ? `no text (finish reason ${finish})` : 'no text in the answer'
    throw new ProviderError(`${this.id}: ${why}`, this.id)
  }
}

/** Turns as Gemini contents: the bot is `model`, a tool result a `functionResponse` part of a user turn. */
function geminiContents(turns: ChatTurn[]): GeminiContent[] {
  const out: GeminiContent[] = []
  for (const turn of turns) {
    if (turn.role === 'system') continue
    if (turn.role === 'tool')
      out.push({
        role: 'user',
        parts: [{ functionResponse: { id: turn.toolCallId, name: turn.name, response: { output: turn.content } } }],
      })
    else if (turn.role === 'assistant')
      out.push({
        role: 'model',
        parts: [
          ...(turn.content ? [{ text: turn.content }] : []),
          ...(turn.toolCalls ?? []).map((call) => ({ functionCall: { id: call.id, name: call.name, args: call.arguments } })),
        ],
      })
    else out.push({ role: 'user', parts: [{ text: turn.content }] })
  }
  return out
}

/**
 * Gemini embeddings. Vectors are checked to have `dims` values and
 * L2-normalised (Gemini's reduced-dimension vectors are not unit length).
 */
export class GeminiEmbedder implements Embedder {
  readonly id: string
  readonly dims: number
  private readonly models: GeminiModelsPort
  private readonly batchSize: number

  constructor(
    private readonly options: GeminiEmbedderOptions,
    models: GeminiModelsPort,
  ) {
    this.id = `gemini:${options.model}`
    this.dims = options.dims ?? 768
    this.batchSize = Math.max(1, options.batchSize ?? 100)
    this.models = models
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize), options.signal)))
    }
    return out
  }

  private async embedBatch(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const config: GeminiEmbedParams['config'] = { outputDimensionality: this.dims }
    if (this.options.taskType) config.taskType = this.options.taskType
    if (signal) config.abortSignal = signal
    let response: { embeddings?: { values?: number[] }[] }
    try {
      response = await this.models.embedContent({ model: this.options.model, contents: texts, config })
    } catch (error) {
      throw toProviderError(this.id, error, this.options.apiKey)
    }
    const embeddings = response.embeddings ?? []
    if (embeddings.length !== texts.length) {
      throw new ProviderError(`${this.id}: asked for ${texts.length} embeddings, got ${embeddings.length}`, this.id)
    }
    return embeddings.map((embedding, i) => {
      const values = embedding.values ?? []
      if (values.length !== this.dims) {
        throw new ProviderError(`${this.id}: embedding ${i} has ${values.length} dimensions, expected ${this.dims}`, this.id)
      }
      return l2normalize(Float32Array.from(values))
    })
  }
}
