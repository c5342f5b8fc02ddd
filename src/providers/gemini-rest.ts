import type {
  GeminiClientOptions,
  GeminiContent,
  GeminiEmbedParams,
  GeminiGenerateParams,
  GeminiGenerateResponse,
  GeminiModelsPort,
} from './gemini'
import type { HttpPort } from './openai-compatible'

/** Where Gemini's API lives when no other endpoint (a proxy) is given. */
const DEFAULT_BASE = 'https://generativelanguage.googleapis.com'
const API_VERSION = 'v1beta'

/** The parts of a `generateContent` answer that are read; every field is checked, the answer is from outside. */
interface WireAnswer {
  candidates?: { content?: { parts?: unknown }; finishReason?: unknown }[]
  promptFeedback?: { blockReason?: unknown }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

function modelPath(model: string): string {
  return /^(models|tunedModels)\//.test(model) ? model : `models/${model}`
}

function text(value: string): GeminiContent {
  return { role: 'user', parts: [{ text: value }] }
}

/** A `generateContent` answer as the providers read it: the text parts (not the model's thoughts) joined, and the function calls. */
function readAnswer(data: unknown): GeminiGenerateResponse {
  const answer = (record(data) ?? {}) as WireAnswer
  const first = Array.isArray(answer.candidates) ? record(answer.candidates[0]) : undefined
  const parts = Array.isArray(record(first?.content)?.parts) ? (record(first?.content)!.parts as unknown[]).map(record) : []
  const texts = parts.filter((part) => typeof part?.text === 'string' && part.thought !== true).map((part) => part!.text as string)
  const functionCalls = parts.flatMap((part) => {
    const call = record(part?.functionCall)
    if (!call) return []
    return [
      {
        id: typeof call.id === 'string' ? call.id : undefined,
        name: typeof call.name === 'string' ? call.name : undefined,
        args: record(call.args),
      },
    ]
  })
  const finishReason = first?.finishReason
  const blockReason = record(answer.promptFeedback)?.blockReason
  return {
    text: texts.length ? texts.join('') : undefined,
    functionCalls: functionCalls.length ? functionCalls : undefined,
    promptFeedback: typeof blockReason === 'string' ? { blockReason } : undefined,
    candidates: typeof finishReason === 'string' ? [{ finishReason }] : undefined,
  }
}

/**
 * Gemini's REST API (`models/*:generateContent`, `models/*:batchEmbedContents`) through Koishi's
 * `ctx.http`, in the shape of the SDK's `models` the providers were written against. The key goes in
 * the `x-goog-api-key` header, never in the URL; errors are `ctx.http`'s (status in `response`).
 */
export class GeminiRestModels implements GeminiModelsPort {
  private readonly base: string

  constructor(
    private readonly http: HttpPort,
    private readonly options: GeminiClientOptions,
  ) {
    this.base = `${(options.baseUrl || DEFAULT_BASE).replace(/\/+$/, '')}/${API_VERSION}`
  }

  async generateContent(params: GeminiGenerateParams): Promise<GeminiGenerateResponse> {
    const { systemInstruction, tools, abortSignal, ...generationConfig } = params.config
    const body: Record<string, unknown> = {
      contents: typeof params.contents === 'string' ? [text(params.contents)] : params.contents,
    }
    if (systemInstruction) body.systemInstruction = text(systemInstruction)
    if (tools) body.tools = tools
    if (Object.keys(generationConfig).length) body.generationConfig = generationConfig
    return readAnswer(await this.post(`${modelPath(params.model)}:generateContent`, body, abortSignal))
  }

  async embedContent(params: GeminiEmbedParams): Promise<{ embeddings?: { values?: number[] }[] }> {
    const { abortSignal, ...config } = params.config
    const model = modelPath(params.model)
    const requests = params.contents.map((content) => ({ model, content: { parts: [{ text: content }] }, ...config }))
    const embeddings = record(await this.post(`${model}:batchEmbedContents`, { requests }, abortSignal))?.embeddings
    if (!Array.isArray(embeddings)) return {}
    return {
      embeddings: embeddings.map((embedding) => {
        const values = record(embedding)?.values
        return { values: Array.isArray(values) && values.every((v) => typeof v === 'number') ? (values as number[]) : undefined }
      }),
    }
  }

  private post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.http.post(`${this.base}/${path}`, body, {
      headers: { 'x-goog-api-key': this.options.apiKey },
      timeout: this.options.timeoutMs,
      signal,
    })
  }
}
