import { cleanId } from '../scope'

/**
 * Whose budget a model call is charged to: a group (`guildId`), or a user in their private chat
 * (`guildId: ''`). The key is what the tables and the caches index by.
 */
export interface BudgetOwner {
  platform: string
  guildId: string
  /** The user of a private chat; '' for a group. */
  userId: string
}

/** The owner a message's work is charged to: its group, or its speaker in a private chat. */
export function budgetOwnerOf(where: { platform: string; guildId?: string; userId?: string }): BudgetOwner {
  const platform = cleanId(where.platform)
  if (where.guildId) return { platform, guildId: cleanId(where.guildId), userId: '' }
  return { platform, guildId: '', userId: cleanId(where.userId ?? '') }
}

export function ownerKey(owner: BudgetOwner): string {
  return owner.guildId ? `${owner.platform}:g:${owner.guildId}` : `${owner.platform}:u:${owner.userId}`
}
