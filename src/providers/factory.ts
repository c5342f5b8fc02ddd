import type { HTTP } from 'koishi'
import type { Counters, Logger } from '../core/observability'
import type { ChatLunaSource } from './chatluna'
import { ChatLunaEmbedder, ChatLunaLLM } from './chatluna'
import { GeminiEmbedder, GeminiLLM } from './gemini'
import { GeminiRestModels } from './gemini-rest'
import { OfflineEmbedder } from './offline-embedder'
import { OpenAICompatibleEmbedder, OpenAICompatibleLLM } from './openai-compatible'
import type { BreakerState } from './resilience'
import { ResilientEmbedder, ResilientLLM } from './resilience'
import type { EmbeddingSettings, LlmSettings } from './settings'
import type { Embedder, LLM } from './types'

/**
 * Why a configured provider could not be used: no key, no base URL or model, no http service, an
 * unknown name; for ChatLuna's models, ChatLuna not installed or no model chosen.
 */
export type FallbackReason = 'no-key' | 'no-endpoint' | 'no-http' | 'unknown' | 'no-chatluna' | 'no-model'

/** How the providers reach ChatLuna: whether its package is installed, and its service once it is loaded. */
export interface ChatLunaAccess {
  installed: boolean
  source: ChatLunaSource
}

/** The provider the settings name, and the one in use (the offline one when it could not be built). */
export interface ProviderChoice {
  configured: string
  used: string
  fallback?: FallbackReason
}

export interface Providers {
  embedder: Embedder
  /** The configured chat model behind its breaker; undefined in the offline rules mode. */
  llm?: LLM
  /** Breaker state of each remote provider. */
  states(): Record<string, BreakerState>
  choices: { embedder: ProviderChoice; llm: ProviderChoice }
}

/** Why a configured provider cannot be built; the offline one is used instead and this is logged. */
class ProviderConfigError extends Error {
  constructor(
    message: string,
    readonly reason: FallbackReason,
  ) {
    super(message)
  }
}

function requireHttp(http: HTTP | undefined, what: string) {
  if (!http) throw new ProviderConfigError(`${what} needs the http service (@koishijs/plugin-http); it is not loaded`, 'no-http')
  return http
}

function requireChatLuna(chatluna: ChatLunaAccess | undefined, model: unknown, what: string) {
  if (!chatluna?.installed) throw new ProviderConfigError(`${what} needs koishi-plugin-chatluna; it is not installed`, 'no-chatluna')
  if (typeof model !== 'string' || !model.includes('/'))
    throw new ProviderConfigError(`${what} needs one of ChatLuna's models (platform/model)`, 'no-model')
  return { source: chatluna.source, model }
}

function remoteEmbedder(http: HTTP | undefined, settings: EmbeddingSettings, chatluna?: ChatLunaAccess): Embedder {
  const { provider, model, apiKey, baseURL, dims, timeout } = settings
  switch (provider) {
    case 'gemini': {
      if (!apiKey) throw new ProviderConfigError('the gemini embedder needs an API key', 'no-key')
      const options = { apiKey, baseUrl: baseURL || undefined, model: model || 'gemini-embedding-001', dims, timeoutMs: timeout }
      return new GeminiEmbedder(options, new GeminiRestModels(requireHttp(http, 'the gemini embedder'), options))
    }
    case 'openai-compatible':
      if (!baseURL || !model) throw new ProviderConfigError('the openai-compatible embedder needs a base URL and a model', 'no-endpoint')
      return new OpenAICompatibleEmbedder(requireHttp(http, 'the openai-compatible embedder'), {
        baseURL,
        apiKey: apiKey || undefined,
        model,
        dims,
        sendDimensions: settings.sendDimensions,
        timeoutMs: timeout,
      })
    case 'chatluna': {
      const { source, model } = requireChatLuna(chatluna, settings.chatlunaModel, "ChatLuna's embedder")
      return new ChatLunaEmbedder(source, { model, dims })
    }
    case 'offline':
      return new OfflineEmbedder({ dims })
    default:
      throw new ProviderConfigError(`unknown embedding provider ${JSON.stringify(provider satisfies never)}`, 'unknown')
  }
}

function remoteLLM(http: HTTP | undefined, settings: LlmSettings, chatluna?: ChatLunaAccess): LLM {
  const { provider, model, apiKey, baseURL, timeout } = settings
  switch (provider) {
    case 'gemini': {
      if (!apiKey) throw new ProviderConfigError('the gemini model needs an API key', 'no-key')
      const options = { apiKey, baseUrl: baseURL || undefined, model: model || 'gemini-2.5-flash', timeoutMs: timeout }
      return new GeminiLLM(options, new GeminiRestModels(requireHttp(http, 'the gemini model'), options))
    }
    case 'openai-compatible':
      if (!baseURL || !model) throw new ProviderConfigError('the openai-compatible model needs a base URL and a model', 'no-endpoint')
      return new OpenAICompatibleLLM(requireHttp(http, 'the openai-compatible model'), {
        baseURL,
        apiKey: apiKey || undefined,
        model,
        timeoutMs: timeout,
      })
    case 'chatluna': {
      const { source, model } = requireChatLuna(chatluna, settings.chatlunaModel, "ChatLuna's model")
      return new ChatLunaLLM(source, { model })
    }
    case 'rules':
      throw new ProviderConfigError('the rules mode has no model', 'unknown')
    default:
      throw new ProviderConfigError(`unknown model provider ${JSON.stringify(provider satisfies never)}`, 'unknown')
  }
}

export interface ProviderSettings {
  embedding: EmbeddingSettings
  llm: LlmSettings
  /** How long a tripped breaker waits before it tries the provider again. */
  retryIntervalSeconds: number
}

/**
 * Builds the embedder and the chat model the settings ask for, each behind its own breaker. A
 * provider that cannot be built (no key, no URL, an unknown name) is logged and the offline one used.
 * ChatLuna's models are looked up at each call (ChatLuna may load after the memory, or go away).
 */
export function createProviders(
  http: HTTP | undefined,
  settings: ProviderSettings,
  counters: Counters,
  logger: Logger,
  chatluna?: ChatLunaAccess,
): Providers {
  const states: Record<string, () => BreakerState> = {}
  const resilience = (label: string, timeoutMs: number) => ({
    label,
    timeoutMs,
    halfOpenAfterMs: settings.retryIntervalSeconds * 1000,
    logger,
  })

  let embedder: Embedder = new OfflineEmbedder({ dims: settings.embedding.dims })
  const choices: Providers['choices'] = {
    embedder: { configured: settings.embedding.provider, used: 'offline' },
    llm: { configured: settings.llm.provider, used: 'rules' },
  }
  if (settings.embedding.provider !== 'offline') {
    try {
      const remote = new ResilientEmbedder(
        remoteEmbedder(http, settings.embedding, chatluna),
        resilience('embedder', settings.embedding.timeout),
        counters,
      )
      states.embedder = () => remote.breakerState()
      embedder = remote
      choices.embedder.used = settings.embedding.provider
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error
      choices.embedder.fallback = error.reason
      logger.debug('%s; using the offline embedder', error.message)
    }
  }

  const model = createChatModel(http, settings.llm, settings.retryIntervalSeconds, counters, logger, { chatluna })
  const llm = model.llm
  choices.llm = model.choice
  if (model.llm) states.llm = () => model.llm!.breakerState()

  return {
    embedder,
    llm,
    choices,
    states: () => Object.fromEntries(Object.entries(states).map(([name, state]) => [name, state()])),
  }
}

/**
 * One chat model behind its breaker, as the settings name it; none in the rules mode or when it
 * cannot be built (logged, with the reason in `choice`).
 */
export function createChatModel(
  http: HTTP | undefined,
  settings: LlmSettings,
  retryIntervalSeconds: number,
  counters: Counters,
  logger: Logger,
  { label = 'llm', chatluna }: { label?: string; chatluna?: ChatLunaAccess } = {},
): { llm?: ResilientLLM; choice: ProviderChoice } {
  const choice: ProviderChoice = { configured: settings.provider, used: 'rules' }
  if (settings.provider === 'rules') return { choice }
  try {
    const llm = new ResilientLLM(
      remoteLLM(http, settings, chatluna),
      { label, timeoutMs: settings.timeout, halfOpenAfterMs: retryIntervalSeconds * 1000, logger },
      counters,
    )
    return { llm, choice: { ...choice, used: settings.provider } }
  } catch (error) {
    if (!(error instanceof ProviderConfigError)) throw error
    logger.debug('%s; using the offline rules', error.message)
    return { choice: { ...choice, fallback: error.reason } }
  }
}
