import type { Context } from 'koishi'

/** A reply generator for tests: answers private messages and @-mentions, so dialogues finish. */
export const name = 'echo-bot'

export function apply(ctx: Context) {
  ctx.middleware((session, next) => {
    if (!session.isDirect && !session.stripped.atSelf) return next()
    return `ok: ${session.stripped.content}`
  })
}
