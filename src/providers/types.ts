/** A text embedder. Vectors are L2-normalised so cosine similarity is a dot product. */
export interface Embedder {
  /** Stable identity of the model that made the vectors, e.g. `offline-ngram-v1`, `gemini:gemini-embedding-001`. */
  readonly id: string
  readonly dims: number
  /**
   * True when its similarity only measures shared words and characters (the offline embedder), not
   * meaning: a ranking then trusts BM25, which also knows how rare each shared word is.
   */
  readonly lexical?: boolean
  /** `signal` aborts the request when the caller gives up on it (a timeout). */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>
}

export interface EmbedOptions {
  signal?: AbortSignal
}

export interface GenerateOptions {
  /** Ask the provider for a JSON answer (JSON mode / response MIME type) where it has one. */
  json?: boolean
  /** JSON schema of the expected answer, for providers that accept one. */
  schema?: Record<string, unknown>
  system?: string
  temperature?: number
  /** Aborts the request when the caller gives up on it (a timeout). */
  signal?: AbortSignal
}

/** A chat model. Implementations throw `ProviderError` on failure. */
export interface LLM {
  readonly id: string
  generate(prompt: string, options?: GenerateOptions): Promise<string>
  /** A conversation with function calling; models that have none leave it out. */
  chat?(turns: ChatTurn[], options?: ChatOptions): Promise<ChatReply>
}

/**
 * A function-calling tool, as OpenAI-compatible APIs, Gemini and ChatLuna describe it: a name, what it
 * does and the JSON schema of its arguments, which the model is shown, and the handler that runs a call
 * (bound by whoever made the tool, e.g. to one chat's scope: the model chooses only the arguments).
 */
export interface ToolDefinition<Args = Record<string, unknown>, Result = { text: string }> {
  name: string
  description: string
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>
  handler(args: Args): Promise<Result>
}

/** A call the model asked for; `id` pairs it with its result. */
export interface ToolCall {
  id: string
  name: string
  arguments: Record<string, unknown>
}

/** One turn of a conversation: a tool's result answers the call with the same `toolCallId`. */
export type ChatTurn =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string }

/** A turn of a prompt as it is assembled (`assemblePrompt`): any turn but a tool's result. */
export type ChatMessage = Exclude<ChatTurn, { role: 'tool' }>

export interface ChatOptions {
  /** The tools offered, as the model is shown them. */
  tools?: Omit<ToolDefinition, 'handler'>[]
  temperature?: number
  /** Most tokens of the answer. */
  maxTokens?: number
  signal?: AbortSignal
}

/** The model's answer: its text, and the tools it wants called first (none: the text is the reply). */
export interface ChatReply {
  text: string
  toolCalls: ToolCall[]
}

/** A failure talking to a provider. `status` is the HTTP status when there was one. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly provider: string,
    readonly status?: number,
    readonly retryable = status === 429 || (status !== undefined && status >= 500),
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}

/**
 * The call was not made: the day's model-call budget of the group (or private chat) it was for is
 * spent (`budget/`). The caller does the work its offline way; nothing failed.
 */
export class BudgetSpentError extends ProviderError {
  constructor(provider: string) {
    super(`${provider}: the day's model-call budget is spent`, provider, undefined, false)
    this.name = 'BudgetSpentError'
  }
}
