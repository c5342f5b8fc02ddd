import { defineMemoryKind } from '../module'
import { ContextLog } from './context-log'
import { KoishiContextLogStore } from './koishi-store'
import { defineContextTable } from './table'
import { TermStats } from './term-stats'

export interface ContextPart {
  /** What each reply saw and how it ran (`memory.trace`, `memory.stats`). */
  log: ContextLog
  logStore: KoishiContextLogStore
  /** Term statistics of what was captured, for the builder's lexical scoring. */
  termStats: TermStats
}

declare module '../module' {
  interface ModuleParts {
    context: ContextPart
  }
}

/** The context a reply sees, and the log of what each reply saw. */
export const contextModule = defineMemoryKind({
  name: 'context',
  tables: defineContextTable,
  create({ ctx, counters, logger }) {
    const logStore = new KoishiContextLogStore(ctx)
    return { log: new ContextLog(logStore, { counters, logger }), logStore, termStats: new TermStats() }
  },
  // the contexts and traces a user's messages triggered may quote them
  erase: (part) => ({ messages: (owner) => part.logStore.removeUser(owner.platform, owner.userId) }),
})
