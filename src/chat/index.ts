import type { Context } from 'koishi'
import type { Config } from '../config'
import { Cooldown, shouldAnswer } from './triggers'

/**
 * The built-in chat (`chat.enabled`): answers the messages its rules pick — private messages,
 * @-mentions, replies to the bot, keywords, a share of group messages — at most once per channel
 * per cooldown, through `ctx.memory.reply`. Commands are handled before it and never answered.
 */
export function applyChat(ctx: Context, config: Config, random: () => number = Math.random) {
  const cooldown = new Cooldown(config.chat.cooldownSeconds)
  ctx.middleware(async (session, next) => {
    if (!session.channelId || !session.userId || session.userId === session.selfId) return next()
    const stripped = session.stripped
    const message = {
      isDirect: session.isDirect,
      atSelf: stripped.atSelf,
      repliesToBot: Boolean(session.quote?.user?.id && session.quote.user.id === session.selfId),
      content: stripped.content ?? '',
    }
    if (!shouldAnswer(message, config.chat, random)) return next()
    if (!cooldown.take(`${session.platform}:${session.channelId}`)) return next()
    await ctx.memory.reply(session)
  })
}
export * as chatlunaBridge from './chatluna'
