import type { ChatOptions, ChatReply, ChatTurn, GenerateOptions, LLM } from '../providers/types'
import { BudgetSpentError } from '../providers/types'
import { countTokens } from '../text/token-count'
import type { BudgetGate } from './gate'

const turnText = (turn: ChatTurn) => turn.content

/**
 * The chat model with the budgets in front: a call made under `BudgetGate.run` is charged to that
 * owner (one call, the prompt's tokens), or refused with `BudgetSpentError` before it leaves when the
 * owner's day is spent. Outside the breaker, so a refusal never counts as the provider failing.
 */
export class BudgetedLLM implements LLM {
  readonly id: string
  declare readonly chat?: (turns: ChatTurn[], options?: ChatOptions) => Promise<ChatReply>

  constructor(
    readonly inner: LLM,
    private readonly gate: BudgetGate,
  ) {
    this.id = inner.id
    const chat = inner.chat?.bind(inner)
    if (chat)
      this.chat = async (turns, options) => {
        const tools = options?.tools?.length ? JSON.stringify(options.tools) : ''
        await this.take(countTokens(turns.map(turnText).join('\n') + tools))
        return chat(turns, options)
      }
  }

  async generate(prompt: string, options?: GenerateOptions): Promise<string> {
    await this.take(countTokens(prompt + (options?.system ?? '')))
    return this.inner.generate(prompt, options)
  }

  private async take(tokens: number) {
    const owner = this.gate.current()
    if (owner && !(await this.gate.take(owner, tokens))) throw new BudgetSpentError(this.id)
  }
}
