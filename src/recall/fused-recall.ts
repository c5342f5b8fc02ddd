import type { FactRow, FactsPart, RetrievedMemory } from '../facts'
import type { Reranker } from '../facts'
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
  /** The listed facts a line came from, when several did. */
  namedBy?: string[]
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
  constructor(private readonly deps: FusedRecallDeps) {}

  private get reranker(): Reranker {
    return this.deps.facts.retriever.reranker
  }

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
    const candidates = fuse(found, lines, sourcesOf, closedWords(hits, rows))
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
    const listed = new Set<string>()
    const chosen: RecalledMemory[] = []
    for (const candidate of ranked) {
      if (chosen.length >= options.topK) break
      // a line several facts came from is listed itself only when none of them is listed above it
      if (candidate.namedBy?.some((id) => listed.has(id))) continue
      listed.add(candidate.id)
      const relevance = top > 0 ? candidate.relevance / top : 0
      chosen.push(
        candidate.fact
          ? { ...asFact(candidate.fact, sourcesOf(candidate.fact).map(sourceOf)), relevance }
          : asLine(candidate.line!, relevance),
      )
    }
    return chosen
  }
}

/** The words of each closed fact, under the current fact that closed it. */
function closedWords(hits: RetrievedMemory[], rows: Map<string, FactRow>): Map<string, string[]> {
  const words = new Map<string, string[]>()
  for (const hit of hits) {
    const next = rows.get(hit.id)?.supersededBy
    if (hit.validTo && next) words.set(next, [...(words.get(next) ?? []), hit.content])
  }
  return words
}

/**
 * The candidates of one ranking: each fact with the lines only it came from (and, when it was found
 * through a fact it closed, that one's words: "住在哪" → 搬到上海), and the lines no fact covers so.
 * A line several facts came from is a candidate of its own: its words would lend every one of them
 * what the others say ("我叫小明，是一名大学老师" is no answer to "叫什么名字" for the teacher fact).
 */
function fuse(
  found: RetrievedMemory[],
  lines: LineCandidate[],
  sourcesOf: (fact: RetrievedMemory) => MessageRow[],
  closed: Map<string, string[]>,
): Candidate[] {
  const byId = new Map(lines.map((line) => [line.row.id, line]))
  const naming = new Map<string, string[]>()
  for (const fact of found) for (const row of sourcesOf(fact)) naming.set(row.id, [...(naming.get(row.id) ?? []), fact.id])
  const candidates: Candidate[] = found.map((fact) => {
    const own = sourcesOf(fact)
      .filter((row) => naming.get(row.id)!.length === 1)
      .map((row) => byId.get(row.id) ?? { row, similarity: 0 })
    return { id: fact.id, text: [fact.content, ...(closed.get(fact.id) ?? []), ...own.map(keyOf)].join('\n'), similarity: fact.score, fact }
  })
  for (const line of lines) {
    const namedBy = naming.get(line.row.id)
    if (namedBy?.length === 1) continue
    candidates.push({ id: line.row.id, text: keyOf(line), similarity: line.similarity, line, ...(namedBy && { namedBy }) })
  }
  return candidates
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
