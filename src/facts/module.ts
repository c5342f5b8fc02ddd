import { KeyedLock } from '../core/keyed-lock'
import { defineMemoryKind } from '../module'
import { IndexedTable } from '../store/index-sync'
import { factIndexKind } from './fact-index'
import type { FactIndex } from './fact-index'
import type { MemoryJudge } from './judge'
import { createJudge } from './judges'
import { RuleJudge } from './rule-judge'
import type { JudgePrompts } from './prompts'
import { KoishiFactStore } from './koishi-store'
import { Retriever } from './retrieve'
import { Reranker } from './rerank'
import type { ReviseResult } from './revise'
import { reviseFact } from './revise'
import { defineFactTable } from './table'
import type { UserRef } from '../scope'

export interface FactsPart {
  store: KoishiFactStore
  index: FactIndex
  judge: MemoryJudge
  /** The offline rules' judge: the judge itself without a model, else what a spent budget falls back to. */
  rules: MemoryJudge
  retriever: Retriever
  /** One write per user at a time; a forget holds it too. */
  lock: KeyedLock
  /** A fact said anew by hand: a new version, the old one closed by it. */
  revise(owner: UserRef, id: string, statement: string, by: string): Promise<ReviseResult>
}

export interface FactSettings {
  prompts: JudgePrompts
  /** The LanceDB table of facts. */
  table: string
  lexicalShare?: number
}

declare module '../module' {
  interface ModuleParts {
    facts: FactsPart
  }
}

/** Long-term facts about users, each with when it was true, and their retrieval. */
export const factsModule = defineMemoryKind({
  name: 'facts',
  tables: defineFactTable,
  create({ ctx, sync, embedder, llm, index, budget, counters, logger, newId, now }, settings: FactSettings): FactsPart {
    const store = new KoishiFactStore(ctx)
    const factIndex = new IndexedTable(sync, factIndexKind(settings.table, store))
    const lock = new KeyedLock()
    const retriever: Retriever = new Retriever({
      index,
      embedder,
      table: settings.table,
      counters,
      logger,
      lexicalShare: settings.lexicalShare,
      facts: store,
      reranker: new Reranker(budget.claim('rerank', () => retriever.reranker.held())),
    })
    const judge = createJudge(llm, settings.prompts, { counters, logger })
    return {
      store,
      index: factIndex,
      judge,
      rules: judge instanceof RuleJudge ? judge : new RuleJudge(),
      retriever,
      lock,
      revise: (owner, id, statement, by) => reviseFact({ facts: store, factIndex, counters, newId, now, lock }, owner, id, statement, by),
    }
  },
  indexes: (part) => [part.index],
  status: async (part) => ({ facts: await part.store.count(undefined, { history: true }) }),
})
