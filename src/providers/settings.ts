export type EmbeddingProvider = 'offline' | 'gemini' | 'openai-compatible' | 'chatluna'
export type LLMProvider = 'rules' | 'gemini' | 'openai-compatible' | 'chatluna'

/** The embedding model the console configures. */
export interface EmbeddingSettings {
  provider: EmbeddingProvider
  model: string
  apiKey: string
  baseURL: string
  dims: number
  sendDimensions: boolean
  timeout: number
  /** With `chatluna`: ChatLuna's embedding model, `platform/model`. */
  chatlunaModel?: string
}

/** The chat model the console configures (`rules`: none, offline rules). */
export interface LlmSettings {
  provider: LLMProvider
  model: string
  apiKey: string
  baseURL: string
  temperature: number
  timeout: number
  /** With `chatluna`: ChatLuna's chat model, `platform/model`. */
  chatlunaModel?: string
}
