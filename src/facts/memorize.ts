import type { Embedder } from '../providers/types'
import type { Logger } from '../core/observability'
import type { Counters } from '../core/observability'
import type { Scope } from '../scope'
import type { FactIndex } from './fact-index'
import type { FactRepository } from './repository'
import type { FactRow } from './table'
import type { MemoryJudge, Turn } from './judge'
import { prefilter } from './prefilter'

/** Whose fact a dialogue may produce, and where it was said. */
export interface FactOwner {
  platform: string
  userId: string
  guildId: string
  channelId: string
}

export interface Dialogue {
  owner: FactOwner
  turns: Turn[]
  sourceIds: string[]
}

export type MemorizeOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'rejected'; reason: string }
  | { status: 'stored'; fact: FactRow; updated: boolean }
  | { status: 'failed'; stage: 'decide' | 'summarize'; error: string }

export interface MemorizeDeps {
  judge: MemoryJudge
  embedder: Embedder
  facts: FactRepository
  factIndex: FactIndex
  counters: Counters
  logger: Logger
  dedupeThreshold: number
  commandPrefixes: string[]
  newId(): string
  now(): Date
}

/** The scope a fact is de-duplicated and retrieved in: one user, in one guild or in private. */
export function ownerScope(owner: FactOwner): Scope {
  return { platform: owner.platform, userId: owner.userId, guildId: owner.guildId }
}

/** Post-dialogue chain (seed 003 §2.2): prefilter → decide → summarise → embed → store. */
export async function memorize(deps: MemorizeDeps, dialogue: Dialogue): Promise<MemorizeOutcome> {
  const { counters } = deps
  const filtered = prefilter(dialogue.turns, deps.commandPrefixes)
  if (!filtered.pass) {
    counters.inc(`memorize.skipped.${filtered.reason}`)
    return { status: 'skipped', reason: filtered.reason }
  }

  let statement: string
  let reason: string
  try {
    const decision = await deps.judge.decide(dialogue.turns)
    if (!decision.shouldRemember) {
      counters.inc('memorize.rejected')
      return { status: 'rejected', reason: decision.reason }
    }
    reason = decision.reason
  } catch (error) {
    counters.inc('memorize.failed.decide')
    deps.logger.warn('memory decision failed: %s', (error as Error).message)
    return { status: 'failed', stage: 'decide', error: (error as Error).message }
  }
  try {
    statement = (await deps.judge.summarize(dialogue.turns)).trim()
    if (!statement) throw new Error('empty summary')
  } catch (error) {
    counters.inc('memorize.failed.summarize')
    deps.logger.warn('memory summary failed: %s', (error as Error).message)
    return { status: 'failed', stage: 'summarize', error: (error as Error).message }
  }

  const scope = ownerScope(dialogue.owner)
  const now = deps.now()
  const vector = await embedOrUndefined(deps, statement)
  const duplicate = await findDuplicate(deps, scope, statement, vector)
  if (duplicate) {
    const changed = duplicate.content !== statement
    const patch = {
      content: statement,
      reason,
      version: duplicate.version + 1,
      sourceIds: [...new Set([...duplicate.sourceIds, ...dialogue.sourceIds])],
      updatedAt: now,
    }
    await deps.facts.update(duplicate.id, patch)
    const fact = { ...duplicate, ...patch }
    if (changed || !vector) await deps.factIndex.put([fact], [], vector && [vector])
    counters.inc('memorize.updated')
    return { status: 'stored', fact, updated: true }
  }

  const fact: FactRow = {
    id: deps.newId(),
    ...dialogue.owner,
    content: statement,
    reason,
    version: 1,
    parentId: '',
    sourceIds: dialogue.sourceIds,
    createdAt: now,
    updatedAt: now,
  }
  await deps.facts.insert(fact)
  await deps.factIndex.put([fact], [], vector && [vector])
  counters.inc('memorize.stored')
  return { status: 'stored', fact, updated: false }
}

async function embedOrUndefined(deps: MemorizeDeps, text: string) {
  try {
    return (await deps.embedder.embed([text]))[0]
  } catch (error) {
    deps.counters.inc('memorize.embed-failed')
    deps.logger.debug('embedding failed, the fact will be indexed later: %s', (error as Error).message)
  }
}

/** The same statement, or (when the index answers) the nearest fact above the threshold. */
async function findDuplicate(deps: MemorizeDeps, scope: Scope, statement: string, vector?: Float32Array) {
  const exact = await deps.facts.findByContent(scope, statement)
  if (exact || !vector) return exact
  try {
    const [hit] = await deps.factIndex.nearest(vector, scope, 1)
    if (!hit || hit.similarity < deps.dedupeThreshold) return
    const [row] = await deps.facts.get([hit.id])
    return row
  } catch {
    deps.counters.inc('memorize.dedupe-skipped')
  }
}
