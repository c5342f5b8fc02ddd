import type { Embedder } from '../providers/types'
import type { Logger } from '../core/observability'
import type { Counters } from '../core/observability'
import type { Scope, SpeakerRef, UserRef } from '../scope'
import type { FactIndex } from './fact-index'
import type { FactStore } from './store'
import type { FactRow } from './table'
import { isCurrent, validSince } from './table'
import type { Extraction, KnownFact, MemoryJudge, Turn } from './judge'
import type { Claim } from './contradiction'
import { claimsOf, contradicts } from './contradiction'
import { drawnOnlyFromQuestions, turnsOnlyAsk } from './question-evidence'
import { prefilter } from './prefilter'
import type { KeyedLock } from '../core/keyed-lock'

export interface Dialogue {
  /**
   * Where the dialogue was said, and its user when it has one speaker. A group dialogue has several:
   * each user turn names its speaker (`Turn.userId`), and each fact is stored for the person it is about.
   */
  owner: SpeakerRef
  turns: Turn[]
  /** Message row ids of the dialogue; one per turn, in order, lets a fact name only the turns it came from. */
  sourceIds: string[]
}

/** One fact a dialogue stored: new, or a new version of a fact the user already had. */
export interface StoredFact {
  fact: FactRow
  updated: boolean
  /** Ids of the user's facts this one closed (it contradicts them). */
  closed?: string[]
}

/** The judge's answer rides along, so what else it read (entities, relations, preferences) can be learnt from. */
export type MemorizeOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'rejected'; reason: string; extraction?: Extraction }
  | { status: 'stored'; facts: StoredFact[]; extraction?: Extraction }
  | { status: 'failed'; stage: 'extract'; error: string }

export interface MemorizeDeps {
  judge: MemoryJudge
  embedder: Embedder
  facts: FactStore
  factIndex: FactIndex
  counters: Counters
  logger: Logger
  dedupeThreshold: number
  commandPrefixes: string[]
  newId(): string
  now(): Date
  /**
   * One write per user at a time (`factLockKey`), so two dialogues stating the same fact at once store it
   * once, and a forget waits for a write under way.
   */
  lock?: KeyedLock
  /** When the user was last forgotten (`forget --all`): facts from what they said before are not stored. */
  forgottenAt?(owner: UserRef): Date | undefined
}

/** The lock a user's fact writes and their erasure share. */
export function factLockKey(owner: UserRef): string {
  return JSON.stringify([owner.platform, owner.userId])
}

/** The scope a fact is de-duplicated and retrieved in: one user, in one guild or in private. */
export function ownerScope(owner: SpeakerRef): Scope {
  return { platform: owner.platform, userId: owner.userId, guildId: owner.guildId }
}

/** Most current facts of each speaker shown to a judge that reads them. */
const KNOWN_PER_SPEAKER = 8
/** Most current facts of a user read to find the ones a new claim contradicts. */
const MAX_CLAIM_CANDIDATES = 500

/**
 * Post-dialogue chain (design §4.2): prefilter → the speakers' nearest current facts (for a judge
 * that reads them) → extract (one judge call lists the facts, and which known fact each replaces) → for
 * each fact on its own: embed → dedupe against the user's current facts in scope → a new version of
 * the duplicate, or a new fact that closes the facts it contradicts (design §4.3).
 */
export async function memorize(deps: MemorizeDeps, dialogue: Dialogue): Promise<MemorizeOutcome> {
  const { counters } = deps
  const filtered = prefilter(dialogue.turns, deps.commandPrefixes)
  if (!filtered.pass) {
    counters.inc(`memorize.skipped.${filtered.reason}`)
    return { status: 'skipped', reason: filtered.reason }
  }

  const now = deps.now()
  let extraction: Extraction
  counters.inc('memorize.extractions')
  try {
    const known = deps.judge.readsKnownFacts ? await knownFacts(deps, dialogue) : undefined
    extraction = await deps.judge.extract(dialogue.turns, { now, ...(known && { known }) })
  } catch (error) {
    counters.inc('memorize.failed.extract')
    deps.logger.warn('memory extraction failed: %s', (error as Error).message)
    return { status: 'failed', stage: 'extract', error: (error as Error).message }
  }
  const extracted = extraction.facts.map((fact) => ({ ...fact, statement: fact.statement.trim() })).filter((fact) => fact.statement)
  if (!extracted.length) {
    counters.inc('memorize.rejected')
    return { status: 'rejected', reason: extraction.reason, extraction }
  }

  const vectors = await embedOrUndefined(
    deps,
    extracted.map((fact) => fact.statement),
  )
  const stored: StoredFact[] = []
  for (const [i, { statement, turns, about, replaces, validFrom, reason }] of extracted.entries()) {
    // whatever the judge said, a question, a request or a hypothetical is no memory and closes nothing
    if (turns?.length ? turnsOnlyAsk(dialogue.turns, turns) : drawnOnlyFromQuestions(statement, dialogue.turns)) {
      counters.inc('memorize.question-dropped')
      continue
    }
    const owner = factOwner(dialogue, turns, about)
    if (!owner) {
      // a fact whose person cannot be told is stored for nobody rather than for the wrong user
      counters.inc('memorize.unattributed')
      continue
    }
    const vector = vectors?.[i]
    const sourceIds = sourcesOf(dialogue, turns, owner.userId)
    const said = saidAt(dialogue, owner.userId)
    const write = async () => {
      // a forget that came after these words were said (while this dialogue waited or ran) wins
      const forgotten = deps.forgottenAt?.(owner)
      if (forgotten && said && said <= forgotten) {
        counters.inc('memorize.fenced')
        return undefined
      }
      const since = validFrom ?? turnsTime(dialogue, turns) ?? said ?? now
      return storeFact(deps, owner, { statement, vector, sourceIds, reason: reason ?? extraction.reason, now, since, replaces })
    }
    const result = await (deps.lock ? deps.lock.run(factLockKey(owner), write) : write())
    if (result) stored.push(result)
  }
  if (!stored.length) return { status: 'rejected', reason: 'no fact could be told whom it is about', extraction }
  counters.inc('memorize.dialogues-stored')
  return { status: 'stored', facts: stored, extraction }
}

/**
 * Each speaker's current facts nearest to what they said in the dialogue, for the judge to tell which
 * of them a new fact replaces. Bounded (`KNOWN_PER_SPEAKER`); nothing when the embedder or index fails.
 */
async function knownFacts(deps: MemorizeDeps, dialogue: Dialogue): Promise<KnownFact[]> {
  const people = speakers(dialogue).map((userId) => {
    const said = dialogue.turns.filter((turn) => turn.role === 'user' && (turn.userId ?? dialogue.owner.userId) === userId)
    return { userId, name: said.at(-1)?.name.trim() || userId, text: said.map((turn) => turn.content).join('\n') }
  })
  try {
    const vectors = await deps.embedder.embed(people.map((person) => person.text))
    const known: KnownFact[] = []
    for (const [i, person] of people.entries()) {
      const scope = ownerScope({ ...dialogue.owner, userId: person.userId })
      const hits = await deps.factIndex.nearest(vectors[i], scope, KNOWN_PER_SPEAKER * 2)
      const rows = await deps.facts.get(hits.map((hit) => hit.id))
      const byId = new Map(rows.filter(isCurrent).map((row) => [row.id, row]))
      const nearest = hits.flatMap((hit) => byId.get(hit.id) ?? []).slice(0, KNOWN_PER_SPEAKER)
      known.push(...nearest.map((row) => ({ id: row.id, about: person.name, statement: row.content })))
    }
    return known
  } catch (error) {
    deps.counters.inc('memorize.known-skipped')
    deps.logger.debug('known facts unavailable, extracting without them: %s', (error as Error).message)
    return []
  }
}

interface NewFact {
  statement: string
  vector?: Float32Array
  sourceIds: string[]
  reason: string
  now: Date
  /** When it became true. */
  since: Date
  /** Ids of facts the judge says it replaces; undefined when the judge said nothing (then the rules decide). */
  replaces?: string[]
}

/**
 * Stores one fact of `owner`: a new version of its duplicate in the owner's scope, or a new fact that
 * closes the owner's current facts it contradicts. A near duplicate that the fact contradicts ("lives in
 * Chengdu" / "lives in Shanghai") is a different fact, never a new version of it.
 */
async function storeFact(deps: MemorizeDeps, owner: SpeakerRef, fact: NewFact): Promise<StoredFact> {
  const { counters } = deps
  const { statement, vector, sourceIds, reason, now, since, replaces } = fact
  const claims = claimsOf(statement)
  const scope = ownerScope(owner)
  const earlier = await deps.facts.findByContent(scope, statement, { history: true })
  if (earlier && !isCurrent(earlier) && sourceIds.every((id) => earlier.sourceIds.includes(id))) {
    // a dialogue memorised again whose fact a later statement has closed since: nothing new
    counters.inc('memorize.repeated')
    return { fact: earlier, updated: false }
  }
  let duplicate = await findDuplicate(deps, scope, statement, vector)
  if (duplicate && (replaces?.includes(duplicate.id) || contradicts(claims, claimsOf(duplicate.content)))) duplicate = undefined
  if (duplicate) {
    const changed = duplicate.content !== statement
    if (!changed && sourceIds.every((id) => duplicate.sourceIds.includes(id))) {
      // the same dialogue memorised again (a retry, or a restart before its watermark moved): nothing new
      counters.inc('memorize.repeated')
      return { fact: duplicate, updated: false }
    }
    const patch = {
      content: statement,
      reason,
      version: duplicate.version + 1,
      sourceIds: [...new Set([...duplicate.sourceIds, ...sourceIds])],
      updatedAt: now,
    }
    await deps.facts.update(duplicate.id, patch)
    const updated = { ...duplicate, ...patch }
    if (changed || !vector) await deps.factIndex.put([updated], [], vector && [vector])
    counters.inc('memorize.updated')
    return { fact: updated, updated: true }
  }
  const row: FactRow = {
    id: deps.newId(),
    ...owner,
    content: statement,
    reason,
    version: 1,
    parentId: '',
    sourceIds,
    createdAt: now,
    updatedAt: now,
    validFrom: since,
    validTo: null,
    supersededBy: '',
  }
  await deps.facts.insert(row)
  await deps.factIndex.put([row], [], vector && [vector])
  counters.inc('memorize.stored')
  const closed = await closeContradicted(deps, row, replaces, claims)
  return { fact: row, updated: false, ...(closed.length && { closed }) }
}

/**
 * Closes the owner's current facts the new one contradicts: those the judge named, else those the rules
 * find (same single-valued predicate, another value). Each ends when the new one began. A contradicted
 * fact that began later than the new one is the newer truth: then the new fact is stored closed by it.
 * Returns the ids closed.
 */
async function closeContradicted(deps: MemorizeDeps, row: FactRow, replaces: string[] | undefined, claims: Claim[]): Promise<string[]> {
  const scope = ownerScope(row)
  const sameScope = (other: FactRow) =>
    other.id !== row.id && other.platform === row.platform && other.userId === row.userId && other.guildId === row.guildId
  let targets: FactRow[] = []
  if (replaces) targets = (await deps.facts.get(replaces)).filter((other) => sameScope(other) && isCurrent(other))
  else if (claims.length) {
    const current = await deps.facts.list(scope, MAX_CLAIM_CANDIDATES)
    targets = current.filter((other) => sameScope(other) && contradicts(claims, claimsOf(other.content)))
  }
  const since = row.validFrom!
  const closed: string[] = []
  for (const target of targets) {
    if (validSince(target) > since) {
      await deps.facts.update(row.id, { validTo: validSince(target), supersededBy: target.id })
      row.validTo = validSince(target)
      row.supersededBy = target.id
      deps.counters.inc('memorize.stored-closed')
      break
    }
    await deps.facts.update(target.id, { validTo: since, supersededBy: row.id })
    closed.push(target.id)
  }
  if (closed.length) deps.counters.inc('memorize.closed', closed.length)
  return closed
}

/** When the turns a fact came from were said (the latest), if the judge named them and they carry times. */
function turnsTime(dialogue: Pick<Dialogue, 'turns'>, turns: number[] | undefined): Date | undefined {
  const times = (turns ?? []).flatMap((i) => dialogue.turns[i]?.time?.getTime() ?? [])
  return times.length ? new Date(Math.max(...times)) : undefined
}

/** When the user last spoke in the dialogue (undefined when the turns carry no time). */
export function saidAt(dialogue: Pick<Dialogue, 'owner' | 'turns'>, userId: string): Date | undefined {
  const times = dialogue.turns
    .filter((turn) => turn.role === 'user' && (turn.userId ?? dialogue.owner.userId) === userId && turn.time)
    .map((turn) => turn.time!.getTime())
  return times.length ? new Date(Math.max(...times)) : undefined
}

/** Speakers of the dialogue's user turns (turns that name none are the dialogue owner's). */
export function speakers(dialogue: Pick<Dialogue, 'owner' | 'turns'>): string[] {
  return [...new Set(dialogue.turns.filter((turn) => turn.role === 'user').map((turn) => turn.userId ?? dialogue.owner.userId))]
}

/**
 * Whom a fact is about: the speaker of the turns it came from; else the person the judge named (by the
 * name shown in the conversation); else the one speaker of the dialogue. Undefined when it cannot be told.
 */
function factOwner(
  dialogue: Pick<Dialogue, 'owner' | 'turns'>,
  turns: number[] | undefined,
  about: string | undefined,
): SpeakerRef | undefined {
  const as = (userId: string) => ({ ...dialogue.owner, userId })
  const fromTurns = [
    ...new Set(
      (turns ?? [])
        .map((i) => dialogue.turns[i])
        .filter((turn) => turn?.role === 'user')
        .map((turn) => turn.userId ?? dialogue.owner.userId),
    ),
  ]
  if (fromTurns.length === 1) return as(fromTurns[0])
  const all = speakers(dialogue)
  if (about) {
    const named = [
      ...new Set(
        dialogue.turns
          .filter((turn) => turn.role === 'user' && turn.name.trim() === about)
          .map((turn) => turn.userId ?? dialogue.owner.userId),
      ),
    ]
    if (named.length === 1) return as(named[0])
  }
  return all.length === 1 ? as(all[0]) : undefined
}

/**
 * The message ids a fact names as its sources: the turns it was drawn from and the bot's answers to
 * them, when the judge tells the turns and the dialogue has one id per turn; else the whole dialogue.
 */
export function sourcesOf(
  dialogue: Pick<Dialogue, 'owner' | 'turns' | 'sourceIds'>,
  turns: number[] | undefined,
  userId?: string,
): string[] {
  const { sourceIds } = dialogue
  if (sourceIds.length !== dialogue.turns.length) return [...sourceIds]
  // no turns named: every turn of the person the fact is about
  if (!turns?.length) {
    turns = dialogue.turns.flatMap((turn, i) =>
      turn.role === 'user' && (userId === undefined || (turn.userId ?? dialogue.owner.userId) === userId) ? [i] : [],
    )
  }
  const picked = new Set<number>()
  for (const index of turns) {
    if (!Number.isInteger(index) || index < 0 || index >= sourceIds.length) return [...sourceIds]
    picked.add(index)
    for (let next = index + 1; next < dialogue.turns.length && dialogue.turns[next].role === 'assistant'; next++) picked.add(next)
  }
  return [...picked].sort((a, b) => a - b).map((index) => sourceIds[index])
}

async function embedOrUndefined(deps: MemorizeDeps, texts: string[]) {
  try {
    return await deps.embedder.embed(texts)
  } catch (error) {
    deps.counters.inc('memorize.embed-failed')
    deps.logger.debug('embedding failed, the fact will be indexed later: %s', (error as Error).message)
  }
}

/** Nearest facts looked at for a duplicate: closed facts stay in the index, and a duplicate must be current. */
const DUPLICATE_CANDIDATES = 3

/** The same current statement, or (when the index answers) the nearest current fact above the threshold. */
async function findDuplicate(deps: MemorizeDeps, scope: Scope, statement: string, vector?: Float32Array) {
  const exact = await deps.facts.findByContent(scope, statement)
  if (exact || !vector) return exact
  try {
    const hits = (await deps.factIndex.nearest(vector, scope, DUPLICATE_CANDIDATES)).filter((hit) => hit.similarity >= deps.dedupeThreshold)
    if (!hits.length) return
    const rows = new Map((await deps.facts.get(hits.map((hit) => hit.id))).filter(isCurrent).map((row) => [row.id, row]))
    return hits.map((hit) => rows.get(hit.id)).find(Boolean)
  } catch {
    deps.counters.inc('memorize.dedupe-skipped')
  }
}
