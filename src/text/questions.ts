import type { Language } from './language'
import { detectLanguage } from './language'

/**
 * Whether a sentence asks rather than states: a question mark, a Chinese question particle or
 * A-not-A form (吗, 呢, 是不是, 有没有…), a question word, or an English sentence opened by an
 * auxiliary or a wh-word. A question the user asks about themselves ("我的生日是哪天？",
 * "what's my name") is not a fact about them.
 */
export function isQuestion(sentence: string, language: Language = detectLanguage(sentence, 'zh')): boolean {
  const core = sentence.replace(/[\s。.！!~～…）)」』"']+$/u, '')
  if (/[？?]$/.test(core)) return true
  if (language === 'zh') {
    return (
      /(?:吗|么|嘛|呢|不)$/.test(core) ||
      /(?:是不是|有没有|能不能|可不可以|要不要|会不会|对不对|好不好|行不行|记不记得|知不知道)/.test(core) ||
      /(?:^|[，,])(?:你|请问)?(?:为什么|为啥|怎么|怎样|如何|什么时候|多少|几点|几号|哪里|哪儿|哪个|哪天|谁)/.test(core) ||
      /(?:是|叫|在|有|喜欢|吃)(?:什么|啥|哪|谁|几)/.test(core)
    )
  }
  const lower = core.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  return /^(?:(?:so|and|but|hey|ok|okay|also)[,\s]+)?(?:do|does|did|can|could|would|will|is|are|am|was|were|should|shall|have|has|what|what's|whats|who|who's|whom|whose|how|how's|why|where|where's|when|which|any idea|do you know|i wonder)\b/.test(
    lower,
  )
}
