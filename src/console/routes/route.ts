import type { Config } from '../../config'
import { GroupMemoryError, ReviewError } from '../../group'
import { cleanId, ID_MAX } from '../../scope'
import type { Authorities, GroupRef, UserRef } from '../types'

/** Who calls, as `@koishijs/plugin-auth` knows them (nothing without it). */
export interface Caller {
  id?: number
  name?: string
}

/** An error the page words in its language: `errors.<code>`. */
export class ConsoleError extends Error {
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code)
  }
}

export interface Route {
  /** The least authority a console user needs (`@koishijs/plugin-auth` checks it before the call). */
  authority: number
  run(caller: Caller, args: unknown[]): Promise<unknown>
}

/** An area's operations, by listener name. */
export type Routes = Record<string, Route>

export const route = (authority: number, run: Route['run']): Route => ({ authority, run })

/** The authorities of the page's parts: the page's own, and for each part at least its command's. */
export function consoleAuthorities(config: Config): Authorities {
  const page = config.authority.console
  return {
    page,
    people: Math.max(page, config.authority.listOthers),
    groups: Math.max(page, config.group.authority),
    health: Math.max(page, config.authority.stats),
    transfer: Math.max(page, config.authority.transfer),
  }
}

/** Runs a route: its value, or an error the page can word (`ConsoleError`, the group API's errors, else `internal`). */
export async function runRoute(
  route: Route,
  caller: Caller,
  args: unknown[],
  log: (error: Error) => void,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string; detail?: string }> {
  try {
    return { ok: true, value: await route.run(caller, args) }
  } catch (error) {
    if (error instanceof ConsoleError) return { ok: false, error: error.code, ...(error.detail && { detail: error.detail }) }
    if (error instanceof ReviewError) return { ok: false, error: `review-${error.problem}`, detail: error.params.join(' · ') }
    if (error instanceof GroupMemoryError) return { ok: false, error: `group-${error.code}`, detail: error.message }
    log(error as Error)
    return { ok: false, error: 'internal', detail: (error as Error).message }
  }
}

/** Who did it, as a change's reason or a review's `by` keeps it. */
export function callerName(caller: Caller): string {
  return caller.name ? `console:${caller.name}` : caller.id !== undefined ? `console:#${caller.id}` : 'console'
}

// ── arguments: the page is a client like any other, so everything it sends is checked ─────────────

/** Longest statement of an edit or an approval, and longest reason. */
export const TEXT_MAX = 1000

export function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string') throw new ConsoleError('bad-request', `${name} must be text`)
  if (value.length > max) throw new ConsoleError('bad-request', `${name} is longer than ${max} characters`)
  return value
}

/** An id as the stores keep it: no control characters or lone surrogates (`cleanId`). */
export function id(value: unknown, name: string): string {
  const given = text(value, name, ID_MAX)
  if (!given || cleanId(given) !== given) throw new ConsoleError('bad-request', `${name} is not an id`)
  return given
}

export function userArg(value: unknown): UserRef {
  if (typeof value !== 'object' || !value) throw new ConsoleError('bad-request', 'a user is { platform, userId }')
  const { platform, userId } = value as Record<string, unknown>
  return { platform: id(platform, 'platform'), userId: id(userId, 'userId') }
}

export function groupArg(value: unknown): GroupRef {
  if (typeof value !== 'object' || !value) throw new ConsoleError('bad-request', 'a group is { platform, guildId }')
  const { platform, guildId } = value as Record<string, unknown>
  return { platform: id(platform, 'platform'), guildId: id(guildId, 'guildId') }
}

export function optionalText(value: unknown, name: string, max: number): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : text(value, name, max)
}
