import type * as LanceDB from '@lancedb/lancedb'
import type * as ArrowLib from 'apache-arrow'
import { RRF_K } from './index-checks'
import { loadLib } from './lance-library'
import { COLUMNS } from './lance-schema'

/** The vector, full-text and hybrid queries a search puts to a table. */
export class LanceQueries {
  private reranker?: Promise<LanceDB.rerankers.RRFReranker>

  constructor(private readonly refineFactor: number) {}

  vector(handle: LanceDB.Table, vector: Float32Array, where: string, limit: number) {
    // Prefilter (LanceDB's default) restricts the search to the scope before the top-k is taken, so a
    // user's rows are never crowded out by closer rows of other users. `maximumNprobes(0)` lets an IVF
    // search probe past the default 20 partitions when a narrow scope has too few rows in them
    // (measured: with 64 partitions a 3-row scope lost rows in 48 of 50 queries without it).
    // Both settings are ignored while the table has no vector index.
    return handle
      .query()
      .nearestTo(vector)
      .distanceType('cosine')
      .refineFactor(this.refineFactor)
      .maximumNprobes(0)
      .where(where)
      .select([...COLUMNS, '_distance']) // naming the score column keeps LanceDB from logging a deprecation warning
      .limit(limit)
  }

  text(handle: LanceDB.Table, text: string, where: string, limit: number) {
    const { lancedb } = loadLib()
    // Always a MatchQuery: a bare string is parsed as a query string, where quotes make phrase queries.
    return handle
      .query()
      .fullTextSearch(new lancedb.MatchQuery(text, 'text'))
      .where(where)
      .select([...COLUMNS, '_score'])
      .limit(limit)
  }

  /** One LanceDB hybrid query, its two legs fused by LanceDB's RRF reranker into `_relevance_score`. */
  async hybrid(handle: LanceDB.Table, text: string, vector: Float32Array, where: string, limit: number): Promise<ArrowLib.Table> {
    const { lancedb } = loadLib()
    // No `select` here: in 0.31 a hybrid query with a column list logs two deprecation warnings per
    // query (one leg lacks `_score`, the other `_distance`), and naming both is an error.
    return handle
      .query()
      .fullTextSearch(new lancedb.MatchQuery(text, 'text'))
      .nearestTo(vector)
      .distanceType('cosine')
      .refineFactor(this.refineFactor)
      .maximumNprobes(0)
      .where(where)
      .rerank(await this.rrf())
      .limit(limit)
      .toArrow()
  }

  private rrf() {
    this.reranker ??= loadLib().lancedb.rerankers.RRFReranker.create(RRF_K)
    return this.reranker
  }
}
