/** Command names of this plugin, recognised even when typed without a prefix. */
const OWN_COMMAND = /^memory(?:[.\s]|$)/i

/**
 * Media placeholders and message elements that carry no words: `[图片]`, `[image]`, `[表情]`,
 * `[CQ:face,id=1]`, `<img src="…"/>`, `<at id="…"/>`…
 */
const PLACEHOLDER =
  /\[(?:图片|圖片|表情|动画表情|语音|視頻|视频|文件|红包|位置|链接|分享|戳一戳|image|photo|picture|sticker|emoji|face|voice|audio|video|file|gif|CQ:[^\]]*)\]|<\/?[a-z][\w-]*(?:\s[^<>]*)?\/?>/gi

/** Anything that is a letter or a digit; what is left after placeholders without one is noise. */
const WORD_CHAR = /[\p{L}\p{N}]/u

/**
 * Short acknowledgements, laughter, thanks and greetings. A turn made only of these (in any
 * repetition or combination, once spaces and punctuation are removed) says nothing to remember.
 */
const ACK_UNITS = [
  // Chinese
  '好的',
  '好吧',
  '好滴',
  '好嘞',
  '好',
  '嗯',
  '恩',
  '哦',
  '噢',
  '喔',
  '哇',
  '啊',
  '呃',
  '额',
  '唔',
  '哈',
  '呵',
  '嘿',
  '嘻',
  '草',
  '笑死',
  '绝了',
  '牛',
  '强',
  '确实',
  '是的',
  '是啊',
  '对的',
  '对',
  '行',
  '可以',
  '没问题',
  '收到',
  '了解',
  '明白',
  '知道了',
  '懂了',
  '谢谢',
  '多谢',
  '感谢',
  '谢了',
  '辛苦了',
  '晚安',
  '早安',
  '早',
  '午安',
  '你好',
  '在吗',
  '在',
  '拜拜',
  '再见',
  '了',
  '呀',
  '啦',
  '哟',
  '呐',
  '吧',
  // English
  'okay',
  'ok',
  'kk',
  'k',
  'thanks',
  'thank you',
  'thankyou',
  'thx',
  'ty',
  'lol',
  'lmao',
  'haha',
  'ha',
  'hehe',
  'yes',
  'yeah',
  'yep',
  'yup',
  'no',
  'nope',
  'sure',
  'cool',
  'nice',
  'great',
  'got it',
  'gotit',
  'alright',
  'fine',
  'hi',
  'hello',
  'hey',
  'bye',
  'good night',
  'goodnight',
  'wow',
  'oh',
  'ah',
  'hmm',
  'mm',
  'xd',
  'np',
  'gg',
  // digits as slang
  '666',
  '6',
  '233',
  '2333',
]
  .map((unit) => unit.replace(/\s+/g, ''))
  .sort((a, b) => b.length - a.length)
const ACK = new RegExp(`^(?:${ACK_UNITS.join('|')})+$`, 'i')
/** Longest turn (letters and digits only, repeats collapsed) still treated as an acknowledgement. */
const ACK_MAX_LENGTH = 16

/** What one chat line carries: nothing, only emoji or media, a command, an acknowledgement, or content. */
export type TurnKind = 'empty' | 'emoji' | 'command' | 'ack' | 'content'

/** `prefixes`: the bot's command prefixes, already NFKC-normalised and non-empty. */
export function classifyTurn(content: string, prefixes: string[]): TurnKind {
  const text = content.normalize('NFKC').trim()
  if (!text) return 'empty'
  if (prefixes.some((prefix) => text.startsWith(prefix)) || OWN_COMMAND.test(text)) return 'command'
  const words = text.replace(PLACEHOLDER, ' ')
  if (!WORD_CHAR.test(words)) return 'emoji'
  // Letters and digits only, long repeats collapsed (哈哈哈哈哈哈 → 哈哈, 66666 → 66) before the length check.
  const compact = words
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .replace(/(.)\1{2,}/gu, '$1$1')
  if (compact.length <= ACK_MAX_LENGTH && ACK.test(compact)) return 'ack'
  return 'content'
}
