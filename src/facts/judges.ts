import type { Counters, Logger } from '../core/observability'
import type { LLM } from '../providers/types'
import type { MemoryJudge } from './judge'
import { LlmJudge } from './llm-judge'
import type { JudgePrompts } from './prompts'
import { RuleJudge } from './rule-judge'

/** The model's judge when a chat model is configured, the offline rules otherwise. */
export function createJudge(llm: LLM | undefined, prompts: JudgePrompts, deps: { counters: Counters; logger: Logger }): MemoryJudge {
  return llm ? new LlmJudge(llm, prompts, deps) : new RuleJudge()
}
