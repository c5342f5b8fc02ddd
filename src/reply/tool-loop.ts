import type { ChatReply, ChatTurn, LLM, ToolCall, ToolDefinition } from '../providers/types'
import { countTokens, truncateToTokens } from '../text/token-count'
import type { ToolTrace } from './state'

export interface ToolLoopOptions {
  /** Most tool calls in one reply; past it the model must answer without tools. */
  maxCalls: number
  /** Most tokens of one tool result handed to the model. */
  resultTokens: number
  temperature?: number
}

export interface ToolLoopResult {
  text: string
  calls: ToolTrace[]
  /** Tokens sent over all requests of the loop. */
  tokensIn: number
}

type Chat = NonNullable<LLM['chat']>

const turnTokens = (turns: ChatTurn[]) =>
  turns.reduce((sum, turn) => sum + countTokens(turn.content) + (turn.role === 'assistant' ? callTokens(turn.toolCalls) : 0), 0)
const callTokens = (calls: ToolCall[] = []) => calls.reduce((sum, call) => sum + countTokens(JSON.stringify(call.arguments)), 0)

/**
 * Function calling, bounded: the model answers or asks for tools; each asked-for tool runs (scoped
 * by its definition) and its result goes back; after `maxCalls` calls the model is asked once more
 * without tools, so a model that keeps calling still ends with an answer.
 */
export async function runToolLoop(
  chat: Chat,
  turns: ChatTurn[],
  tools: ToolDefinition[],
  options: ToolLoopOptions,
): Promise<ToolLoopResult> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const specs = tools.map(({ name, description, parameters }) => ({ name, description, parameters }))
  const conversation = [...turns]
  const calls: ToolTrace[] = []
  let tokensIn = 0
  for (;;) {
    const offer = calls.length < options.maxCalls && specs.length > 0
    tokensIn += turnTokens(conversation)
    const reply: ChatReply = await chat(conversation, { tools: offer ? specs : undefined, temperature: options.temperature })
    if (!offer || !reply.toolCalls.length) {
      if (!reply.text.trim()) throw new Error('the model answered without text once its tool calls were spent')
      return { text: reply.text, calls, tokensIn }
    }
    conversation.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls })
    for (const call of reply.toolCalls) conversation.push(await runCall(call, byName, calls, options))
  }
}

async function runCall(
  call: ToolCall,
  byName: Map<string, ToolDefinition>,
  calls: ToolTrace[],
  options: ToolLoopOptions,
): Promise<ChatTurn> {
  const started = performance.now()
  const answer = (content: string, error?: string): ChatTurn => {
    calls.push({ name: call.name, arguments: call.arguments, ms: performance.now() - started, resultTokens: countTokens(content), error })
    return { role: 'tool', toolCallId: call.id, name: call.name, content }
  }
  // every call the model made gets an answer, or the next request is malformed
  if (calls.length >= options.maxCalls) return answer('Not run: the limit of tool calls for this reply is reached.', 'over the limit')
  const tool = byName.get(call.name)
  if (!tool) return answer(`No tool is named ${call.name}.`, 'unknown tool')
  try {
    const result = await tool.handler(call.arguments)
    return answer(truncateToTokens(result.text, options.resultTokens))
  } catch (error) {
    return answer('The search failed.', (error as Error).message)
  }
}
