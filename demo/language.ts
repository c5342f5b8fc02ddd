import type { Context } from 'koishi'
import { detectLanguage } from '../src/text/language'

/**
 * The demo answers each user in the language they last wrote in: commands (whose own words say
 * nothing of it) follow that user's last chat message. The built-in chat itself follows each message.
 */
export const name = 'memory-demo-language'

export function apply(ctx: Context) {
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
}
