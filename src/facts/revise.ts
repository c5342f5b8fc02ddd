import type { Counters } from '../core/observability'
import type { KeyedLock } from '../core/keyed-lock'
import { cleanText } from '../text/clean'
import type { FactIndex } from './fact-index'
import { factLockKey } from './memorize'
import type { FactStore } from './store'
import type { FactRow } from './table'
import { isCurrent, validSince } from './table'
import type { UserRef } from '../scope'

/** Longest statement a revision keeps. */
export const REVISION_MAX_CHARS = 1000

export interface ReviseDeps {
  facts: Pick<FactStore, 'get' | 'insert' | 'update'>
  factIndex: Pick<FactIndex, 'put'>
  counters: Counters
  newId: () => string
  now: () => Date
  /** The lock a user's fact writes and their erasure share. */
  lock?: KeyedLock
}

export type ReviseResult =
  | { status: 'revised'; fact: FactRow; previous: FactRow }
  | { status: 'unchanged'; fact: FactRow }
  | { status: 'not-found' | 'closed' | 'empty' }

/**
 * A fact said anew by hand (the console's edit): never an overwrite. The new statement is a new row —
 * version + 1, `parentId` the fact it corrects, true since that fact was — and the old row is closed
 * now with `supersededBy` the new one, so the history keeps what was stored. Only a current fact of
 * `owner` can be revised; the new row keeps its scope (platform, guild, channel, user) and sources.
 */
export async function reviseFact(deps: ReviseDeps, owner: UserRef, id: string, statement: string, by: string): Promise<ReviseResult> {
  const text = cleanText(statement.trim()).slice(0, REVISION_MAX_CHARS)
  if (!text) return { status: 'empty' }
  const write = async (): Promise<ReviseResult> => {
    const [row] = await deps.facts.get([id])
    if (!row || row.platform !== owner.platform || row.userId !== owner.userId) return { status: 'not-found' }
    if (!isCurrent(row)) return { status: 'closed' }
    if (row.content === text) return { status: 'unchanged', fact: row }
    const now = deps.now()
    const fact: FactRow = {
      id: deps.newId(),
      platform: row.platform,
      guildId: row.guildId,
      channelId: row.channelId,
      userId: row.userId,
      content: text,
      reason: by ? `edited by ${by}` : 'edited',
      version: row.version + 1,
      parentId: row.id,
      sourceIds: [...row.sourceIds],
      createdAt: now,
      updatedAt: now,
      validFrom: validSince(row),
      validTo: null,
      supersededBy: '',
    }
    await deps.facts.insert(fact)
    await deps.facts.update(row.id, { validTo: now, supersededBy: fact.id, updatedAt: now })
    await deps.factIndex.put([fact])
    deps.counters.inc('memorize.revised')
    return { status: 'revised', fact, previous: { ...row, validTo: now, supersededBy: fact.id, updatedAt: now } }
  }
  return deps.lock ? deps.lock.run(factLockKey(owner), write) : write()
}
