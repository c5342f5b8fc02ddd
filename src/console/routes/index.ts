import type { Context } from 'koishi'
import type { Config } from '../../config'
import { budgetRoutes } from './budget'
import type { Evolutions } from './groups'
import { groupRoutes } from './groups'
import type { HealthDeps } from './health'
import { healthRoutes } from './health'
import { peopleRoutes } from './people'
import { reviewRoutes } from './review'
import type { Routes } from './route'
import { consoleAuthorities } from './route'
import { transferRoutes } from './transfer'

export { Evolutions } from './groups'
export type { Caller } from './route'
export { consoleAuthorities, runRoute } from './route'

export interface RouteDeps extends HealthDeps {
  evolutions: Evolutions
}

/**
 * The page's operations, by listener name. Each reaches the memory as the commands do — through
 * `ctx.memory` and the same service methods, which keep every scope (a fact of another user, a memory
 * of another group is not found) — and needs the authority of its part of the page.
 */
export function consoleRoutes(ctx: Context, config: Config, deps: RouteDeps): Routes {
  const authority = consoleAuthorities(config)
  return {
    ...peopleRoutes(ctx, authority),
    ...groupRoutes(ctx, authority, deps.evolutions),
    ...budgetRoutes(ctx, authority),
    ...reviewRoutes(ctx, authority),
    ...healthRoutes(ctx, authority, deps),
    ...transferRoutes(ctx, authority),
  }
}
