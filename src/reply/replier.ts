import type { ContextTarget, ReplyTraceRecord } from '../context'
import type { LLM, ToolDefinition } from '../providers/types'
import { channelOf } from '../scope'
import type { Language } from '../text/language'
import { generateNode } from './generate'
import type { GenerateSettings } from './generate'
import type { PersistPorts } from './persist'
import { persistNode } from './persist'
import { runReply } from './pipeline'
import type { RecallPorts } from './recall'
import { recallNode } from './recall'
import type { RetrievePorts } from './retrieve'
import { retrieveNode } from './retrieve'
import type { RouteOptions } from './route'
import { routeNode } from './route'
import type { ReplyState } from './state'

export interface ReplySettings extends GenerateSettings, Omit<RouteOptions, 'canCallTools'> {
  /** Tokens of the recalled context (long-term memories, summary, chat). */
  tokenBudget: number
  /** Tokens the direct deep search may add. */
  retrieveTokens: number
}

export interface ReplierDeps {
  recall: RecallPorts
  retrieve: RetrievePorts
  /** The deep-search tools for a message, bound to its scope. */
  tools(state: Readonly<ReplyState>): ToolDefinition[]
  model?: LLM
  settings: ReplySettings
  /** Keeps the run's trace (the context log). */
  trace(record: Omit<ReplyTraceRecord, 'id' | 'createdAt'>): void
}

export interface ReplyInput {
  target: ContextTarget
  language: Language
  system: string
  deliver: PersistPorts['deliver']
}

/** The reply pipeline: route → recall → retrieve → generate → persist, over one state, traced. */
export function createReplier(deps: ReplierDeps) {
  const { settings } = deps
  const route = routeNode({ ...settings, canCallTools: Boolean(deps.model?.chat) })
  const recall = recallNode(deps.recall, { tokenBudget: settings.tokenBudget })
  const retrieve = retrieveNode(deps.retrieve, { maxTokens: settings.retrieveTokens })
  const generate = generateNode({ model: deps.model, tools: deps.tools }, settings)
  return async function reply(input: ReplyInput): Promise<ReplyState> {
    const state = await runReply({ ...input, retrieved: [], prompt: [], sent: [], trace: [] }, [
      ['route', route],
      ['recall', recall],
      ['retrieve', retrieve],
      ['generate', generate],
      ['persist', persistNode({ deliver: input.deliver })],
    ])
    deps.trace(traceRecord(state))
    return state
  }
}

function traceRecord(state: ReplyState): Omit<ReplyTraceRecord, 'id' | 'createdAt'> {
  const { target, trace } = state
  const generate = trace.find((step) => step.node === 'generate')
  return {
    ...channelOf(target),
    userId: target.userId,
    triggerMessageId: target.messageId ?? '',
    outcome: state.outcome?.kind ?? 'failed',
    totalMs: trace.reduce((sum, step) => sum + step.ms, 0),
    promptTokens: generate?.tokensIn ?? 0,
    replyTokens: generate?.tokensOut ?? 0,
    toolCalls: generate?.toolCalls?.length ?? 0,
    recallSkipped: state.route?.needsMemory === false,
    steps: trace,
  }
}
