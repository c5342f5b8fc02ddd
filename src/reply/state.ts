import type { BuiltContext, ContextTarget } from '../context'
import type { RecalledEpisode } from '../episodes'
import type { ChatTurn } from '../providers/types'
import type { Language } from '../text/language'

/**
 * The one state a reply run carries from node to node (design §7.1): each node reads what it needs
 * and returns what it adds, so no parameter is threaded through layers.
 */

/** What recall may bring: the user's facts, their profile, earlier exchanges, the channel's relevant chat. */
export type MemoryKind = 'facts' | 'profile' | 'episodes' | 'context'

/** `direct`: the deep searches run before the model; `tools`: the model may call them; `both`; or `none`. */
export type DeepSearch = 'none' | 'direct' | 'tools' | 'both'

export interface RouteDecision {
  needsMemory: boolean
  kinds: MemoryKind[]
  deep: DeepSearch
  /**
   * Why, for the trace: the kind of chat noise (`ack`, `emoji`, `empty`, `command`) when no memory is
   * needed; else `past` (points back in time), `asks`, `self` (about the speaker), or none.
   */
  reasons: string[]
}

export interface ToolTrace {
  name: string
  arguments: Record<string, unknown>
  ms: number
  /** Tokens of the result handed back to the model. */
  resultTokens: number
  error?: string
}

export type NodeName = 'route' | 'recall' | 'retrieve' | 'generate' | 'persist'

/**
 * What a node chose, as a code and its figures (the `memory.trace` command words it in the reader's
 * language): route `no-memory` {why} or `memory` {kinds, deep, why}; recall `skipped`, `nothing` or
 * `found` {messages, memories, group, episodes, summary, profile, fallback}; retrieve `skipped` {deep},
 * `nothing` or `found` {memories, history}; generate `offline` {memories} or `model` {model, offered,
 * called}; persist `sent` {what, characters} or `nothing`; any node `failed`.
 */
export interface Choice {
  code: string
  params?: Record<string, string | number>
}

/** One node of one run: how long it took, what it chose, the tokens it sent and got, the tools it called. */
export interface TraceStep {
  node: NodeName
  ms: number
  chose: Choice
  tokensIn?: number
  tokensOut?: number
  toolCalls?: ToolTrace[]
  error?: string
}

export type ReplyOutcome =
  | { kind: 'model'; text: string }
  /** No chat model: what the memory holds for the message (the offline answer). */
  | { kind: 'offline'; memories: string[]; related: number }
  /** The model failed; the user gets a short apology, the trace the error. */
  | { kind: 'failed'; error: string }

export interface ReplyState {
  target: ContextTarget
  language: Language
  /** The persona / system prompt for this channel. */
  system: string
  route?: RouteDecision
  recalled?: { context?: BuiltContext; episodes: RecalledEpisode[]; profile?: string }
  /** Text blocks the direct deep searches found. */
  retrieved: string[]
  /** What the model was sent (the first request of a tool loop). */
  prompt: ChatTurn[]
  outcome?: ReplyOutcome
  /** Platform ids of the messages sent. */
  sent: string[]
  trace: TraceStep[]
}

/** What a node adds to the state, and what it tells the trace. */
export interface NodeResult {
  update: Partial<Omit<ReplyState, 'trace' | 'target'>>
  chose: Choice
  tokensIn?: number
  tokensOut?: number
  toolCalls?: ToolTrace[]
}

export type ReplyNode = (state: Readonly<ReplyState>) => Promise<NodeResult>
