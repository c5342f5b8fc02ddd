import type { BuiltContext } from '../context'
import { assemblePrompt } from '../context'
import type { ChatTurn, LLM, ToolDefinition } from '../providers/types'
import { BudgetSpentError } from '../providers/types'
import { clip } from '../text/clip'
import type { Language } from '../text/language'
import { countTokens } from '../text/token-count'
import { offlineAnswer } from './offline-answer'
import type { NodeResult, ReplyState } from './state'
import { runToolLoop } from './tool-loop'

/**
 * The generate node (design §7.5): the prompt is assembled from the state —
 * persona, long-term memories, profile, group memories, summary, earlier exchanges, what the deep
 * search found, the chosen chat, the message — and sent to the chat model; with the deep search as
 * tools, through the bounded tool loop. Without a chat model the answer is what the memory holds.
 */

export interface GeneratePorts {
  /** The chat model; undefined offline. */
  model?: LLM
  /** The deep-search tools, bound to the message's scope. */
  tools(state: Readonly<ReplyState>): ToolDefinition[]
}

export interface GenerateSettings {
  maxToolCalls: number
  toolResultTokens: number
  /** Most characters of a reply. */
  maxLength: number
  temperature?: number
}

const FOUND: Record<Language, string> = { zh: '检索到的更早内容：', en: 'Found in earlier chat and memory:' }
const NOTHING: BuiltContext = { longTerm: [], summary: '', messages: [], tokens: 0, windowTokens: 0, fallback: false, buildMs: 0 }

/** The model's request: the assembled prompt, with the deep search's findings just before the message. */
function promptOf(state: Readonly<ReplyState>): ChatTurn[] {
  const { target, recalled } = state
  const context = recalled?.context ?? NOTHING
  const turns: ChatTurn[] = assemblePrompt({
    system: state.system,
    context: { ...context, messages: context.messages.filter((message) => !target.messageId || message.messageId !== target.messageId) },
    profile: recalled?.profile,
    episodes: recalled?.episodes,
    current: { name: target.userName ?? target.userId, content: target.content },
    language: state.language,
  })
  if (state.retrieved.length)
    turns.splice(turns.length - 1, 0, { role: 'system', content: [FOUND[state.language], ...state.retrieved].join('\n') })
  return turns
}

/** Turns as one prompt and one system text, for a model that only completes text. */
function flatten(turns: ChatTurn[]): { system: string; prompt: string } {
  const system = turns.filter((turn) => turn.role === 'system').map((turn) => turn.content)
  const lines = turns
    .filter((turn) => turn.role !== 'system')
    .map((turn) => (turn.role === 'assistant' ? `Assistant: ${turn.content}` : turn.content))
  return { system: system.join('\n\n'), prompt: lines.join('\n') }
}

export function generateNode(ports: GeneratePorts, settings: GenerateSettings) {
  return async (state: Readonly<ReplyState>): Promise<NodeResult> => {
    const prompt = promptOf(state)
    const tokensIn = prompt.reduce((sum, turn) => sum + countTokens(turn.content), 0)
    const { model } = ports
    const offline = (): NodeResult => {
      const { memories, related } = offlineAnswer(state)
      return {
        update: { prompt, outcome: { kind: 'offline', memories, related } },
        chose: { code: 'offline', params: { memories: memories.length } },
        tokensIn,
      }
    }
    if (!model) return offline()
    // the group's calls of the day ran out within this reply (a round of its tools): what the memory holds
    return modelled(model, state, prompt, tokensIn).catch((error: unknown) => {
      if (error instanceof BudgetSpentError) return offline()
      throw error
    })
  }

  async function modelled(model: LLM, state: Readonly<ReplyState>, prompt: ChatTurn[], tokensIn: number): Promise<NodeResult> {
    const finish = (text: string) => clip(text.trim(), settings.maxLength)
    if (model.chat) {
      const tools = state.route?.deep === 'tools' || state.route?.deep === 'both' ? ports.tools(state) : []
      const result = await runToolLoop(model.chat.bind(model), prompt, tools, {
        maxCalls: tools.length ? settings.maxToolCalls : 0,
        resultTokens: settings.toolResultTokens,
        temperature: settings.temperature,
      })
      const text = finish(result.text)
      return {
        update: { prompt, outcome: { kind: 'model', text } },
        chose: { code: 'model', params: { model: model.id, offered: tools.length, called: result.calls.length } },
        tokensIn: result.tokensIn,
        tokensOut: countTokens(text),
        toolCalls: result.calls,
      }
    }
    const { system, prompt: flat } = flatten(prompt)
    const text = finish(await model.generate(flat, { system, temperature: settings.temperature }))
    return {
      update: { prompt, outcome: { kind: 'model', text } },
      chose: { code: 'model', params: { model: model.id, offered: 0, called: 0 } },
      tokensIn,
      tokensOut: countTokens(text),
    }
  }
}
