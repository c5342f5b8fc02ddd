import type { Context } from 'koishi'
import type { Config } from '../config'

/** `memory.flush`: memorises now what waits in this chat (`-a`: in every chat) instead of after the quiet time. */
export function registerFlushCommand(ctx: Context, config: Config) {
  ctx
    .command('memory.flush', { authority: config.authority.flush })
    .option('all', '-a')
    .action(async ({ session, options }) => {
      if (!session?.channelId) return
      const where = options!.all ? 'everywhere' : { platform: session.platform, channelId: session.channelId }
      const { dialogues, messages } = await ctx.memory.memorizeNow(where)
      if (!dialogues) return session.text(options!.all ? '.nothing-anywhere' : '.nothing')
      return session.text('.done', [messages, dialogues])
    })
}
