import type { z } from 'zod'
import { extractJson, isCutShort } from '../text/json'
import type { LLM } from './types'
import { BudgetSpentError, ProviderError } from './types'
import type { Counters, Logger } from '../core/observability'

/** The model's answer could not be read as the expected structure, even after one corrective retry. */
export class StructuredOutputError extends Error {
  constructor(
    message: string,
    /** The call site, e.g. `judge.decide`. */
    readonly label: string,
    /** The last answer received (for debugging; not logged above debug level). */
    readonly lastAnswer: string,
  ) {
    super(message)
    this.name = 'StructuredOutputError'
  }
}

export interface StructuredOptions {
  counters?: Counters
  logger?: Logger
  /** Names the call site in logs and errors, e.g. `judge.decide`. */
  label: string
  system?: string
  temperature?: number
  /** JSON schema of the answer, passed on to providers that accept one. */
  jsonSchema?: Record<string, unknown>
}

/** Longest previous answer quoted back to the model in the corrective retry. */
const MAX_ECHO = 4000

function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ')
}

/**
 * `error` is what the model is told (it may quote its answer); `summary` is safe to log: it names
 * what went wrong without repeating answer text, which can echo the user's words.
 */
type Attempt<T> = { ok: true; value: T } | { ok: false; error: string; summary: string }

function read<T>(answer: string, schema: z.ZodType<T>): Attempt<T> {
  if (isCutShort(answer)) {
    return { ok: false, error: 'the answer stops before its JSON ends; answer again, complete', summary: 'answer cut off' }
  }
  let json: unknown
  try {
    json = extractJson(answer, (value) => schema.safeParse(value).success)
  } catch (error) {
    return { ok: false, error: (error as Error).message, summary: 'no JSON object or array in the answer' }
  }
  const result = schema.safeParse(json)
  if (result.success) return { ok: true, value: result.data }
  const issues = describeZodError(result.error)
  return { ok: false, error: `the JSON does not match the expected shape: ${issues}`, summary: `wrong shape: ${issues}` }
}

function retryPrompt(prompt: string, answer: string, error: string): string {
  const echoed = answer.length > MAX_ECHO ? `${answer.slice(0, MAX_ECHO)}…` : answer
  return [
    prompt,
    '',
    'Your previous answer was:',
    echoed,
    '',
    `It could not be used: ${error}`,
    'Answer again with ONLY valid JSON of the requested shape, without any other text.',
  ].join('\n')
}

/**
 * The one path every structured LLM call takes (ARCHITECTURE decision 4): JSON mode →
 * tolerant extraction (`extractJson`: think blocks, fences, prose, jsonrepair) → zod validation →
 * on failure one retry that shows the model its previous answer and the error → a typed value, or
 * a `StructuredOutputError` (counted as `llm.invalid`; every corrective retry counts as
 * `llm.retried`). Provider failures are counted as
 * `llm.error` and rethrown unchanged (a `ProviderError` stays a `ProviderError`). Prompts and answers
 * are only ever logged at debug level.
 */
export async function generateStructured<T>(llm: LLM, prompt: string, schema: z.ZodType<T>, options: StructuredOptions): Promise<T> {
  const { counters, logger, label } = options
  const call = async (text: string) => {
    try {
      return await llm.generate(text, {
        json: true,
        schema: options.jsonSchema,
        system: options.system,
        temperature: options.temperature,
      })
    } catch (error) {
      // a budget's refusal is no failure: the caller goes its offline way
      if (error instanceof BudgetSpentError) throw error
      counters?.inc('llm.error')
      const status = error instanceof ProviderError && error.status !== undefined ? ` (HTTP ${error.status})` : ''
      logger?.warn('%s: %s call failed%s: %s', label, llm.id, status, (error as Error).message)
      throw error
    }
  }

  const first = await call(prompt)
  const firstTry = read(first, schema)
  if (firstTry.ok) return firstTry.value
  counters?.inc('llm.retried')
  logger?.debug('%s: invalid answer (%s), retrying once: %s', label, firstTry.error, first)

  const second = await call(retryPrompt(prompt, first, firstTry.error))
  const secondTry = read(second, schema)
  if (secondTry.ok) return secondTry.value
  counters?.inc('llm.invalid')
  logger?.warn('%s: invalid answer from %s after one retry: %s', label, llm.id, secondTry.summary)
  logger?.debug('%s: last answer: %s', label, second)
  throw new StructuredOutputError(`${label}: invalid answer after one retry: ${secondTry.summary}`, label, second)
}
