import type { Context } from 'koishi'
import type { Config } from '../config'
import { registerBudgetCommand } from './budget'
import { registerFactCommands } from './facts'
import { registerFlushCommand } from './flush'
import { registerGroupCommands } from './group'
import { registerKnowledgeCommands } from './knowledge'
import { registerReindexCommand } from './reindex'
import { registerReviewCommands } from './review'
import { registerStatusCommands } from './status'
import { registerTopicCommands } from './topics'
import { registerTraceCommand } from './trace'
import { registerTransferCommands } from './transfer'

/** Every `memory.*` command, area by area. */
export function registerCommands(ctx: Context, config: Config) {
  // the root first; each area adds its subcommands
  ctx.command('memory')
  registerGroupCommands(ctx, config)
  registerReviewCommands(ctx, config)
  registerTopicCommands(ctx)
  registerReindexCommand(ctx)
  registerKnowledgeCommands(ctx, config)
  registerTransferCommands(ctx, config)
  registerTraceCommand(ctx, config)
  registerFactCommands(ctx, config)
  registerStatusCommands(ctx, config)
  registerFlushCommand(ctx, config)
  registerBudgetCommand(ctx, config)
}
