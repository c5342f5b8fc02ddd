import type { GroupRef } from './types'
import { GroupMemoryError } from './types'

/** `platform:guildId`, the form a group takes in results, routes and commands. */
export function groupId(group: GroupRef): string {
  return `${group.platform}:${group.guildId}`
}

/**
 * Every way to read `platform:guildId` when either part may hold colons (Koishi's sandbox platform is
 * `sandbox:<id>`), the split at the first colon first. `preferPlatform` (the caller's own) goes first
 * when the text starts with it.
 */
export function groupCandidates(text: string, preferPlatform?: string): GroupRef[] {
  const value = typeof text === 'string' ? text.trim() : ''
  const out: GroupRef[] = []
  for (let colon = value.indexOf(':'); colon !== -1; colon = value.indexOf(':', colon + 1)) {
    if (colon > 0 && colon < value.length - 1) out.push({ platform: value.slice(0, colon), guildId: value.slice(colon + 1) })
  }
  if (!out.length) throw new GroupMemoryError(`a group is written platform:guildId, got "${value.slice(0, 80)}"`, 'bad-request')
  const preferred = out.findIndex((group) => group.platform === preferPlatform)
  if (preferred > 0) out.unshift(...out.splice(preferred, 1))
  return out
}

/** Throws unless the group names a platform and a guild (a private chat has no group memory). */
export function checkGroup(group: GroupRef): GroupRef {
  if (!group || typeof group.platform !== 'string' || !group.platform || typeof group.guildId !== 'string' || !group.guildId) {
    throw new GroupMemoryError('a group needs a platform and a guild id', 'bad-request')
  }
  return { platform: group.platform, guildId: group.guildId }
}

export function sameGroup(row: GroupRef, group: GroupRef): boolean {
  return row.platform === group.platform && row.guildId === group.guildId
}
