import type { MemorizeDeps } from '../../src/facts/memorize'
import { RuleJudge } from '../../src/facts/rule-judge'
import { factIndexKind } from '../../src/facts/fact-index'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { IndexedTable } from '../../src/store/index-sync'
import type { Counters } from '../../src/core/observability'
import type { VectorIndex } from '../../src/store/vector-index'
import { quiet } from './logger'
import type { MemoryFacts } from './facts'
import { MemoryOutbox } from './outbox'
import { ExactIndex } from './exact-index'

/** What `memorize` needs, in memory: the rule judge, the offline embedder, an exact index, ids f1, f2, … and a fixed clock. */
export function memorizeDeps(facts: MemoryFacts, counters: Counters, now: Date, index: VectorIndex = new ExactIndex()): MemorizeDeps {
  const embedder = new OfflineEmbedder({ dims: 256 })
  let n = 0
  return {
    judge: new RuleJudge(),
    embedder,
    facts,
    factIndex: new IndexedTable({ index, embedder, outbox: new MemoryOutbox(), counters, logger: quiet }, factIndexKind('memories', facts)),
    counters,
    logger: quiet,
    dedupeThreshold: 0.85,
    commandPrefixes: ['/'],
    newId: () => `f${++n}`,
    now: () => now,
  }
}
