import type { ChannelRef, MessageRow, MessageStore } from '../messages'
import type { ContextBuilderConfig, ContextBuilderDeps } from './builder-config'
import type { TextFeatureCache, TextFeatures } from './text-features'
import type { CandidateSource, ContextTarget } from './types'

export interface Candidate {
  row: MessageRow
  sources: Set<CandidateSource>
  replyDepth?: number
  sameThread?: boolean
  /** Cosine similarity of the embeddings. */
  similarity?: number
  /**
   * Best candidates this turn sits next to: distance in turns, and a factor for how much the stretch
   * between them looks like one conversation (1 for a dialogue, ½ when more people talk in it).
   */
  near?: { id: string; distance: number; factor: number }[]
  /** Its text's features, looked up once per build. */
  features?: TextFeatures
}

/** A search hit of the channel, as its row. */
export interface Neighbour {
  row: MessageRow
  similarity: number | undefined
}

type Sources = Pick<ContextBuilderDeps, 'store' | 'search' | 'topicOf' | 'counters' | 'logger'>

/** The candidates of one build by row id: a message that several sources bring is one candidate. */
export class CandidatePool {
  private readonly candidates = new Map<string, Candidate>()

  constructor(private readonly target: ContextTarget) {}

  /** The candidate `row` is or becomes; none for the target itself, a command, a later message or another channel's. */
  add(row: MessageRow, source: CandidateSource, extra: Partial<Candidate> = {}) {
    const { target } = this
    if (
      isTarget(row, target) ||
      row.isCommand ||
      row.createdAt > target.time ||
      row.platform !== target.platform ||
      row.channelId !== target.channelId
    )
      return undefined
    let candidate = this.candidates.get(row.id)
    if (!candidate) this.candidates.set(row.id, (candidate = { row, sources: new Set() }))
    candidate.sources.add(source)
    if (extra.replyDepth !== undefined) candidate.replyDepth = Math.min(candidate.replyDepth ?? Infinity, extra.replyDepth)
    if (extra.sameThread) candidate.sameThread = true
    if (extra.similarity !== undefined) candidate.similarity = Math.max(candidate.similarity ?? -1, extra.similarity)
    return candidate
  }

  list(): Candidate[] {
    return [...this.candidates.values()]
  }
}

export function featuresOf(candidate: Candidate, texts: TextFeatureCache): TextFeatures {
  return (candidate.features ??= texts.of(candidate.row))
}

export function isTarget(row: MessageRow, target: ContextTarget) {
  return Boolean(target.messageId) && row.messageId === target.messageId
}

/**
 * The pool of the reply structure (chain, thread, topic), the recent window and the semantic
 * neighbours, with the target's topic ('' when none is known) and the window's rows.
 */
export async function gatherCandidates(
  sources: Sources,
  target: ContextTarget,
  settings: Pick<ContextBuilderConfig, 'timeWindowHours' | 'maxMessages' | 'replyDepth' | 'threadLimit' | 'topicLimit'>,
  semantic: Promise<Neighbour[]>,
) {
  const before = target.time
  const since = new Date(before.getTime() - settings.timeWindowHours * 3_600_000)
  const pool = new CandidatePool(target)
  const structural = addStructure(sources, target, pool, settings)
  const window =
    settings.maxMessages > 0 ? sources.store.window(target, { since, before, limit: settings.maxMessages }) : Promise.resolve([])
  // awaited together, so that a failure of one never leaves the other's rejection unhandled
  const [topicId, windowRows] = await Promise.all([structural, window])
  for (const row of windowRows) pool.add(row, 'time-window')
  for (const found of await semantic) pool.add(found.row, 'semantic', { similarity: found.similarity })
  return { pool, topicId, windowRows }
}

/** Adds the reply chain, the thread it started from and the target's topic; resolves to that topic. */
async function addStructure(
  sources: Pick<Sources, 'store' | 'topicOf'>,
  target: ContextTarget,
  pool: CandidatePool,
  settings: Pick<ContextBuilderConfig, 'replyDepth' | 'threadLimit' | 'topicLimit'>,
): Promise<string> {
  const { store } = sources
  const before = target.time
  const chain = await replyChain(store, target, settings.replyDepth)
  chain.forEach((row, i) => pool.add(row, 'reply-chain', { replyDepth: i + 1 }))
  const own = target.messageId ? (await store.byMessageIds(target, [target.messageId]))[0] : undefined
  const root =
    own?.rootMessageId && own.rootMessageId !== own.messageId ? own.rootMessageId : chain.at(-1)?.rootMessageId || chain.at(-1)?.messageId
  const topicId =
    own?.topicId || chain.find((row) => row.topicId)?.topicId || (await sources.topicOf?.(target).catch(() => undefined)) || ''
  await Promise.all([
    root && settings.threadLimit > 0
      ? (async () => {
          const [rootRow] = await store.byMessageIds(target, [root])
          if (rootRow) pool.add(rootRow, 'thread-root', { sameThread: true })
          for (const row of await store.byRoot(target, root, { before, limit: settings.threadLimit }))
            pool.add(row, 'thread-root', { sameThread: true })
        })()
      : undefined,
    topicId && settings.topicLimit > 0
      ? (async () => {
          for (const row of await store.byTopic(topicId, { before, limit: settings.topicLimit, channel: target })) pool.add(row, 'topic')
        })()
      : undefined,
  ])
  return topicId
}

/** The messages the target replies to, nearest first, `depth` links at most. */
async function replyChain(store: MessageStore, target: ContextTarget, depth: number): Promise<MessageRow[]> {
  const chain: MessageRow[] = []
  const seen = new Set<string>()
  let next = target.replyMessageId
  while (next && chain.length < depth && !seen.has(next)) {
    seen.add(next)
    const [row] = await store.byMessageIds(target, [next])
    if (!row) break
    chain.push(row)
    next = row.replyMessageId
  }
  return chain
}

/** Search hits of the channel, as rows. A failing search yields none (and is counted). */
export async function semanticNeighbours(
  sources: Pick<Sources, 'search' | 'store' | 'counters' | 'logger'>,
  target: ContextTarget,
  limit: number,
  vector?: Float32Array,
): Promise<Neighbour[]> {
  const { search, store } = sources
  if (!search || limit < 1 || !target.content.trim()) return []
  try {
    const hits = (await search(target, target.content, { limit, vector })).filter((hit) => hit.createdAt <= target.time)
    if (!hits.length) return []
    const similarity = new Map(hits.map((hit) => [hit.id, hit.similarity]))
    return (await store.byIds(hits.map((hit) => hit.id))).map((row) => ({ row, similarity: similarity.get(row.id) }))
  } catch (error) {
    sources.counters.inc('context.search-failed')
    sources.logger.debug('semantic neighbours unavailable: %s', (error as Error).message)
    return []
  }
}

/**
 * Adds the `turns` messages before and after each of `best`; one that can carry on the conversation
 * of the candidate it sits next to remembers it (`near`), to inherit part of its relevance.
 */
export async function addAdjacent(
  store: MessageStore,
  target: ContextTarget,
  pool: CandidatePool,
  best: MessageRow[],
  turns: number,
  windowRows: MessageRow[],
) {
  const known = [...windowRows, ...pool.list().map((candidate) => candidate.row)]
  for (const { row, of, distance, factor } of await around(store, target, best, turns, known)) {
    const candidate = pool.add(row, 'adjacent')
    if (!candidate || candidate.row.id === of.id || !continues(of, row)) continue
    ;(candidate.near ??= []).push({ id: of.id, distance, factor })
  }
}

/**
 * The `turns` messages before and after each row, with their distance in turns and how much the
 * stretch looks like one conversation: 1 when at most two people talk in it, ½ when more do
 * (interleaved group talk, where the next line is often about something else).
 */
async function around(store: MessageStore, channel: ChannelRef, rows: MessageRow[], turns: number, known: MessageRow[]) {
  const found = await store.around(
    channel,
    rows.map((row) => row.createdAt),
    turns,
    known,
  )
  return rows.flatMap((row, i) => {
    const { before: earlier, after: later } = found[i]
    const speakers = new Set([row, ...earlier, ...later].map((near) => near.userId)).size
    const factor = speakers > 2 ? 0.5 : 1
    return [
      ...earlier.map((near, j) => ({ row: near, of: row, distance: earlier.length - j, factor })),
      ...later.map((near, j) => ({ row: near, of: row, distance: j + 1, factor })),
    ]
  })
}

/**
 * Whether `near` can carry on the conversation of `hit`: not when `near` explicitly replies to some
 * third message. The topic attribution is not asked: in a two-person talk the answer to a question
 * often shares no word with it, and the offline attribution puts about one such pair in nine into
 * different topics (LoCoMo: evidence recall at 1,000 tokens 0.792 when that cut the link, 0.798 at
 * half, 0.810 ignored); interleaved group talk is weakened by `around()`'s speaker factor instead.
 */
function continues(hit: MessageRow, near: MessageRow): boolean {
  const replied = near.createdAt > hit.createdAt ? near.replyMessageId : hit.replyMessageId
  const other = near.createdAt > hit.createdAt ? hit.messageId : near.messageId
  return !replied || replied === other
}
