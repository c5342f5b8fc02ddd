/**
 * The consumers of the memory budget and their shares of it: every cache that grows with the store or
 * the traffic. The scope cache answers `retrieve` and the message searches from memory, so it takes
 * the most; whole channels for the context builder and LanceDB's own caches (the index data and file
 * metadata its queries and writes read, which grow with every table version a flood of writes makes)
 * a fifth each; the rest is small caches of derived text.
 */
export const BUDGET_SHARES = {
  /** The index rows of recently searched scopes (`store/scope-cache.ts`). */
  scopes: 0.4,
  /** Every message of the channels the context builder reads (`messages/channel-mirror.ts`). */
  channels: 0.2,
  /** LanceDB's caches of index data and file metadata (its `Session`, `store/lance-index.ts`). */
  lancedb: 0.2,
  /** Message rows read lately from the database (`messages/row-cache.ts`). */
  rows: 0.06,
  /** Each channel's document frequencies of terms (`context/term-stats.ts`). */
  terms: 0.05,
  /** The terms, mentions and tokens of messages the builder scored (`context/text-features.ts`). */
  features: 0.05,
  /** Embeddings of context candidates the index did not score (`context/candidate-similarity.ts`). */
  vectors: 0.02,
  /** Term counts of the texts the reranker scored (`facts/rerank.ts`). */
  rerank: 0.02,
} as const

export type BudgetConsumer = keyof typeof BUDGET_SHARES

/** What a consumer holds now. */
export interface Held {
  bytes: number
  entries: number
}

export interface ConsumerUse extends Held {
  name: BudgetConsumer
  capBytes: number
}

export interface BudgetReport {
  budgetBytes: number
  usedBytes: number
  consumers: ConsumerUse[]
}

/**
 * One memory budget (`store.memoryMB`) shared by the caches: each consumer gets a fixed share of it as
 * its cap, evicts its least recently used entries past the cap, and reports what it holds through a
 * meter. A budget of 0 gives every consumer a cap of 0: nothing is cached, everything is read from
 * the store.
 */
export class MemoryBudget {
  private readonly meters = new Map<BudgetConsumer, () => Held>()

  constructor(readonly bytes: number) {
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`a memory budget is a number of bytes ≥ 0, not ${bytes}`)
  }

  /** The consumer's cap in bytes. */
  capOf(consumer: BudgetConsumer): number {
    return Math.floor(this.bytes * BUDGET_SHARES[consumer])
  }

  /** Registers what holds the consumer's memory (one holder per consumer) and returns its cap. */
  claim(consumer: BudgetConsumer, meter: () => Held): number {
    if (this.meters.has(consumer)) throw new Error(`the memory budget's share "${consumer}" is claimed already`)
    this.meters.set(consumer, meter)
    return this.capOf(consumer)
  }

  report(): BudgetReport {
    const consumers = (Object.keys(BUDGET_SHARES) as BudgetConsumer[]).map((name): ConsumerUse => {
      const { bytes, entries } = this.meters.get(name)?.() ?? { bytes: 0, entries: 0 }
      return { name, capBytes: this.capOf(name), bytes, entries }
    })
    return { budgetBytes: this.bytes, usedBytes: consumers.reduce((sum, use) => sum + use.bytes, 0), consumers }
  }
}

/** What a string takes in V8: a header and one byte per character, two when any is past Latin-1. */
export function stringBytes(text: string): number {
  // eslint-disable-next-line no-control-regex
  const wide = /[^\u0000-\u00ff]/.test(text)
  return 16 + Math.ceil(((wide ? 2 : 1) * text.length) / 8) * 8
}
