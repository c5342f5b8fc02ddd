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

export const usage = `
- 中文：记录所服务频道的每条消息与机器人的回复，在对话结束后由后台判断哪些值得记住、总结为一句话，存入 Koishi 数据库并建立 LanceDB 向量与全文索引。其他插件注入 \`memory\` 服务并调用 \`ctx.memory.retrieve(session, query)\`。默认离线运行，无需密钥。
- English: records every message of the channels it serves and the bot's replies; after each dialogue a background job decides what is worth remembering, states it in one sentence, stores it in Koishi's database and indexes it in LanceDB. Other plugins inject \`memory\` and call \`ctx.memory.retrieve(session, query)\`. Runs offline by default, no key needed.
`

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
