import type { GenerateOptions, LLM } from '../../src/providers/types'

/** One call to a `FakeLLM`. */
export interface LlmCall<Input = unknown> {
  readonly prompt: string
  readonly options?: GenerateOptions
  /** `options.system`. */
  readonly system?: string
  /** The prompt parsed as JSON (read it only when the prompt is JSON, e.g. a group evolution's). */
  readonly input: Input
}

/** An answer computed from the call; it may be async (to hang, or to wait on `options.signal`). */
export type Reply<Input = unknown> = (call: LlmCall<Input>) => string | Promise<string>

/** One scripted outcome: an answer, an error to throw, an answer made from the call, or a late answer. */
export type Step<Input = unknown> = string | Error | Reply<Input> | { delayMs: number; value: string }

/** The JSON prompt of a group evolution (`evolutionInput` in src/group/evolution.ts). */
export interface EvolutionInput {
  existing_memories: { id: number; statement: string; version: number }[]
  new_discussions: string[]
}

/**
 * The one fake chat model of the tests. It answers from a script (each call takes the next step;
 * an exhausted script throws) or from one function of every call, and records the calls. A test
 * can hold every answer back with `gate` until it resolves.
 */
export class FakeLLM<Input = unknown> implements LLM {
  readonly id: string
  readonly calls: LlmCall<Input>[] = []
  gate?: Promise<void>

  constructor(
    private readonly script: Step<Input>[] | Reply<Input> = [],
    options: { id?: string } = {},
  ) {
    this.id = options.id ?? 'scripted'
  }

  /** The prompts seen, in order. */
  get prompts() {
    return this.calls.map((call) => call.prompt)
  }

  async generate(prompt: string, options?: GenerateOptions) {
    // `input` is parsed when read, and not enumerable, so printing a call with a plain prompt works
    const call = Object.defineProperty({ prompt, options, system: options?.system }, 'input', {
      get: () => JSON.parse(prompt) as Input,
    }) as LlmCall<Input>
    this.calls.push(call)
    if (this.gate) await this.gate
    const step = typeof this.script === 'function' ? this.script : this.script.shift()
    if (step === undefined) throw new Error('script exhausted')
    if (step instanceof Error) throw step
    if (typeof step === 'string') return step
    if (typeof step === 'function') return step(call)
    await new Promise((resolve) => setTimeout(resolve, step.delayMs))
    return step.value
  }
}
