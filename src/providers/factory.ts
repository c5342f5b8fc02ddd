import { Context } from 'koishi'
import type { Config } from '../config'
import { LlmJudge } from '../facts/llm-judge'
import type { MemoryJudge } from '../facts/judge'
import { RuleJudge } from '../facts/rule-judge'
import { GeminiEmbedder, GeminiLLM } from './gemini'
import { OfflineEmbedder } from './offline-embedder'
import { OpenAICompatibleEmbedder, OpenAICompatibleLLM } from './openai-compatible'
import { BreakerState, ResilientEmbedder, ResilientLLM } from './resilience'
import { Embedder, LLM } from './types'
import { Counters, Logger } from '../core/observability'

export interface Providers {
  embedder: Embedder
  judge: MemoryJudge
  /** The configured chat model behind its breaker; undefined in the offline rules mode. */
  llm?: LLM
  /** Breaker state of each remote provider. */
  states(): Record<string, BreakerState>
}

/** Why a configured provider cannot be built; the offline one is used instead and this is logged. */
class ProviderConfigError extends Error {}

function requireHttp(ctx: Context, what: string) {
  if (!ctx.http) throw new ProviderConfigError(`${what} needs the http service (@koishijs/plugin-http); it is not loaded`)
  return ctx.http
}

function remoteEmbedder(ctx: Context, config: Config['embedding']): Embedder {
  const { provider, model, apiKey, baseURL, dims, timeout } = config
  if (provider === 'gemini') {
    if (!apiKey) throw new ProviderConfigError('the gemini embedder needs an API key')
    return new GeminiEmbedder({ apiKey, baseUrl: baseURL || undefined, model: model || 'gemini-embedding-001', dims, timeoutMs: timeout })
  }
  if (!baseURL || !model) throw new ProviderConfigError('the openai-compatible embedder needs a base URL and a model')
  return new OpenAICompatibleEmbedder(requireHttp(ctx, 'the openai-compatible embedder'), {
    baseURL, apiKey: apiKey || undefined, model, dims, sendDimensions: config.sendDimensions, timeoutMs: timeout,
  })
}

function remoteLLM(ctx: Context, config: Config['llm']): LLM {
  const { provider, model, apiKey, baseURL, timeout } = config
  if (provider === 'gemini') {
    if (!apiKey) throw new ProviderConfigError('the gemini model needs an API key')
    return new GeminiLLM({ apiKey, baseUrl: baseURL || undefined, model: model || 'gemini-2.5-flash', timeoutMs: timeout })
  }
  if (!baseURL || !model) throw new ProviderConfigError('the openai-compatible model needs a base URL and a model')
  return new OpenAICompatibleLLM(requireHttp(ctx, 'the openai-compatible model'), {
    baseURL, apiKey: apiKey || undefined, model, timeoutMs: timeout,
  })
}

/** Builds the embedder and the judge the configuration asks for, each behind its own breaker. */
export function createProviders(ctx: Context, config: Config, counters: Counters, logger: Logger): Providers {
  const states: Record<string, () => BreakerState> = {}
  const resilience = (label: string, timeoutMs: number) => ({
    label, timeoutMs, halfOpenAfterMs: config.store.retryIntervalSeconds * 1000, logger,
  })

  let embedder: Embedder = new OfflineEmbedder({ dims: config.embedding.dims })
  if (config.embedding.provider !== 'offline') {
    try {
      const remote = new ResilientEmbedder(remoteEmbedder(ctx, config.embedding), resilience('embedder', config.embedding.timeout), counters)
      states.embedder = () => remote.breakerState()
      embedder = remote
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error
      logger.error('%s; using the offline embedder', error.message)
    }
  }

  let judge: MemoryJudge = new RuleJudge()
  let llm: LLM | undefined
  if (config.llm.provider !== 'rules') {
    try {
      const remote = new ResilientLLM(remoteLLM(ctx, config.llm), resilience('llm', config.llm.timeout), counters)
      states.llm = () => remote.breakerState()
      llm = remote
      const { decisionZh, decisionEn, summarizerZh, summarizerEn } = config.prompts
      judge = new LlmJudge(remote, {
        decision: { zh: decisionZh, en: decisionEn },
        summarizer: { zh: summarizerZh, en: summarizerEn },
      }, { counters, logger })
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error
      logger.error('%s; using the offline rules', error.message)
    }
  }

  return {
    embedder,
    judge,
    llm,
    states: () => Object.fromEntries(Object.entries(states).map(([name, state]) => [name, state()])),
  }
}
