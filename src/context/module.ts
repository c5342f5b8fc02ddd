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
  create({ ctx, counters, logger, budget }) {
    const logStore = new KoishiContextLogStore(ctx)
    const termStats: TermStats = new TermStats({ capBytes: budget.claim('terms', () => termStats.held()) })
    return { log: new ContextLog(logStore, { counters, logger }), logStore, termStats }
  },
  // the contexts a user's messages triggered quote them, and any context that showed an erased line
  // holds it with the reply drawn from it
  erase: (part) => ({
    async messages(owner, erased) {
      const mine = await part.logStore.removeUser(owner.platform, owner.userId)
      const showing = await part.logStore.removeShowing(
        owner.platform,
        erased.map((row) => row.channelId),
        erased.map((row) => row.id),
      )
      return { contexts: mine + showing }
    },
  }),
})
