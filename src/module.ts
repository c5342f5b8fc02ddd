import type { Context } from 'koishi'
import type { ForgetFence } from './store/forget-fence'
import type { Counters, Logger } from './core/observability'
import type { MemoryBudget } from './core/memory-budget'
import type { Embedder, LLM } from './providers/types'
import type { UserRef } from './scope'
import type { IndexSyncDeps, RegisteredTable } from './store/index-sync'
import type { KoishiOutbox } from './store/outbox'
import type { ScopeCache } from './store/scope-cache'

/**
 * The parts each memory kind builds, by module name. Every domain adds its own entry where it defines
 * its module (`declare module '../module' { interface ModuleParts { … } }`), so `env.part(name)` is typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModuleParts {}

export type ModuleName = keyof ModuleParts

/** A message a forget erases, as the modules that derived something from it need to know it. */
export interface ErasedLine {
  /** The row id (`platform:messageId`), what indexes and derived rows name. */
  id: string
  channelId: string
  /** `''` for a private message. */
  guildId?: string
  topicId?: string | null
  /** A bot message recalled in the chat: the row id of the message it answered (their exchange goes with it). */
  answers?: string
}

/** What a forget removes, by kind: what `memory.forget` tells the user it erased. */
export type ErasedKind =
  | 'facts'
  | 'messages'
  | 'replies'
  | 'episodes'
  | 'topicSummaries'
  | 'channelSummaries'
  | 'contexts'
  | 'groupMemories'
  | 'entities'
  | 'relations'
  | 'profiles'
  | 'exports'

export type ErasedCounts = Partial<Record<ErasedKind, number>>

/**
 * A memory kind's part of a forget, called in the reverse order of registration (what builds on a kind
 * goes before the kind itself). A hook never sees another user's rows: it is given only the user's.
 * Each hook may say what it removed, by kind.
 */
export interface Erasure {
  /** Before any message goes: `messageIds` are every message the user said and the bot's answers to them. */
  user?(owner: UserRef, messageIds: string[]): Promise<ErasedCounts | void>
  /** Messages about to be erased: what the kind derived from them goes now. */
  messages?(owner: UserRef, erased: ErasedLine[]): Promise<ErasedCounts | void>
  /** The messages are gone: what the kind keeps about the rest is made again from what is left. */
  afterMessages?(owner: UserRef, erased: ErasedLine[]): Promise<ErasedCounts | void>
}

/** What every module may build on: the shared infrastructure the root makes before any module. */
export interface ModuleEnv {
  ctx: Context
  embedder: Embedder
  /** The memory's model; undefined when only the offline rules run. */
  llm?: LLM
  /**
   * Runs work with its model calls charged to the day's budget of a group (`guildId`) or of a user's
   * private chat (`guildId: ''`); past it, the model refuses and the work falls back to its offline way.
   */
  charge?<T>(where: { platform: string; guildId: string; userId: string }, work: () => Promise<T>): Promise<T>
  /** The scope cache in front of the vector index: what every domain writes its index rows to and searches. */
  index: ScopeCache
  outbox: KoishiOutbox
  /** What an `IndexedTable` needs to keep a kind's LanceDB copy in step. */
  sync: IndexSyncDeps
  /** The memory budget (`store.memoryMB`): each cache of a kind claims its share of it. */
  budget: MemoryBudget
  /** When each user was last forgotten: waiting work stores nothing of what they said before. */
  fence: ForgetFence
  counters: Counters
  logger: Logger
  /** A fresh row id, short enough to type in a command. */
  newId(): string
  now(): Date
  /** The part of a module registered before this one. */
  part<K extends ModuleName>(name: K): ModuleParts[K]
}

/**
 * One memory kind: its tables, how its part is built from the infrastructure, its settings (mapped from
 * the console's configuration by the root) and the parts registered before it, and what the shared
 * mechanisms (the index registry, the eraser, `memory.status`) do with it.
 */
export interface MemoryModule<K extends ModuleName, Settings = void> {
  readonly name: K
  /** Declares the kind's tables (`ctx.model.extend`). */
  tables?(ctx: Context): void
  create(env: ModuleEnv, settings: Settings): ModuleParts[K]
  /** The LanceDB tables the kind keeps in step with its rows. */
  indexes?(part: ModuleParts[K]): (RegisteredTable | undefined)[]
  /** Its part of a forget. */
  erase?(part: ModuleParts[K], env: ModuleEnv): Erasure
  /** Counts for `memory.status` and the console's health page. */
  status?(part: ModuleParts[K]): Promise<Record<string, number>>
}

/** A module as written in its domain (the identity: it only checks the shape and keeps the types). */
export function defineMemoryKind<K extends ModuleName, Settings = void>(module: MemoryModule<K, Settings>): MemoryModule<K, Settings> {
  return module
}

/** The topics erased lines were in, once each. */
export function topicsOf(erased: ErasedLine[]): string[] {
  return [...new Set(erased.map((row) => row.topicId).filter((id): id is string => Boolean(id)))]
}

/** A module with the settings the root gives it. */
export interface Registration {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  module: MemoryModule<ModuleName, any>
  settings: unknown
}

/** A module in the registration list, with its settings when it takes any. */
export function register<K extends ModuleName, Settings>(
  module: MemoryModule<K, Settings>,
  ...settings: Settings extends void ? [] : [Settings]
): Registration {
  return { module: module as Registration['module'], settings: settings[0] }
}

/**
 * The registered memory kinds, built in order: each declares its tables and builds its part from the
 * infrastructure and the parts of those before it. The shared mechanisms (index registry, eraser,
 * status) reach every kind through here.
 */
export class MemoryModules {
  private readonly parts = new Map<ModuleName, unknown>()
  readonly env: ModuleEnv

  constructor(
    base: Omit<ModuleEnv, 'part'>,
    private readonly registrations: Registration[],
  ) {
    this.env = { ...base, part: (name) => this.part(name) }
    for (const { module } of registrations) module.tables?.(base.ctx)
    for (const { module, settings } of registrations) {
      if (this.parts.has(module.name)) throw new Error(`memory module ${module.name} is registered twice`)
      this.parts.set(module.name, module.create(this.env, settings))
    }
  }

  part<K extends ModuleName>(name: K): ModuleParts[K] {
    if (!this.parts.has(name)) throw new Error(`memory module ${name} is not registered before the one that needs it`)
    return this.parts.get(name) as ModuleParts[K]
  }

  /** Every LanceDB table the kinds keep in step, in registration order. */
  indexes(): RegisteredTable[] {
    return this.registrations.flatMap(({ module }) => module.indexes?.(this.part(module.name)) ?? []).filter((table) => !!table)
  }

  /** The kinds' parts of a forget, those built on others first. */
  erasures(): Erasure[] {
    return this.registrations.flatMap(({ module }) => (module.erase ? [module.erase(this.part(module.name), this.env)] : [])).reverse()
  }

  /** The counts every kind reports, merged. */
  async status(): Promise<Record<string, number>> {
    const counts = await Promise.all(this.registrations.map(({ module }) => module.status?.(this.part(module.name)) ?? {}))
    return Object.assign({}, ...counts)
  }
}
