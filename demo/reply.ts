import { Context } from 'koishi'
import {} from '../src'

/**
 * A tiny reply generator for the demo: it answers private messages and @-mentions with what the
 * memory returns for them. A real bot would put `ctx.memory.formatForPrompt(memories)` into the
 * system prompt of its chat model instead.
 */
export const name = 'memory-demo-reply'
export const inject = ['memory']

export function apply(ctx: Context) {
  ctx.i18n.define('zh-CN', {
    'memory-demo': {
      remembered: '我记得：\n{0}',
      nothing: '（离线演示）我还没有想起和这句话有关的事。告诉我一些关于你的事吧，比如“我喜欢吃火锅”。',
    },
  })
  ctx.i18n.define('en-US', {
    'memory-demo': {
      remembered: 'I remember:\n{0}',
      nothing: '(offline demo) Nothing I remember relates to that yet. Tell me something about you, like "I love hotpot".',
    },
  })

  ctx.middleware(async (session, next) => {
    if (!session.isDirect && !session.stripped.atSelf) return next()
    const query = session.stripped.content.trim()
    if (!query) return next()
    const memories = await ctx.memory.retrieve(session, query)
    if (!memories.length) return session.text('memory-demo.nothing')
    return session.text('memory-demo.remembered', [memories.map((memory) => `- ${memory.content}`).join('\n')])
  })
}
