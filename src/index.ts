import type { Context } from 'koishi'
import { applyChat, chatlunaBridge } from './chat'
import { registerCommands } from './commands'
import { applyConsole } from './console'
import { mountGroupApi, mountKnowledgeApi } from './http'
import { Config } from './config'
import { locales } from './locales'
import { MemoryService } from './service'

export const name = 'memory'
// the database is required by the service itself; the entry loads without it so it can say what is missing
export const inject = { database: { required: false }, http: { required: false } }

/** How long the plugin waits for a database before it says that it waits. */
const DATABASE_WAIT_MS = 5000
export { Config }
export type { ConfigInput } from './config'

export * from './service'
export type { Dialogue, FactRow, MemorizeOutcome, RetrievedMemory } from './facts'
export type { RecalledMemory, SourceLine } from './recall'
export type { ForgetReport } from './erase'
export type { ErasedKind } from './module'
export type { Embedder, LLM } from './providers/types'
export type { Scope, SpeakerRef as FactOwner } from './scope'

export function apply(ctx: Context, config: Config) {
  ctx.i18n.define('zh-CN', locales['zh-CN'])
  ctx.i18n.define('en-US', locales['en-US'])
  const waiting = ctx.setTimeout(() => {
    ctx.logger('memory').warn(ctx.i18n.text([], ['memory.log.waiting-database'], {}))
  }, DATABASE_WAIT_MS)
  ctx.inject(['database'], () => waiting())
  ctx.plugin(MemoryService, config)
  // the ChatLuna bridge waits for ChatLuna and the memory; without ChatLuna it never runs
  if (config.chatluna.enabled) ctx.plugin(chatlunaBridge, config.chatluna)
  ctx.inject(['memory'], (ctx) => {
    registerCommands(ctx, config)
    mountGroupApi(ctx, () => ctx.memory.groups, { token: config.api.token, prefix: config.api.prefix })
    mountKnowledgeApi(ctx, () => ctx.memory, { token: config.api.token, prefix: config.api.prefix })
    if (config.chat.enabled) applyChat(ctx, config)
  })
  // the console's Memory page, when the console is loaded; the console is not in `inject` above, where an
  // optional service would restart the whole plugin each time the console reloads
  applyConsole(ctx, config)
}
