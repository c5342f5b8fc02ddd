/** The structural shape of a Koishi/Satori message element. */
export interface ElementLike {
  type: string
  attrs: Record<string, unknown>
  children: ElementLike[]
}

export type PlaceholderLocale = 'zh' | 'en'

const PLACEHOLDERS: Record<PlaceholderLocale, Record<string, string>> = {
  zh: {
    img: '[图片]',
    image: '[图片]',
    audio: '[语音]',
    video: '[视频]',
    file: '[文件]',
    face: '[表情]',
    mface: '[表情]',
    forward: '[聊天记录]',
    card: '[卡片]',
  },
  en: {
    img: '[image]',
    image: '[image]',
    audio: '[voice]',
    video: '[video]',
    file: '[file]',
    face: '[sticker]',
    mface: '[sticker]',
    forward: '[forwarded messages]',
    card: '[card]',
  },
}

/**
 * Plain text of a message: text as it is, mentions as `@name`, media as short placeholders.
 * Quotes are left out of the text (the quoted id is stored as the reply id). Mentions of
 * `omitMentionOf` (the bot, when the text is what a user told it) are left out too.
 */
export function renderPlainText(elements: ElementLike[], locale: PlaceholderLocale = 'zh', omitMentionOf?: string): string {
  const out: string[] = []
  const visit = (nodes: ElementLike[]) => {
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          out.push(String(node.attrs.content ?? ''))
          break
        case 'at':
          if (omitMentionOf !== undefined && node.attrs.id === omitMentionOf) break
          if (node.attrs.type === 'all') out.push('@all ')
          else out.push(`@${node.attrs.name || node.attrs.id || ''} `)
          break
        case 'sharp':
          out.push(`#${node.attrs.name || node.attrs.id || ''} `)
          break
        case 'quote':
          break
        case 'br':
        case 'p':
          out.push('\n')
          visit(node.children)
          break
        default: {
          const placeholder = PLACEHOLDERS[locale][node.type]
          if (placeholder) out.push(placeholder)
          else visit(node.children)
        }
      }
    }
  }
  visit(elements)
  return out
    .join('')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{2,}/g, '\n')
    .trim()
}

/** True when the elements mention `selfId`. */
export function mentions(elements: ElementLike[], selfId: string): boolean {
  for (const node of elements) {
    if (node.type === 'at' && node.attrs.id === selfId) return true
    if (node.children?.length && mentions(node.children, selfId)) return true
  }
  return false
}
