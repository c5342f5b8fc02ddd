import type { Scope } from '../../src/scope'

/** Whether a row lies within `scope` (an unset field of the scope matches anything). */
export function inScope(row: { platform: string; userId: string; guildId: string; channelId: string }, scope: Scope) {
  return (
    (scope.platform === undefined || row.platform === scope.platform) &&
    (scope.userId === undefined || row.userId === scope.userId) &&
    (scope.guildId === undefined || row.guildId === scope.guildId) &&
    (scope.channelId === undefined || row.channelId === scope.channelId)
  )
}
