import { Schema } from 'koishi'
import { DEFAULT_EVOLUTION_PROMPTS } from './group'
import { DEFAULT_PROMPTS } from './facts'
import { locales } from './locales'
import type { ScorerWeights } from './context'
import type { EmbeddingSettings, LlmSettings } from './providers/settings'

export type { EmbeddingProvider, LLMProvider } from './providers/settings'

export interface Config {
  embedding: EmbeddingSettings
  llm: LlmSettings
  prompts: {
    extractionZh: string
    extractionEn: string
    groupEvolveZh: string
    groupEvolveEn: string
  }
  store: {
    /** `auto`: LanceDB, or the slower index in the database when LanceDB cannot load on this machine. */
    engine: 'auto' | 'lancedb' | 'database'
    path: string
    factsTable: string
    optimizeEveryWrites: number
    optimizeIntervalMinutes: number
    retryIntervalSeconds: number
    /** The memory budget of every cache (MB, `core/memory-budget.ts`); 0 caches nothing; unset: `memoryMB(store)`. */
    memoryMB?: number
    /** The setting `memoryMB` replaced (the scope cache's cap; a quarter more held channels), still read. */
    cacheMB?: number
  }
  retrieval: {
    topK: number
    minScore: number
    dedupeThreshold: number
    /** Share of BM25 in ranking memories and chat messages (0–1); unset: 1 with the offline embedder, 0.3 with an embedding model. */
    lexicalShare?: number
  }
  capture: {
    mode: 'all' | 'allow' | 'deny'
    channels: string[]
    placeholders: 'zh' | 'en'
  }
  memorize: {
    enabled: boolean
    afterReply: boolean
    privateEvery: number
    groupEvery: number
    quietSeconds: number
    privateQuietSeconds: number
    commandPrefixes: string[]
    queueLimit: number
    retrySeconds: number
    maxAttempts: number
  }
  context: {
    tokenBudget: number
    timeoutMs: number
    maxMessages: number
    timeWindowHours: number
    /** Unset fields keep the scorer's defaults (`DEFAULT_WEIGHTS`). */
    weights: Partial<ScorerWeights>
    threshold?: number
    halfLifeHours?: number
    longTermShare?: number
    summaryShare?: number
    groupShare?: number
    summaryCoverage?: number
    recencyFloor?: number
  }
  topics: {
    enabled: boolean
    joinThreshold?: number
    lowThreshold?: number
    idleMinutes: number
    followMinutes: number
    closeIntervalMinutes: number
    useLlm: boolean
  }
  summaries: {
    enabled: boolean
    countThreshold: number
    minMessages: number
    scheduleIntervalMinutes: number
    keywordWeight: number
    vectorWeight: number
  }
  group: {
    timer: boolean
    hour: number
    days: number
    minMessages: number
    maxMemories: number
    maxMessages: number
    leaseSeconds: number
    includeBotMessages: boolean
    searchThreshold: number
    authority: number
    /** `review`: an evolution's operations wait for an admin (`memory.review`); a group's own mode (`memory.review.mode`) wins. */
    mode: 'auto' | 'review'
    /** Proposals not decided within this many hours expire. */
    reviewExpiryHours: number
  }
  knowledge: {
    enabled: boolean
    consolidateAfter: number
    profileTokens: number
    mergeSimilarity: number
    hotTopicMessages: number
    hotTopicParticipants: number
  }
  /** What a group (or a private chat's user) may spend on the model; a group's own setting (`memory.budget`) wins. */
  budget: {
    /** Model calls a day; 0: the offline rules only; unset: no limit. */
    calls?: number
    /** Prompt tokens a reply's context may take; unset: `context.tokenBudget`. */
    tokens?: number
  }
  chat: ChatConfig
  api: {
    token: string
    prefix: string
  }
  authority: {
    listOthers: number
    stats: number
    transfer: number
    /** `memory.flush`: memorising now what waits. */
    flush: number
    /** The console's Memory page (with `@koishijs/plugin-auth`); each tab also needs its command's authority. */
    console: number
  }
  /** The bridge to ChatLuna (`src/chat/chatluna`), when ChatLuna is loaded. */
  chatluna: {
    enabled: boolean
    /** Add the memory's context to ChatLuna's conversations. */
    prompt: boolean
    /** Register the memory's search tools with ChatLuna. */
    tools: boolean
    /** ChatLuna's chat model (`platform/model`) when a model's provider is `chatluna`. */
    model?: string
    /** ChatLuna's embedding model when the embedder's provider is `chatluna`. */
    embeddings?: string
  }
}

/** The built-in chat (design §7.7): when it answers, with which model, in which voice. */
export interface ChatConfig {
  enabled: boolean
  /** `memory`: the memory's own model (offline rules: the offline answer). */
  model: Omit<LlmSettings, 'provider'> & { provider: 'memory' | LlmSettings['provider'] }
  private: boolean
  mention: boolean
  reply: boolean
  keywords: string[]
  /** Chance of answering any other group message (0–1). */
  probability: number
  cooldownSeconds: number
  maxLength: number
  /** Persona / system prompt; empty: a short built-in one in the user's language. */
  system: string
  personas: { channel: string; prompt: string }[]
  /** Offer the deep searches as tools: when a message points back in time (`auto`), always, or never. */
  tools: 'auto' | 'always' | 'never'
  maxToolCalls: number
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K] }

/** What a user may write: every field has a default. */
export type ConfigInput = DeepPartial<Config>

/**
 * The memory budget when none is set: what a 1 GB machine can give the caches beside Node, Koishi,
 * LanceDB and SQLite, with room left for other plugins.
 */
export const DEFAULT_MEMORY_MB = 128

/**
 * The memory budget in MB: `memoryMB`, else an old `cacheMB` with the quarter more it gave the held
 * channels (so an upgrade keeps the memory it was given), else `DEFAULT_MEMORY_MB`.
 */
export function memoryMB(store: Pick<Config['store'], 'memoryMB' | 'cacheMB'>): number {
  if (store.memoryMB !== undefined) return store.memoryMB
  if (store.cacheMB !== undefined) return Math.round(store.cacheMB * 1.25)
  return DEFAULT_MEMORY_MB
}

export const Config: Schema<ConfigInput, Config> = Schema.object({
  embedding: Schema.object({
    provider: Schema.union(['offline', 'gemini', 'openai-compatible', 'chatluna']).default('offline'),
    model: Schema.string().default(''),
    apiKey: Schema.string().role('secret').default(''),
    baseURL: Schema.string().role('link').default(''),
    dims: Schema.natural().min(8).max(4096).default(512),
    sendDimensions: Schema.boolean().default(false),
    timeout: Schema.natural().role('ms').default(15_000),
  }),
  llm: Schema.object({
    provider: Schema.union(['rules', 'gemini', 'openai-compatible', 'chatluna']).default('rules'),
    model: Schema.string().default(''),
    apiKey: Schema.string().role('secret').default(''),
    baseURL: Schema.string().role('link').default(''),
    temperature: Schema.number().min(0).max(2).step(0.1).default(0.2),
    timeout: Schema.natural().role('ms').default(30_000),
  }),
  prompts: Schema.object({
    extractionZh: Schema.string().role('textarea').default(DEFAULT_PROMPTS.extraction.zh),
    extractionEn: Schema.string().role('textarea').default(DEFAULT_PROMPTS.extraction.en),
    groupEvolveZh: Schema.string().role('textarea').default(DEFAULT_EVOLUTION_PROMPTS.zh),
    groupEvolveEn: Schema.string().role('textarea').default(DEFAULT_EVOLUTION_PROMPTS.en),
  }).collapse(),
  store: Schema.object({
    engine: Schema.union(['auto', 'lancedb', 'database']).default('auto'),
    path: Schema.string().default('data/memory/lancedb'),
    factsTable: Schema.string()
      .pattern(/^[A-Za-z0-9_]+$/)
      .default('memories'),
    optimizeEveryWrites: Schema.natural().min(1).default(200),
    optimizeIntervalMinutes: Schema.natural().min(1).default(30),
    retryIntervalSeconds: Schema.natural().min(1).default(30),
    memoryMB: Schema.natural().max(1 << 20),
    cacheMB: Schema.natural()
      .max(1 << 20)
      .hidden(),
  }).collapse(),
  retrieval: Schema.object({
    topK: Schema.natural().min(1).max(50).default(5),
    minScore: Schema.number().min(0).max(1).step(0.01).default(0.05),
    dedupeThreshold: Schema.number().min(0.5).max(1).step(0.01).default(0.85),
    lexicalShare: Schema.number().min(0).max(1).step(0.01),
  }).collapse(),
  capture: Schema.object({
    mode: Schema.union(['all', 'allow', 'deny']).default('all'),
    channels: Schema.array(String).role('table').default([]),
    placeholders: Schema.union(['zh', 'en']).default('zh'),
  }).collapse(),
  memorize: Schema.object({
    enabled: Schema.boolean().default(true),
    afterReply: Schema.boolean().default(true),
    privateEvery: Schema.natural().default(5),
    groupEvery: Schema.natural().default(30),
    quietSeconds: Schema.natural().default(600),
    privateQuietSeconds: Schema.natural().default(60),
    commandPrefixes: Schema.array(String).default(['/', '.', '。']),
    queueLimit: Schema.natural().min(1).default(200),
    retrySeconds: Schema.natural().min(1).default(30),
    maxAttempts: Schema.natural().min(1).max(20).default(8),
  }).collapse(),
  context: Schema.object({
    tokenBudget: Schema.natural().min(100).default(2000),
    timeoutMs: Schema.natural().role('ms').min(100).default(5000),
    maxMessages: Schema.natural().max(500).default(50),
    timeWindowHours: Schema.number().min(0).max(720).default(24),
    weights: Schema.object({
      replyChain: Schema.number().min(0).max(2).step(0.01),
      userContinuity: Schema.number().min(0).max(2).step(0.01),
      timeDecay: Schema.number().min(0).max(2).step(0.01),
      mentionRelation: Schema.number().min(0).max(2).step(0.01),
      keywordOverlap: Schema.number().min(0).max(2).step(0.01),
      semantic: Schema.number().min(0).max(2).step(0.01),
      sameTopic: Schema.number().min(0).max(2).step(0.01),
    }),
    threshold: Schema.number().min(0).max(1).step(0.01),
    halfLifeHours: Schema.number().min(0.1).max(720),
    longTermShare: Schema.number().min(0).max(0.5).step(0.01),
    summaryShare: Schema.number().min(0).max(0.5).step(0.01),
    groupShare: Schema.number().min(0).max(0.5).step(0.01),
    summaryCoverage: Schema.number().min(0).max(1).step(0.01),
    recencyFloor: Schema.number().min(0).max(1).step(0.01),
  }).collapse(),
  topics: Schema.object({
    enabled: Schema.boolean().default(true),
    joinThreshold: Schema.number().min(0).max(1).step(0.01),
    lowThreshold: Schema.number().min(0).max(1).step(0.01),
    idleMinutes: Schema.natural().min(1).default(60),
    followMinutes: Schema.natural().default(10),
    closeIntervalMinutes: Schema.natural().min(1).default(5),
    useLlm: Schema.boolean().default(false),
  }).collapse(),
  summaries: Schema.object({
    enabled: Schema.boolean().default(true),
    countThreshold: Schema.natural().default(50),
    minMessages: Schema.natural().min(1).default(30),
    scheduleIntervalMinutes: Schema.natural().default(60),
    keywordWeight: Schema.number().min(0).max(1).step(0.05).default(0.4),
    vectorWeight: Schema.number().min(0).max(1).step(0.05).default(0.6),
  }).collapse(),
  group: Schema.object({
    timer: Schema.boolean().default(true),
    hour: Schema.natural().max(23).default(4),
    days: Schema.natural().min(1).max(90).default(1),
    minMessages: Schema.natural().min(1).default(50),
    maxMemories: Schema.natural().min(1).max(500).default(50),
    maxMessages: Schema.natural().min(1).max(2000).default(200),
    leaseSeconds: Schema.natural().min(1).default(600),
    includeBotMessages: Schema.boolean().default(false),
    searchThreshold: Schema.number().min(0).max(1).step(0.01).default(0),
    authority: Schema.natural().max(5).default(3),
    mode: Schema.union(['auto', 'review']).default('auto'),
    reviewExpiryHours: Schema.natural().min(1).max(8760).default(72),
  }).collapse(),
  knowledge: Schema.object({
    enabled: Schema.boolean().default(true),
    consolidateAfter: Schema.natural().min(1).default(5),
    profileTokens: Schema.natural().max(2000).default(200),
    mergeSimilarity: Schema.number().min(0).max(1).step(0.01).default(0.9),
    hotTopicMessages: Schema.natural().min(1).default(30),
    hotTopicParticipants: Schema.natural().min(1).default(3),
  }).collapse(),
  budget: Schema.object({
    calls: Schema.natural(),
    tokens: Schema.natural().min(100),
  }).collapse(),
  chat: Schema.object({
    enabled: Schema.boolean().default(false),
    model: Schema.object({
      provider: Schema.union(['memory', 'gemini', 'openai-compatible', 'chatluna']).default('memory'),
      model: Schema.string().default(''),
      apiKey: Schema.string().role('secret').default(''),
      baseURL: Schema.string().role('link').default(''),
      temperature: Schema.number().min(0).max(2).step(0.1).default(0.7),
      timeout: Schema.natural().role('ms').default(30_000),
    }),
    private: Schema.boolean().default(true),
    mention: Schema.boolean().default(true),
    reply: Schema.boolean().default(true),
    keywords: Schema.array(String).default([]),
    probability: Schema.number().min(0).max(1).step(0.01).default(0),
    cooldownSeconds: Schema.natural().default(3),
    maxLength: Schema.natural().min(20).max(4000).default(500),
    system: Schema.string().role('textarea').default(''),
    personas: Schema.array(Schema.object({ channel: Schema.string().required(), prompt: Schema.string().role('textarea') }))
      .role('table')
      .default([]),
    tools: Schema.union(['auto', 'always', 'never']).default('auto'),
    maxToolCalls: Schema.natural().max(10).default(3),
  }).collapse(),
  api: Schema.object({
    token: Schema.string().role('secret').default(''),
    prefix: Schema.string().default(''),
  }).collapse(),
  authority: Schema.object({
    listOthers: Schema.natural().max(5).default(3),
    stats: Schema.natural().max(5).default(3),
    transfer: Schema.natural().max(5).default(4),
    flush: Schema.natural().max(5).default(3),
    console: Schema.natural().max(5).default(4),
  }).collapse(),
  chatluna: Schema.object({
    enabled: Schema.boolean().default(true),
    prompt: Schema.boolean().default(true),
    tools: Schema.boolean().default(true),
    // the model lists ChatLuna offers its own settings (its dynamic schemas)
    model: Schema.dynamic('model'),
    embeddings: Schema.dynamic('embeddings'),
  }).collapse(),
}).i18n({
  'zh-CN': locales['zh-CN']._config,
  'en-US': locales['en-US']._config,
}) as Schema<ConfigInput, Config>
