import type { ChatOptions, ChatReply, ChatTurn, EmbedOptions, Embedder, GenerateOptions, LLM, ToolCall } from './types'
import { ProviderError } from './types'
import { l2normalize } from './vectors'

/**
 * ChatLuna's models as the memory's `LLM` and `Embedder` (koishi-plugin-chatluna 1.3). ChatLuna is an
 * optional plugin that starts on Koishi's `ready`, usually after the memory, and its adapters list
 * their models later still; so nothing is resolved when these are built. Each call looks up
 * ChatLuna's service (waiting a little for it, and for the model's platform to load), then asks
 * ChatLuna for the model by its full name, `platform/model` — the names ChatLuna offers the console
 * through its dynamic schemas `model` and `embeddings`.
 *
 * Only this structural slice of ChatLuna's API is used, so the plugin neither imports nor needs
 * ChatLuna's code: `ctx.chatluna.platform.findModel`, `awaitLoadPlatform`, `createChatModel` and
 * `createEmbeddings` (ChatLuna's `services/chat` and `llm-core/platform/service`); a chat model is a
 * LangChain chat model (`invoke` takes `{role, content}` message likes and `tools` in its options),
 * embeddings are LangChain embeddings (`embedDocuments`).
 */

/** A model as ChatLuna lists it: `type` 1 is a chat model, 2 an embedding model (`ModelType`). */
export interface ChatLunaModelInfo {
  name: string
  type: number
}

/** A value ChatLuna hands out reactively (a Vue `ComputedRef`); `value` is read at each use. */
export interface ChatLunaRef<T> {
  readonly value: T
}

/** The message a LangChain chat model answers with. */
export interface ChatLunaAnswer {
  content: unknown
  tool_calls?: { id?: string; name: string; args?: Record<string, unknown> }[]
}

export interface ChatLunaChatModel {
  invoke(messages: Record<string, unknown>[], options?: Record<string, unknown>): Promise<ChatLunaAnswer>
}

export interface ChatLunaEmbeddings {
  embedDocuments(texts: string[]): Promise<number[][]>
}

/** The part of ChatLuna's service (`ctx.chatluna`) the providers call. */
export interface ChatLunaService {
  platform: { findModel(fullName: string): ChatLunaRef<ChatLunaModelInfo | null> }
  awaitLoadPlatform(platform: string, timeout?: number): Promise<void>
  createChatModel(fullName: string): Promise<ChatLunaRef<ChatLunaChatModel | undefined>>
  createEmbeddings(fullName: string): Promise<ChatLunaRef<ChatLunaEmbeddings | undefined>>
}

/** Where the providers find ChatLuna: its service now, or undefined while it is not loaded. */
export type ChatLunaSource = () => ChatLunaService | undefined

/** ChatLuna's `ModelType` values. */
const LLM_TYPE = 1
const EMBEDDINGS_TYPE = 2

/** True when `koishi-plugin-chatluna` is installed beside this plugin (it may still not be enabled). */
export function chatlunaInstalled(resolve: (id: string) => string = require.resolve): boolean {
  try {
    resolve('koishi-plugin-chatluna')
    return true
  } catch {
    return false
  }
}

export interface ChatLunaProviderOptions {
  /** `platform/model`, as ChatLuna names it. */
  model: string
  /** How long a call waits for ChatLuna to load, and then for the model's platform to list its models. Default 10 s. */
  waitMs?: number
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
  })

/**
 * Finds ChatLuna and a model of the wanted type in it, waiting up to `waitMs` for each. Throws a
 * retryable `ProviderError` while ChatLuna or the model's platform is not loaded, and a final one
 * when the platform is loaded and lists no such model.
 */
class ChatLunaModelLookup<T> {
  private readonly waitMs: number
  private readonly platform: string
  /** The model's ref, made once per ChatLuna service (a restarted ChatLuna is a new service). */
  private refs = new WeakMap<ChatLunaService, Promise<ChatLunaRef<T | undefined>>>()

  constructor(
    readonly id: string,
    private readonly source: ChatLunaSource,
    private readonly options: ChatLunaProviderOptions,
    private readonly type: number,
    private readonly create: (service: ChatLunaService, name: string) => Promise<ChatLunaRef<T | undefined>>,
  ) {
    this.waitMs = options.waitMs ?? 10_000
    this.platform = options.model.split('/')[0]
  }

  async model(signal?: AbortSignal): Promise<T> {
    const deadline = Date.now() + this.waitMs
    let service = this.source()
    while (!service && Date.now() < deadline && !signal?.aborted) {
      await sleep(Math.min(250, deadline - Date.now()), signal)
      service = this.source()
    }
    if (!service) throw new ProviderError(`${this.id}: ChatLuna is not loaded`, this.id, undefined, true)

    const name = this.options.model
    let info = service.platform.findModel(name).value
    if (!info) {
      // the adapter may still be listing its models; ChatLuna says when the platform has some
      const left = Math.max(0, deadline - Date.now())
      const loaded = await service.awaitLoadPlatform(this.platform, left).then(
        () => true,
        () => false,
      )
      info = service.platform.findModel(name).value
      if (!info && !loaded)
        throw new ProviderError(`${this.id}: ChatLuna has not loaded the platform ${this.platform}`, this.id, undefined, true)
    }
    const kind = this.type === LLM_TYPE ? 'chat model' : 'embedding model'
    if (!info || info.type !== this.type)
      throw new ProviderError(`${this.id}: ChatLuna lists no ${kind} ${name}`, this.id, undefined, false)

    let ref = this.refs.get(service)
    if (!ref) {
      ref = this.create(service, name)
      this.refs.set(service, ref)
      ref.catch(() => this.refs.delete(service))
    }
    const model = (await ref).value
    if (!model) throw new ProviderError(`${this.id}: ChatLuna could not make the ${kind} ${name}`, this.id, undefined, true)
    return model
  }
}

/** Text of a LangChain message's content: a string, or a list of parts of which the text ones count. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown }
      return (type === undefined || type === 'text') && typeof text === 'string' ? text : ''
    })
    .join('')
}

/** A chat turn as a LangChain message like (`coerceMessageLikeToMessage` makes the message). */
function messageLike(turn: ChatTurn): Record<string, unknown> {
  switch (turn.role) {
    case 'assistant':
      return turn.toolCalls?.length
        ? {
            role: 'assistant',
            content: turn.content,
            tool_calls: turn.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.arguments, type: 'tool_call' })),
          }
        : { role: 'assistant', content: turn.content }
    case 'tool':
      return { role: 'tool', content: turn.content, tool_call_id: turn.toolCallId, name: turn.name }
    default:
      return { role: turn.role, content: turn.content }
  }
}

/** ChatLuna's failure as a `ProviderError`: aborted and timed-out requests and network trouble may be tried again. */
function wrap(id: string, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error
  const message = error instanceof Error ? error.message : String(error)
  const retryable = /abort|timeout|timed out|network|ECONN|fetch failed|429|rate/i.test(message)
  const wrapped = new ProviderError(`${id}: ${message.slice(0, 300)}`, id, undefined, retryable)
  ;(wrapped as { cause?: unknown }).cause = error
  return wrapped
}

/**
 * A chat model of ChatLuna. ChatLuna has no JSON mode common to its adapters, so `json` and `schema`
 * are left to the tolerant parsing every structured call goes through (`generateStructured`).
 */
export class ChatLunaLLM implements LLM {
  readonly id: string
  private readonly lookup: ChatLunaModelLookup<ChatLunaChatModel>

  constructor(source: ChatLunaSource, options: ChatLunaProviderOptions) {
    this.id = `chatluna:${options.model}`
    this.lookup = new ChatLunaModelLookup(this.id, source, options, LLM_TYPE, (service, name) => service.createChatModel(name))
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    const turns: ChatTurn[] = []
    if (options.system) turns.push({ role: 'system', content: options.system })
    turns.push({ role: 'user', content: prompt })
    const reply = await this.chat(turns, { temperature: options.temperature, signal: options.signal })
    if (!reply.text.trim()) throw new ProviderError(`${this.id}: no text in the answer`, this.id)
    return reply.text
  }

  async chat(turns: ChatTurn[], options: ChatOptions = {}): Promise<ChatReply> {
    const model = await this.lookup.model(options.signal)
    const callOptions: Record<string, unknown> = {}
    if (options.temperature !== undefined) callOptions.temperature = options.temperature
    if (options.maxTokens !== undefined) callOptions.maxTokens = options.maxTokens
    if (options.signal) callOptions.signal = options.signal
    // adapters read `name`, `description` and `schema` (JSON schema, or zod); some edit the schema, so each call gets a copy
    if (options.tools?.length)
      callOptions.tools = options.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        schema: structuredClone(tool.parameters),
      }))
    let answer: ChatLunaAnswer
    try {
      answer = await model.invoke(turns.map(messageLike), callOptions)
    } catch (error) {
      throw wrap(this.id, error)
    }
    const toolCalls: ToolCall[] = (answer.tool_calls ?? []).map((call, index) => ({
      id: call.id || `call_${index}`,
      name: call.name,
      arguments: call.args && typeof call.args === 'object' ? call.args : {},
    }))
    return { text: textOf(answer.content), toolCalls }
  }
}

/** An embedding model of ChatLuna; vectors are checked against `dims` and L2-normalised. */
export class ChatLunaEmbedder implements Embedder {
  readonly id: string
  readonly dims: number
  private readonly lookup: ChatLunaModelLookup<ChatLunaEmbeddings>

  constructor(source: ChatLunaSource, options: ChatLunaProviderOptions & { dims: number }) {
    if (!Number.isInteger(options.dims) || options.dims <= 0)
      throw new RangeError(`embedding dims must be a positive integer, got ${options.dims}`)
    this.id = `chatluna:${options.model}`
    this.dims = options.dims
    this.lookup = new ChatLunaModelLookup(this.id, source, options, EMBEDDINGS_TYPE, (service, name) => service.createEmbeddings(name))
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (!texts.length) return []
    const model = await this.lookup.model(options.signal)
    let vectors: number[][]
    try {
      vectors = await model.embedDocuments(texts)
    } catch (error) {
      throw wrap(this.id, error)
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new ProviderError(
        `${this.id}: asked for ${texts.length} embeddings, got ${Array.isArray(vectors) ? vectors.length : 0}`,
        this.id,
      )
    }
    return vectors.map((values, i) => {
      if (!Array.isArray(values) || values.length !== this.dims) {
        const got = Array.isArray(values) ? values.length : 0
        throw new ProviderError(
          `${this.id}: embedding ${i} has ${got} dimensions, expected ${this.dims} (set the embedding dimensions to ${got})`,
          this.id,
          undefined,
          false,
        )
      }
      return l2normalize(Float32Array.from(values))
    })
  }
}
