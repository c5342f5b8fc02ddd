import type { FactsPart, RetrievedMemory } from '../facts'
import { Reranker } from '../facts'
import type { MessageRow, MessagesPart } from '../messages'
import type { AskerScope, LineCandidate } from './line-candidates'
import { lineCandidates } from './line-candidates'
import { asksWhen, saysWhen, withoutAsker } from './query-focus'
import type { MemoryQuery, RecalledMemory, SourceLine } from './recalled'

export interface FusedRecallDeps {
  facts: FactsPart
  messages: MessagesPart
  /** Share of BM25 in the ranking; the rest is embedding similarity. */
  lexicalShare: number
}

/** Facts fetched per memory asked for: a fact and its lines compete for a place, the better one keeps it. */
const FACTS_PER_RESULT = 2
const MIN_FACTS = 10
/** How much more a memory that says when weighs for a question about when. */
const DATED_WEIGHT = 1.25

interface Candidate {
  id: string
  /** What the candidate is ranked by: a fact with the lines it came from, a line with the line it answers. */
  text: string
  similarity: number
  fact?: RetrievedMemory
  line?: LineCandidate
}

const sourceOf = (row: MessageRow): SourceLine => ({
  id: row.id,
  userId: row.userId,
  ...(row.userName && { name: row.userName }),
  content: row.content,
  time: row.createdAt,
})

const keyOf = (line: LineCandidate) => (line.answers ? `${line.answers.content}\n${line.row.content}` : line.row.content)

/**
 * A user's memories for a query, facts and the lines they said fused in one ranked list (design
 * §4.4): the facts the index finds, with the lines each came from; the user's lines the index finds;
 * in a guild, the user's answers to lines of others the index finds. A fact is ranked by its text and
 * its lines together and stands for them; a line no listed fact came from is listed itself. Facts
 * are a key to the person's words, never in place of them.
 */
export class FusedRecall {
  private readonly reranker = new Reranker()

  constructor(private readonly deps: FusedRecallDeps) {}

  async recall(scope: AskerScope, query: string, options: MemoryQuery): Promise<RecalledMemory[]> {
    const { facts, messages } = this.deps
    // closed facts too: what they came from is no longer true, and their lines are not listed for themselves
    const hits = await facts.retriever.retrieve(scope, query, Math.max(options.topK * FACTS_PER_RESULT, MIN_FACTS), options.minScore, {
      history: true,
    })
    const rows = new Map((await facts.store.get(hits.map((fact) => fact.id))).map((row) => [row.id, row]))
    const found = options.history ? hits : hits.filter((fact) => !fact.validTo)
    const sourceRows = new Map(
      (await messages.store.byIds([...new Set(found.flatMap((fact) => rows.get(fact.id)?.sourceIds ?? []))])).map((row) => [row.id, row]),
    )
    const sourcesOf = (fact: RetrievedMemory) => (rows.get(fact.id)?.sourceIds ?? []).flatMap((id) => sourceRows.get(id) ?? [])
    if (options.factsOnly) return found.slice(0, options.topK).map((fact) => asFact(fact, sourcesOf(fact).map(sourceOf)))
    const outdated = new Set(hits.filter((fact) => fact.validTo).flatMap((fact) => rows.get(fact.id)?.sourceIds ?? []))

    const lexicalOnly = this.deps.lexicalShare >= 1
    const gate = lexicalOnly ? -Infinity : options.minScore
    const lines = (await lineCandidates(messages, scope, query, gate, [...sourceRows.values()])).filter(
      (line) => sourceRows.has(line.row.id) || !outdated.has(line.row.id),
    )
    const byId = new Map(lines.map((line) => [line.row.id, line]))
    const covered = new Set<string>()
    // a current fact found through the fact it closed is ranked with that one's words too ("住在哪" → 搬到上海)
    const closedBy = new Map<string, string[]>()
    for (const hit of hits) {
      const next = rows.get(hit.id)?.supersededBy
      if (hit.validTo && next) closedBy.set(next, [...(closedBy.get(next) ?? []), hit.content])
    }
    const candidates: Candidate[] = found.map((fact) => {
      const own = sourcesOf(fact).map((row) => byId.get(row.id) ?? { row, similarity: 0 })
      for (const line of own) covered.add(line.row.id)
      return {
        id: fact.id,
        text: [fact.content, ...(closedBy.get(fact.id) ?? []), ...own.map(keyOf)].join('\n'),
        similarity: fact.score,
        fact,
      }
    })
    for (const line of lines) {
      if (!covered.has(line.row.id)) candidates.push({ id: line.row.id, text: keyOf(line), similarity: line.similarity, line })
    }
    if (!candidates.length) return []

    const names = [scope.userId, ...lines.filter((line) => line.row.userId === scope.userId).map((line) => line.row.userName)]
    const focus = withoutAsker(query, names)
    const when = asksWhen(query)
    const ranked = this.reranker
      .rerank(focus, candidates, this.deps.lexicalShare)
      .map((candidate) => ({
        ...candidate,
        relevance: when && saysWhen(candidate.text) ? candidate.relevance * DATED_WEIGHT : candidate.relevance,
      }))
      .filter((candidate) => !lexicalOnly || candidate.relevance > 0)
      .sort((a, b) => b.relevance - a.relevance)
    const top = Math.max(0, ...ranked.map((candidate) => candidate.relevance))
    return ranked.slice(0, options.topK).map((candidate) => {
      const relevance = top > 0 ? candidate.relevance / top : 0
      if (candidate.fact) return { ...asFact(candidate.fact, sourcesOf(candidate.fact).map(sourceOf)), relevance }
      return asLine(candidate.line!, relevance)
    })
  }
}

function asFact(fact: RetrievedMemory, sources: SourceLine[]): RecalledMemory {
  return { ...fact, kind: 'fact', sources }
}

function asLine({ row, answers, similarity }: LineCandidate, relevance: number): RecalledMemory {
  return {
    id: row.id,
    content: row.content,
    score: similarity,
    relevance,
    createdAt: row.createdAt,
    scope: { platform: row.platform, userId: row.userId, guildId: row.guildId, channelId: row.channelId },
    kind: 'message',
    sources: [...(answers ? [sourceOf(answers)] : []), sourceOf(row)],
  }
}
