import type { Embedder } from '../providers/types'
import type { Logger } from '../core/observability'
import type { Counters } from '../core/observability'
import type { Scope } from '../scope'
import type { IndexHit, VectorIndex } from '../store/vector-index'
import { defaultLexicalShare, Reranker } from './rerank'
import type { FactStore } from './store'
import type { FactRow } from './table'
import { isCurrent, validSince } from './table'

export interface RetrievedMemory {
  id: string
  content: string
  /** Cosine similarity of the memory to the query. */
  score: number
  /** What the memories are ordered by: BM25 among the candidates blended with `score` (see `rerank`). */
  relevance: number
  createdAt: Date
  scope: Required<Scope>
  /** When it became true, when checked against the database. */
  validFrom?: Date
  /** When it stopped being true (a history query); null while current. */
  validTo?: Date | null
}

export interface RecallOptions {
  /** Also facts a newer statement closed ("where did Alice live before?"). Default: current facts only. */
  history?: boolean
}

export interface RetrieveDeps {
  embedder: Embedder
  index: VectorIndex
  table: string
  counters: Counters
  logger: Logger
  /** Share of BM25 in the ranking; the rest is embedding similarity. Default: by the embedder (`defaultLexicalShare`). */
  lexicalShare?: number
  /**
   * The truth the hits are checked against: a hit whose fact is gone (forgotten through another
   * instance, a removal still waiting in the outbox) is dropped, and the text is the database's.
   */
  facts?: Pick<FactStore, 'get'>
  /** The reranker, with its cache of terms in the memory budget; default: one of its own. */
  reranker?: Reranker
}

/** Candidates fetched from the index per memory asked for, and at least, for the reranker. */
const CANDIDATES_PER_RESULT = 4
/** Candidates checked against the database per memory asked for: closed facts stay in the index and are dropped here. */
const CHECKED_PER_RESULT = 4
/** Closings followed from a closed fact to the current one that replaced it. */
const MAX_SUCCESSION = 3
const MIN_CANDIDATES = 40

/**
 * Ranked memories of one scope for a query: the index's hybrid search gives the candidates, the
 * reranker orders them, the database drops the facts that are gone and (unless `history`) the ones a
 * newer statement closed. Never throws: a failure of the embedder or the store yields `[]` and is
 * logged once per outage.
 */
export class Retriever {
  private outage?: string
  /** Also what the fused recall reranks facts and lines with: one cache of terms for both. */
  readonly reranker: Reranker

  constructor(private deps: RetrieveDeps) {
    this.reranker = deps.reranker ?? new Reranker()
  }

  async retrieve(scope: Scope, query: string, topK: number, minScore: number, options: RecallOptions = {}): Promise<RetrievedMemory[]> {
    const { embedder, index, table, counters } = this.deps
    if (!query.trim()) return []
    try {
      const [vector] = await embedder.embed([query])
      const limit = Math.max(topK * CANDIDATES_PER_RESULT, MIN_CANDIDATES)
      const hits = await index.search(table, { vector, text: query, scope, limit })
      this.recovered()
      counters.inc('retrieve.ok')
      const share = this.deps.lexicalShare ?? defaultLexicalShare(embedder)
      // ranked by shared words alone, a memory is relevant when it shares a word: a similarity of word
      // counts is no gate ("我的猫叫什么名字" shares little of its length with "…养了一只猫，叫咪咪")
      let ranked =
        share >= 1
          ? this.reranker.rerank(query, hits, share).filter((hit) => hit.relevance > 0)
          : this.reranker.rerank(
              query,
              hits.filter((hit) => hit.similarity >= minScore),
              share,
            )
      let rows: Map<string, FactRow> | undefined
      if (this.deps.facts && ranked.length) {
        const found = await this.deps.facts.get(ranked.slice(0, topK * CHECKED_PER_RESULT).map((hit) => hit.id))
        rows = new Map(found.map((row) => [row.id, row]))
        const successors = await this.successors(found.filter((row) => !isCurrent(row)))
        const seen = new Set<string>()
        const as = <H extends IndexHit>(hit: H, row: FactRow): H =>
          row.id === hit.id
            ? hit
            : { ...hit, id: row.id, text: row.content, channel_id: row.channelId, created_at: row.createdAt.getTime() }
        ranked = ranked.flatMap((hit) => {
          const row = rows!.get(hit.id)
          if (!row) return []
          // a hit on a closed fact also stands for the fact that closed it: "住在哪" finds 住在成都, which 搬到上海 closed
          const next = successors.get(row.id)
          const shown = [...(options.history || isCurrent(row) ? [row] : []), ...(next ? [next] : [])].filter((fact) => !seen.has(fact.id))
          for (const fact of shown) {
            seen.add(fact.id)
            rows!.set(fact.id, fact)
          }
          return shown.map((fact) => as(hit, fact))
        })
      }
      return ranked.slice(0, topK).map((hit) => {
        const row = rows?.get(hit.id)
        return {
          id: hit.id,
          content: row?.content ?? hit.text,
          score: hit.similarity,
          relevance: hit.relevance,
          createdAt: new Date(hit.created_at),
          scope: { platform: hit.platform, userId: hit.user_id, guildId: hit.guild_id, channelId: hit.channel_id },
          ...(row && { validFrom: validSince(row), validTo: row.validTo ?? null }),
        }
      })
    } catch (error) {
      counters.inc('retrieve.failed')
      const message = (error as Error).message
      if (this.outage === undefined) this.deps.logger.warn('memory retrieval unavailable, returning nothing: %s', message)
      this.outage = message
      return []
    }
  }

  /** The current fact that (through at most `MAX_SUCCESSION` closings) took the place of each closed one. */
  private async successors(closed: FactRow[]): Promise<Map<string, FactRow>> {
    const current = new Map<string, FactRow>()
    const owners = new Map(closed.map((row) => [row.id, row]))
    let pending = new Map(closed.filter((row) => row.supersededBy).map((row) => [row.id, row.supersededBy!]))
    for (let hop = 0; hop < MAX_SUCCESSION && pending.size; hop++) {
      const next = new Map((await this.deps.facts!.get([...new Set(pending.values())])).map((row) => [row.id, row]))
      const later = new Map<string, string>()
      for (const [origin, id] of pending) {
        // a link to another person's fact (written by hand or by an import) is no succession
        const row = sameOwner(next.get(id), owners.get(origin)!)
        if (row && isCurrent(row)) current.set(origin, row)
        else if (row?.supersededBy) later.set(origin, row.supersededBy)
      }
      pending = later
    }
    return current
  }

  private recovered() {
    if (this.outage === undefined) return
    this.outage = undefined
    this.deps.logger.info('memory retrieval recovered')
  }
}

function sameOwner(row: FactRow | undefined, of: FactRow): FactRow | undefined {
  return row && row.platform === of.platform && row.userId === of.userId && row.guildId === of.guildId ? row : undefined
}

/** A compact block of memories for a system prompt. */
export function formatForPrompt(memories: Pick<RetrievedMemory, 'content'>[], heading = 'Relevant memories:'): string {
  if (!memories.length) return ''
  return [heading, ...memories.map((memory) => `- ${memory.content}`)].join('\n')
}
