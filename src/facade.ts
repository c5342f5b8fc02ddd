import type { BudgetGate } from './budget'
import type { Memory } from './compose'
import type { ContextLog } from './context'
import type { FactRow, FactStore } from './facts'
import { factVersions } from './facts'
import type { GroupMemories } from './group'
import type { KoishiMessageStore } from './messages'
import type { TopicSummaries } from './topic-summaries'
import type { KoishiTopicStore } from './topics'

/** Group memory as the service offers it: the same calls the commands, the console and the HTTP API make. */
export type GroupMemoryApi = Pick<
  GroupMemories,
  'evolve' | 'list' | 'search' | 'recall' | 'history' | 'changes' | 'remove' | 'restore' | 'setStrength' | 'locate' | 'resolve'
>

export interface FactReads extends Pick<FactStore, 'get' | 'count'> {
  /**
   * A fact and the versions edits left behind it, newest first (each the one the next corrected and
   * closed), at most 100; empty when no fact has the id. Forgetting them all forgets what the fact said.
   */
  versions(id: string): Promise<FactRow[]>
}

export type MessageReads = Pick<KoishiMessageStore, 'byIds' | 'speakers' | 'activeGuilds'>

export type TopicReads = Pick<KoishiTopicStore, 'get' | 'list' | 'active' | 'inGuild'> & Pick<TopicSummaries, 'versions' | 'summarizeNow'>

export interface Metrics {
  /** Contexts built in the last `hours`: how many, how large, how fast. */
  contexts: ContextLog['metrics']
  /** Replies in the last `hours`: by route, tools, tokens and time. */
  replies: ContextLog['replyMetrics']
  /** Every counter of the memory (model calls, fallbacks, failures) since the start. */
  counters(): Record<string, number>
  /** Whether a model (not the offline rules) judges what to remember. */
  modelled(): boolean
}

/** The model-call budgets: a group's (or private chat's) limits and spend of the day, and its own setting. */
export type BudgetApi = Pick<BudgetGate, 'status' | 'set' | 'reset' | 'spendToday'>

/** Only the named methods of `source`, bound to it: a namespace that exposes no more than it names. */
function only<T extends object, K extends keyof T>(source: T, names: K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>
  for (const name of names) {
    const member = source[name]
    picked[name] = (typeof member === 'function' ? member.bind(source) : member) as T[K]
  }
  return picked
}

/** The service's namespaces over the composed memory. */
export function facadeOf(memory: Memory) {
  const part = memory.modules.env.part
  const log = part('context').log
  const topics = part('topics').store
  const summaries = part('topicSummaries').summaries
  const repository = part('facts').store
  const facts: FactReads = { ...only(repository, ['get', 'count']), versions: (id) => factVersions(repository, id) }
  const groups: GroupMemoryApi = only(part('group').memories, [
    'evolve',
    'list',
    'search',
    'recall',
    'history',
    'changes',
    'remove',
    'restore',
    'setStrength',
    'locate',
    'resolve',
  ])
  const metrics: Metrics = {
    contexts: (hours) => log.metrics(hours),
    replies: (hours) => log.replyMetrics(hours),
    counters: () => memory.counters.snapshot(),
    modelled: () => !['rules', 'offline'].includes(memory.providers.choices.llm.used),
  }
  return {
    groups,
    facts,
    messages: only(part('messages').store, ['byIds', 'speakers', 'activeGuilds']) as MessageReads,
    topics: { ...only(topics, ['get', 'list', 'active', 'inGuild']), ...only(summaries, ['versions', 'summarizeNow']) } as TopicReads,
    metrics,
    budgets: only(memory.budgets, ['status', 'set', 'reset', 'spendToday']) as BudgetApi,
  }
}
