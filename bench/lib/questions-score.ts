/**
 * Scoring of `bench:questions`: which retrieved items carry a statement's evidence, what the questions
 * left behind in memory, and recall broken down by language and kind.
 */

/** What a result of `retrieve` may carry: the fused shape (`kind`, `sources`) or today's fact-only shape. */
export interface RetrievedLike {
  id: string
  kind?: string
  sources?: { id: string }[]
}

/**
 * The message row ids a result stands on: its `sources` when it carries them; else the `sourceIds`
 * of its fact row (`factSources`); else its own id, which for a raw message is its row id.
 */
export function evidenceOf(result: RetrievedLike, factSources: ReadonlyMap<string, string[]>): string[] {
  if (result.sources) return result.sources.map((source) => source.id)
  return factSources.get(result.id) ?? [result.id]
}

/** The 1-based rank of the first result carrying any of `expected`; 0 when none does. */
export function firstHit(results: RetrievedLike[], expected: string[], factSources: ReadonlyMap<string, string[]>): number {
  const want = new Set(expected)
  const index = results.findIndex((result) => evidenceOf(result, factSources).some((id) => want.has(id)))
  return index + 1
}

/** Whether a hit at `rank` (0: missed) lies within the top `k`. */
export const within = (rank: number, k: number) => rank > 0 && rank <= k

/** A memory item and the message ids it was drawn from (a fact, an entity, a relation, a preference, a trait). */
export interface SourcedItem {
  kind: string
  id: string
  sourceIds: string[]
  /** What the item says, for the report. */
  text?: string
}

/** The items drawn from any of the `questions` (message row ids), counted per kind. */
export function storedFrom(
  items: SourcedItem[],
  questions: ReadonlySet<string>,
): { total: number; byKind: Record<string, number>; examples: string[] } {
  const byKind: Record<string, number> = {}
  const examples: string[] = []
  let total = 0
  for (const item of items) {
    if (!item.sourceIds.some((id) => questions.has(id))) continue
    byKind[item.kind] = (byKind[item.kind] ?? 0) + 1
    if (item.text !== undefined) examples.push(`${item.kind}: ${item.text}`)
    total++
  }
  return { total, byKind, examples }
}

/** A row that can be closed: a fact (`validTo`, `supersededBy`) or a relation (`validTo`). */
export interface Closable {
  id: string
  validTo?: Date | null
  supersededBy?: string
}

const isClosed = (row: Closable) => Boolean(row.validTo || row.supersededBy)

/** Ids of the rows closed in `after` that were open (or absent) in `before`. */
export function newlyClosed(before: Closable[], after: Closable[]): string[] {
  const open = new Set(before.filter((row) => !isClosed(row)).map((row) => row.id))
  const known = new Set(before.map((row) => row.id))
  return after.filter((row) => isClosed(row) && (open.has(row.id) || !known.has(row.id))).map((row) => row.id)
}

/** One asked question's outcome, tagged for the breakdowns. */
export interface Outcome {
  language: string
  kinds: string[]
  rank: number
  baselineRank: number
}

export interface RecallSummary {
  cases: number
  'recall@1': number
  'recall@3': number
  'baseline_recall@1': number
  'baseline_recall@3': number
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000

export function summarise(outcomes: Outcome[]): RecallSummary {
  const share = (hit: (outcome: Outcome) => boolean) =>
    outcomes.length ? round4(outcomes.filter(hit).length / outcomes.length) : 0
  return {
    cases: outcomes.length,
    'recall@1': share((o) => within(o.rank, 1)),
    'recall@3': share((o) => within(o.rank, 3)),
    'baseline_recall@1': share((o) => within(o.baselineRank, 1)),
    'baseline_recall@3': share((o) => within(o.baselineRank, 3)),
  }
}

/** `summarise` per value of `key` (an outcome counts under every value it has), keys sorted. */
export function breakdown(outcomes: Outcome[], key: (outcome: Outcome) => string[]): Record<string, RecallSummary> {
  const groups = new Map<string, Outcome[]>()
  for (const outcome of outcomes) {
    for (const value of key(outcome)) groups.set(value, [...(groups.get(value) ?? []), outcome])
  }
  return Object.fromEntries([...groups.keys()].sort().map((value) => [value, summarise(groups.get(value)!)]))
}
