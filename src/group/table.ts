import type { Context } from 'koishi'
import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupSettingRow, GroupSourceRow, ReviewRow } from './types'

/**
 * Koishi tables of group memory (design §6). The database is the truth; LanceDB table
 * `group_memories` only indexes the active heads.
 *
 * - `memory_group`: every version of every group memory (old versions stay, linked by `parentId` /
 *   `supersededBy`).
 * - `memory_group_change`: the change log (design §6.2).
 * - `memory_group_lease`: one row per group: the evolution lease (owner, expiry), the watermark of
 *   messages already folded in, and the plan of a run being applied (replayed after a crash).
 * - `memory_group_review`: the review queue of moderated groups: each operation an evolution proposed,
 *   pending until an admin approves or rejects it, or it expires.
 * - `memory_group_setting`: per-group settings (the evolution mode, when it differs from the console's).
 * - `memory_group_source`: the messages each evolution run read, so a forget finds what was made from
 *   them (`forget.ts`).
 */

declare module 'koishi' {
  interface Tables {
    memory_group: GroupMemoryRow
    memory_group_change: GroupChangeRow
    memory_group_lease: GroupLeaseRow
    memory_group_review: ReviewRow
    memory_group_setting: GroupSettingRow
    memory_group_source: GroupSourceRow
  }
}

export function defineGroupTables(ctx: Context) {
  ctx.model.extend(
    'memory_group',
    {
      id: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      statement: 'text',
      version: 'unsigned',
      parentId: 'string(31)',
      supersededBy: 'string(31)',
      changeSummary: 'text',
      status: 'string(15)',
      deprecatedReason: 'text',
      statusBy: 'string(63)',
      tags: 'json',
      strength: 'double',
      runId: 'string(31)',
      createdAt: 'timestamp',
      updatedAt: 'timestamp',
    },
    {
      primary: 'id',
      indexes: [['platform', 'guildId', 'status'], ['parentId']],
    },
  )

  ctx.model.extend(
    'memory_group_change',
    {
      id: 'string(63)',
      memoryId: 'string(31)',
      previousId: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      action: 'string(15)',
      oldStatement: 'text',
      newStatement: 'text',
      reason: 'text',
      version: 'unsigned',
      runId: 'string(31)',
      actor: 'string(255)',
      createdAt: 'timestamp',
    },
    {
      primary: 'id',
      indexes: [['platform', 'guildId', 'createdAt'], ['memoryId']],
    },
  )

  ctx.model.extend(
    'memory_group_lease',
    {
      id: 'string(255)',
      platform: 'string(63)',
      guildId: 'string(127)',
      owner: 'string(63)',
      expiresAt: 'timestamp',
      watermark: 'timestamp',
      lastEvolvedAt: 'timestamp',
      // MEDIUMTEXT on MySQL: a plan of many long statements can pass TEXT's 64 KB
      pending: { type: 'text', length: 16_777_215 },
    },
    {
      primary: 'id',
    },
  )

  ctx.model.extend(
    'memory_group_review',
    {
      id: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      runId: 'string(31)',
      opIndex: 'unsigned',
      action: 'string(15)',
      targetId: 'string(31)',
      targetVersion: 'unsigned',
      oldStatement: 'text',
      statement: 'text',
      reason: 'text',
      extras: 'json',
      newId: 'string(31)',
      status: 'string(15)',
      createdAt: 'timestamp',
      decidedAt: 'timestamp',
      decidedBy: 'string(255)',
      note: 'text',
      appliedStatement: 'text',
      memoryId: 'string(31)',
    },
    {
      primary: 'id',
      indexes: [
        ['platform', 'guildId', 'status'],
        ['status', 'createdAt'],
      ],
    },
  )

  ctx.model.extend(
    'memory_group_setting',
    {
      id: 'string(255)',
      platform: 'string(63)',
      guildId: 'string(127)',
      mode: 'string(15)',
      updatedAt: 'timestamp',
      updatedBy: 'string(255)',
    },
    {
      primary: 'id',
    },
  )

  defineSourceTable(ctx)
}

/** Which messages each evolution run read (`sources.ts`). */
function defineSourceTable(ctx: Context) {
  ctx.model.extend(
    'memory_group_source',
    {
      id: 'string(63)',
      runId: 'string(31)',
      platform: 'string(63)',
      guildId: 'string(127)',
      messageId: 'string(255)',
      createdAt: 'timestamp',
    },
    {
      primary: 'id',
      indexes: [['messageId'], ['runId']],
    },
  )
}
