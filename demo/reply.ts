import type { Context } from 'koishi'
import {} from '../src'

/**
 * A tiny reply generator for the demo: it answers private messages and @-mentions with what the
 * memory returns for them. A real bot would send `await ctx.memory.assemblePrompt(session, { system })`
 * (system prompt + long-term memories + conversation summary + chosen context + the message) to its
 * chat model instead; offline, the demo says what that context holds.
 */
export const name = 'memory-demo-reply'
export const inject = ['memory']

export function apply(ctx: Context) {
  ctx.i18n.define('zh-CN', {
    'memory-demo': {
      remembered: '我记得：\n{0}',
      context: '（上下文里还有 {0} 条相关的聊天记录）',
      nothing: '（离线演示）我还没有想起和这句话有关的事。告诉我一些关于你的事吧，比如“我喜欢吃火锅”。',
    },
  })
  ctx.i18n.define('en-US', {
    'memory-demo': {
      remembered: 'I remember:\n{0}',
      context: '({0} related chat messages are in the context too)',
      nothing: '(offline demo) Nothing I remember relates to that yet. Tell me something about you, like "I love hotpot".',
    },
  })

  ctx.middleware(async (session, next) => {
    if (!session.isDirect && !session.stripped.atSelf) return next()
    const query = session.stripped.content.trim()
    if (!query) return next()
    const context = await ctx.memory.buildContext(session)
    const related = context.messages.filter((message) => message.messageId !== session.messageId).length
    const tail = related ? '\n' + session.text('memory-demo.context', [related]) : ''
    if (!context.longTerm.length) return session.text('memory-demo.nothing') + tail
    return session.text('memory-demo.remembered', [context.longTerm.map((memory) => `- ${memory.content}`).join('\n')]) + tail
  })
}
