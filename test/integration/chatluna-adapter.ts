import { createRequire } from 'node:module'
import type { Context } from 'koishi'

/**
 * A ChatLuna model adapter for the tests: platform `scripted`, speaking the OpenAI chat-completions
 * and embeddings API to a base URL (the scripted server on loopback). It is built only from
 * ChatLuna's public platform API — `ChatLunaPlugin`, `PlatformModelAndEmbeddingsClient`,
 * `ModelRequester`, `ChatLunaChatModel`, `ChatLunaEmbeddings` — as a published adapter is. None of
 * the published adapters the registry carries runs on koishi-plugin-chatluna 1.3.36 (the ones that
 * take a base URL need `@chatluna/v1-shared-adapter` ≥ 1.0.50 and ChatLuna 1.4; the qwen adapter
 * 1.2.0 calls `initClients`, which 1.3 no longer has, and has a fixed endpoint).
 */

// ChatLuna and the LangChain it uses, as ChatLuna resolves them (one copy of each class)
const chatlunaRequire = createRequire(require.resolve('koishi-plugin-chatluna'))
const { ChatLunaPlugin } = require('koishi-plugin-chatluna/services/chat')
const { PlatformModelAndEmbeddingsClient } = require('koishi-plugin-chatluna/llm-core/platform/client')
const { ModelRequester } = require('koishi-plugin-chatluna/llm-core/platform/api')
const { ChatLunaChatModel, ChatLunaEmbeddings } = require('koishi-plugin-chatluna/llm-core/platform/model')
const { ModelType, ModelCapabilities } = require('koishi-plugin-chatluna/llm-core/platform/types')
const { AIMessageChunk } = chatlunaRequire('@langchain/core/messages')
const { ChatGenerationChunk } = chatlunaRequire('@langchain/core/outputs')
const { zodToJsonSchema } = chatlunaRequire('zod-to-json-schema')

export const name = 'chatluna-scripted-adapter'
export const inject = ['chatluna']

export interface Config {
  baseURL: string
  /** Chat models and embedding models the platform lists. */
  models: string[]
  embeddings: string[]
}

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('')
  return ''
}

/** A LangChain message as an OpenAI chat message. */
function toOpenAI(message: any): Record<string, unknown> {
  const type = message.getType()
  if (type === 'system') return { role: 'system', content: text(message.content) }
  if (type === 'tool') return { role: 'tool', tool_call_id: message.tool_call_id, content: text(message.content) }
  if (type === 'ai') {
    const calls = (message.tool_calls ?? []).map((call: any) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    }))
    return { role: 'assistant', content: text(message.content), ...(calls.length ? { tool_calls: calls } : {}) }
  }
  return { role: 'user', content: text(message.content) }
}

function toolSpec(tool: any) {
  const schema = typeof tool.schema?.safeParse === 'function' ? zodToJsonSchema(tool.schema) : tool.schema
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: schema } }
}

class ScriptedRequester extends ModelRequester {
  logger: any

  constructor(ctx: Context, pool: any, config: any, plugin: any) {
    super(ctx, pool, config, plugin)
    this.logger = ctx.logger('chatluna-scripted')
  }

  async *completionStreamInternal(params: any) {
    const body: Record<string, unknown> = { model: params.model, messages: params.input.map(toOpenAI) }
    if (params.tools?.length) body.tools = params.tools.map(toolSpec)
    if (params.temperature !== undefined) body.temperature = params.temperature
    const response = await this.post('chat/completions', body, { signal: params.signal })
    if (!response.ok) throw new Error(`scripted server: HTTP ${response.status} ${await response.text()}`)
    const data: any = await response.json()
    const message = data.choices?.[0]?.message ?? {}
    const calls = (message.tool_calls ?? []).map((call: any, index: number) => ({
      type: 'tool_call_chunk',
      id: call.id,
      name: call.function?.name,
      args: call.function?.arguments ?? '{}',
      index,
    }))
    const content = text(message.content)
    yield new ChatGenerationChunk({ text: content, message: new AIMessageChunk({ content, tool_call_chunks: calls }) })
  }

  async embeddings(params: any): Promise<number[] | number[][]> {
    const input = Array.isArray(params.input) ? params.input : [params.input]
    const response = await this.post('embeddings', { model: params.model, input })
    if (!response.ok) throw new Error(`scripted server: HTTP ${response.status}`)
    const data: any = await response.json()
    const vectors = data.data.map((item: any) => item.embedding as number[])
    return Array.isArray(params.input) ? vectors : vectors[0]
  }
}

class ScriptedClient extends PlatformModelAndEmbeddingsClient {
  platform = 'scripted'
  private requester: ScriptedRequester

  constructor(
    ctx: Context,
    private options: Config,
    plugin: any,
  ) {
    super(ctx, plugin.platformConfigPool)
    this.requester = new ScriptedRequester(ctx, plugin.platformConfigPool, plugin.config, plugin)
  }

  async refreshModels() {
    return [
      ...this.options.models.map((model) => ({
        name: model,
        type: ModelType.llm,
        maxTokens: 32_000,
        capabilities: [ModelCapabilities.ToolCall],
      })),
      ...this.options.embeddings.map((model) => ({ name: model, type: ModelType.embeddings, maxTokens: 8192, capabilities: [] })),
    ]
  }

  _createModel(model: string) {
    const info = (this as any)._modelInfos[model]
    if (info.type === ModelType.llm) {
      return new ChatLunaChatModel({
        modelInfo: info,
        requester: this.requester,
        model,
        modelMaxContextSize: info.maxTokens,
        maxTokenLimit: 16_000,
        timeout: 10_000,
        temperature: 0,
        maxRetries: 1,
        llmType: 'openai',
      })
    }
    return new ChatLunaEmbeddings({ client: this.requester, model, maxRetries: 1 })
  }
}

export function apply(ctx: Context, config: Config) {
  ctx.on('ready', async () => {
    const plugin = new ChatLunaPlugin(
      ctx,
      {
        chatConcurrentMaxSize: 1,
        chatTimeLimit: 1000,
        timeout: 10_000,
        configMode: 'default',
        maxRetries: 1,
        proxyMode: 'off',
        proxyAddress: '',
      },
      'scripted',
    )
    plugin.parseConfig((pluginConfig: any) => [
      {
        apiKey: 'test-key',
        apiEndpoint: config.baseURL,
        platform: 'scripted',
        chatLimit: pluginConfig.chatTimeLimit,
        timeout: pluginConfig.timeout,
        maxRetries: pluginConfig.maxRetries,
        concurrentMaxSize: pluginConfig.chatConcurrentMaxSize,
      },
    ])
    plugin.registerClient(() => new ScriptedClient(ctx, config, plugin))
    await plugin.initClient()
  })
}
