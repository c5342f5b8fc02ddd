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
