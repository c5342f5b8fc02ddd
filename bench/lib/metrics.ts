/**
 * Ranking and evidence metrics of the benchmarks.
 *
 * MADial-Bench (`embedding_score_new.py` of hejunqing/MADial-Bench, the script that produced the
 * published tables):
 * - `recall@k = |set(top k) ∩ set(relevant)| / len(relevant)` (the denominator counts the relevant
 *   list as given, duplicates included — the zh data has none);
 * - `nDCG@k` with binary gains, where the ideal DCG is computed from the gains **of the retrieved top
 *   k re-sorted**, not from the relevant set: a ranking whose only hit is at rank 1 scores 1.0 even when
 *   four more relevant memories exist. `ndcgAtK` is that definition; `ndcgAtKStandard` (ideal = all
 *   min(|relevant|, k) hits at the top) is reported beside it because the two differ.
 */

/** Recall@k as MADial-Bench computes it. An empty relevant list scores 0. */
export function recallAtK<T>(relevant: T[], ranked: T[], k: number): number {
  if (!relevant.length) return 0
  const top = new Set(ranked.slice(0, k))
  let hits = 0
  for (const id of new Set(relevant)) if (top.has(id)) hits++
  return hits / relevant.length
}

function dcg(gains: number[]): number {
  let sum = 0
  for (let i = 0; i < gains.length; i++) sum += gains[i] / Math.log2(i + 2)
  return sum
}

/** nDCG@k exactly as MADial-Bench computes it (ideal = the retrieved hits moved to the top). */
export function ndcgAtK<T>(relevant: T[], ranked: T[], k: number): number {
  const rel = new Set(relevant)
  const gains = ranked.slice(0, k).map((id) => (rel.has(id) ? 1 : 0))
  const ideal = dcg([...gains].sort((a, b) => b - a))
  return ideal ? dcg(gains) / ideal : 0
}

/** Textbook nDCG@k with binary gains: ideal = min(|relevant|, k) hits at ranks 1…. */
export function ndcgAtKStandard<T>(relevant: T[], ranked: T[], k: number): number {
  const rel = new Set(relevant)
  const gains = ranked.slice(0, k).map((id) => (rel.has(id) ? 1 : 0))
  const ideal = dcg(new Array(Math.min(rel.size, k)).fill(1))
  return ideal ? dcg(gains) / ideal : 0
}

export type RankingMetrics = {
  'recall@1': number
  'recall@3': number
  'recall@5': number
  'recall@10': number
  'ndcg@5': number
  'ndcg@5_standard': number
}

/** The MADial summary of one ranking per query, averaged over queries. */
export function rankingMetrics<T>(items: { relevant: T[]; ranked: T[] }[]): RankingMetrics {
  const avg = (f: (item: { relevant: T[]; ranked: T[] }) => number) => mean(items.map(f))
  return {
    'recall@1': avg((x) => recallAtK(x.relevant, x.ranked, 1)),
    'recall@3': avg((x) => recallAtK(x.relevant, x.ranked, 3)),
    'recall@5': avg((x) => recallAtK(x.relevant, x.ranked, 5)),
    'recall@10': avg((x) => recallAtK(x.relevant, x.ranked, 10)),
    'ndcg@5': avg((x) => ndcgAtK(x.relevant, x.ranked, 5)),
    'ndcg@5_standard': avg((x) => ndcgAtKStandard(x.relevant, x.ranked, 5)),
  }
}

/**
 * LoCoMo evidence ids of a question: each entry split on `;`, trimmed, de-duplicated, and only the
 * ids that name a turn of the conversation (`known`) kept.
 */
export function parseEvidence(evidence: string[], known: (id: string) => boolean): string[] {
  const out = new Set<string>()
  for (const entry of evidence) {
    for (const part of String(entry).split(';')) {
      const id = part.trim()
      if (id && known(id)) out.add(id)
    }
  }
  return [...out]
}

/** Fraction of `evidence` contained in `chosen`; `undefined` when there is no evidence to find. */
export function evidenceRecall(evidence: string[], chosen: Iterable<string>): number | undefined {
  if (!evidence.length) return undefined
  const have = new Set(chosen)
  return evidence.filter((id) => have.has(id)).length / evidence.length
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0
}

/** Rounded for JSON and tables (4 decimals). */
export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000
}

/** The nearest-rank percentile `p` (0–100) of `values`; 0 when there are none. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
