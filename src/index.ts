import type { Context } from 'koishi'
import { registerCommands } from './commands'
import { mountGroupApi } from './http/group-routes'
import { Config } from './config'
import { locales } from './locales'
import { MemoryService } from './service'

export const name = 'memory'
export const inject = { database: { required: true }, http: { required: false } }
export { Config }
export type { ConfigInput } from './config'

export * from './service'
export type { Dialogue, FactOwner, FactRow, MemorizeOutcome, RetrievedMemory } from './facts'
export type { Embedder, LLM } from './providers/types'
export type { Scope } from './scope'

export function apply(ctx: Context, config: Config) {
  ctx.i18n.define('zh-CN', locales['zh-CN'])
  ctx.i18n.define('en-US', locales['en-US'])
  ctx.plugin(MemoryService, config)
  ctx.inject(['memory'], (ctx) => {
    registerCommands(ctx, config)
    mountGroupApi(ctx, () => ctx.memory.groups, { token: config.api.token, prefix: config.api.prefix })
  })
}
