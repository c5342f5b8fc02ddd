import type { Context } from 'koishi'
import { detectLanguage } from '../src/text/language'

/**
 * The demo answers each user in the language they last wrote in: commands (whose own words say
 * nothing of it) follow that user's last chat message. Before a user has written anything but commands,
 * a command in Latin letters (`help`) is answered in English unless the terminal's locale is Chinese,
 * and one with Chinese words in Chinese. The built-in chat itself follows each message.
 */
export const name = 'memory-demo-language'

/** A first command's language: Chinese when its words or the terminal's locale (what the C library reads) are, else English. */
export function firstLocale(text: string, env: NodeJS.ProcessEnv = process.env): string {
  if (/\p{Script=Han}/u.test(text)) return 'zh-CN'
  return /^zh/i.test(env.LC_ALL || env.LC_MESSAGES || env.LANG || '') ? 'zh-CN' : 'en-US'
}

export function apply(ctx: Context) {
  const spoken = new Map<string, string>()
  ctx.on(
    'message',
    (session) => {
      const text = session.stripped?.content?.trim() ?? ''
      const name = text.split(/\s/, 1)[0]
      const key = `${session.platform}:${session.userId}`
      const command = Boolean(ctx.$commander.get(name, session))
      if (text && !command) spoken.set(key, detectLanguage(text) === 'zh' ? 'zh-CN' : 'en-US')
      const locale = spoken.get(key) ?? (text ? firstLocale(text) : undefined)
      if (locale) session.locales = [locale]
    },
    true,
  )
}
