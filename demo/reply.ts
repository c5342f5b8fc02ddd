import type { Context } from 'koishi'
import {} from '../src'
import { detectLanguage } from '../src/text/language'

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
      nothing: '（离线演示）我还没有和这句话有关的记忆。你说的话会在对话告一段落后整理，值得记住的我会记下。',
    },
  })
  ctx.i18n.define('en-US', {
    'memory-demo': {
      remembered: 'I remember:\n{0}',
      context: '({0} related chat messages are in the context too)',
      nothing: '(offline demo) I have no memory related to that yet. Once a dialogue pauses, I keep what is worth remembering.',
    },
  })

  // the demo answers each user in the language they last wrote in (a command's own words say nothing of it)
  const spoken = new Map<string, string>()
  ctx.on(
    'message',
    (session) => {
      const text = session.stripped?.content?.trim() ?? ''
      const name = text.split(/\s/, 1)[0]
      const key = `${session.platform}:${session.userId}`
      if (text && !ctx.$commander.get(name, session)) spoken.set(key, detectLanguage(text) === 'zh' ? 'zh-CN' : 'en-US')
      const locale = spoken.get(key)
      if (locale) session.locales = [locale]
    },
    true,
  )

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
