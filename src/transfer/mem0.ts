import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { FactRow } from '../facts'
import { ID_MAX } from '../scope'
import type { Checked } from './records'
import { fieldText, refused, time } from './records'

/**
 * mem0's memory export (what `get_all` returns, one memory each): `{id, memory, user_id, metadata,
 * created_at, updated_at}`, and fields this import does not need (`hash`, `categories`, `agent_id`,
 * `run_id`, …). A memory becomes a fact of its user in their private space (mem0 knows no groups),
 * with its times kept. `metadata` has no place in a fact and is left behind.
 */
const Mem0Memory = z.object({
  id: z.union([z.string(), z.number()]).nullish(),
  memory: fieldText.refine((value) => value.trim().length > 0, 'empty'),
  user_id: z.string().max(ID_MAX).nullish(),
  created_at: time.nullish(),
  updated_at: time.nullish(),
})

/** Whether a parsed line looks like a mem0 memory (it has `memory` and no `kind`). */
export function isMem0(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'memory' in value && !('kind' in value)
}

export interface Mem0Options {
  /** The platform mem0's users are on. */
  platform?: string
  /** Every memory becomes this user's, whatever its `user_id`. */
  userId?: string
  /** The time of a memory that has none. */
  now: Date
}

/**
 * A fact id for a mem0 memory: short enough for the fact table (mem0's ids are 36-character UUIDs)
 * and the same every time, so importing one export twice meets the same ids.
 */
export function mem0FactId(mem0Id: string): string {
  return `m0${createHash('sha1').update(mem0Id).digest('hex').slice(0, 10)}`
}

/** The fact a mem0 memory becomes; `id` is `''` when the memory has none (a fresh one is made). */
export function mem0Fact(value: unknown, options: Mem0Options): Checked<FactRow> {
  const parsed = Mem0Memory.safeParse(value)
  if (!parsed.success) return refused(parsed.error)
  const memory = parsed.data
  const userId = options.userId || memory.user_id
  if (!userId) return { ok: false, problem: 'mem0-no-user' }
  if (!options.platform) return { ok: false, problem: 'mem0-no-platform' }
  const mem0Id = memory.id === undefined || memory.id === null ? '' : String(memory.id)
  const createdAt = memory.created_at ?? options.now
  return {
    ok: true,
    value: {
      id: mem0Id ? mem0FactId(mem0Id) : '',
      platform: options.platform,
      guildId: '',
      channelId: '',
      userId,
      content: memory.memory,
      reason: mem0Id ? `imported from mem0 (${mem0Id})` : 'imported from mem0',
      version: 1,
      parentId: '',
      sourceIds: [],
      createdAt,
      updatedAt: memory.updated_at ?? createdAt,
      validFrom: createdAt,
      validTo: null,
      supersededBy: '',
    },
  }
}
