import type { Context } from 'koishi'

/** Who may memorise what waits now: an admin, as for the group's memory. */
export const FLUSH_AUTHORITY = 3

/** `memory.flush`: memorises now what waits in this chat (`-a`: in every chat) instead of after the quiet time. */
export function registerFlushCommand(ctx: Context) {
  ctx
    .command('memory.flush', { authority: FLUSH_AUTHORITY })
    .option('all', '-a')
    .action(async ({ session, options }) => {
      if (!session?.channelId) return
      const where = options!.all ? 'everywhere' : { platform: session.platform, channelId: session.channelId }
      const { dialogues, messages } = await ctx.memory.memorizeNow(where)
      if (!dialogues) return session.text(options!.all ? '.nothing-anywhere' : '.nothing')
      return session.text('.done', [messages, dialogues])
    })
}
