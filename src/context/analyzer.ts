import type { Keyword } from '../text/keywords'
import { extractKeywords } from '../text/keywords'
import { normalizeText, words } from '../text/tokens'

/**
 * The message analyzer (design §5.1): what the relevance scorer needs to know about a message —
 * whom it replies to, whom it mentions, what kind of message it is and its weighted keywords.
 * Pure and synchronous; it works on a captured row or on the message a context is built for.
 */

export type MessageType = 'question' | 'answer' | 'discussion' | 'notification' | 'casual'

export interface ReplyInfo {
  /** The platform message id replied to ('' when the reply is only by mention). */
  messageId: string
  /** The first message of the thread ('' when unknown). */
  rootMessageId: string
  /** `quote`: a quoted reply; `thread`: part of a thread without a direct quote; `mention`: starts by @-ing someone. */
  kind: 'quote' | 'thread' | 'mention'
}

/** The fields the analyzer reads. A `MessageRow` and a `ContextTarget` both fit. */
export interface AnalyzableMessage {
  messageId?: string
  userId: string
  userName?: string
  content: string
  replyMessageId?: string
  rootMessageId?: string
  /** Mentioned user ids, when the platform told us (the rendered text only holds `@name`). */
  mentions?: string[]
  isMentionBot?: boolean
}

export interface MessageFeatures {
  messageId: string
  userId: string
  userName: string
  content: string
  reply?: ReplyInfo
  /** Mentioned user ids (from the platform) and names (`@name` in the text), lowercased names. */
  mentions: string[]
  mentionsBot: boolean
  type: MessageType
  keywords: Keyword[]
}

export interface AnalyzeOptions {
  /** Type of the message this one replies to, when known: a reply to a question is an answer. */
  repliedType?: MessageType
  /** Corpus statistic for keyword weights. */
  idf?: (word: string) => number
  /** Most keywords kept. Default: all. */
  keywordLimit?: number
}

export function analyzeMessage(message: AnalyzableMessage, options: AnalyzeOptions = {}): MessageFeatures {
  const mentions = extractMentions(message.content, message.mentions)
  return {
    messageId: message.messageId ?? '',
    userId: message.userId,
    userName: message.userName ?? message.userId,
    content: message.content,
    reply: extractReplyInfo(message, mentions),
    mentions,
    mentionsBot: Boolean(message.isMentionBot),
    type: classifyMessage(message.content, { isReply: Boolean(message.replyMessageId), repliedType: options.repliedType }),
    keywords: extractKeywords(message.content, { idf: options.idf, limit: options.keywordLimit }),
  }
}

/** How the message hangs in a conversation: a quote, a thread member, or an @ at its start. */
export function extractReplyInfo(
  message: AnalyzableMessage,
  mentions = extractMentions(message.content, message.mentions),
): ReplyInfo | undefined {
  const messageId = message.replyMessageId ?? ''
  const rootMessageId = message.rootMessageId ?? ''
  if (messageId) return { messageId, rootMessageId: rootMessageId || messageId, kind: 'quote' }
  if (rootMessageId && message.messageId && rootMessageId !== message.messageId) return { messageId: '', rootMessageId, kind: 'thread' }
  if (mentions.length && /^\s*@/.test(message.content)) return { messageId: '', rootMessageId: '', kind: 'mention' }
  return undefined
}

/**
 * Mentioned users: the ids the platform gave, then every `@name` of the rendered text (capture renders
 * a mention as `@name `), lowercased and NFKC-normalised. `@all` / `@全体成员` are not users.
 */
export function extractMentions(content: string, ids: string[] = []): string[] {
  const out = new Set(ids)
  for (const match of content.matchAll(/@([^\s@,，:：;；!！?？。]+)/gu)) {
    const name = normalizeText(match[1])
    if (name === 'all' || name === 'everyone' || name === 'here' || name === '全体成员' || name === '所有人') continue
    out.add(name)
  }
  return [...out]
}

const NOTIFICATION_START =
  /^\s*(?:[【[]\s*(?:通知|公告|提醒|重要|notice|announcement|reminder|update)\s*[】\]]|(?:通知|公告|温馨提示|提醒)\s*[:：]|(?:notice|announcement|reminder|psa|fyi)\s*[:：-])/i
const NOTIFICATION_MENTION = /@(?:all|everyone|here|全体成员|所有人)(?![\p{L}\p{N}])/iu

/** A question mark ending a sentence (URLs are removed before this is tested). */
const QUESTION_MARK = /？|\?(?=[\s\p{Emoji_Presentation}\p{Extended_Pictographic}!！.。]|$)/u
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi
/** Chinese sentence-final particles and question phrases. */
const ZH_QUESTION_END = /(?:吗|嘛|么|呢|没|不)[\s。~～…!！]*$/
const ZH_QUESTION_WORDS = [
  '为啥',
  '如何',
  '谁',
  '几',
  '是否',
  '是不是',
  '有没有',
  '能不能',
  '会不会',
  '要不要',
  '可不可以',
  '对不对',
  '好不好',
  '行不行',
  '咋',
  '啥',
]
/** Question words that the segmenter often glues to what follows (几点, 哪里, 什么样, 多少钱 …). */
const ZH_QUESTION_PREFIXES = [
  '什么',
  '为什么',
  '怎么',
  '怎样',
  '哪',
  '几点',
  '几个',
  '几号',
  '几天',
  '几时',
  '几岁',
  '几次',
  '多少',
  '多久',
  '多大',
  '多长',
]
const EN_QUESTION_WORDS = new Set(['what', 'why', 'how', 'when', 'where', 'who', 'whom', 'whose', 'which'])
const EN_ANSWER_START = new Set([
  'yes',
  'yeah',
  'yep',
  'no',
  'nope',
  'because',
  'since',
  'it',
  "it's",
  'its',
  'they',
  "they're",
  'that',
  "that's",
  'sure',
  'probably',
  'maybe',
  'i',
  "i'm",
  "i'd",
  "i've",
  'we',
  'the',
  'you',
])
const ZH_ANSWER_START = [
  '是的',
  '对',
  '不是',
  '没有',
  '因为',
  '应该',
  '可以',
  '不行',
  '不能',
  '答案',
  '我觉得',
  '我认为',
  '其实',
  '在',
  '有',
  '会',
  '能',
  '好像',
  '大概',
  '估计',
]
const CASUAL_UNITS = new Set([
  'ok',
  'okay',
  'kk',
  'lol',
  'lmao',
  'haha',
  'hahaha',
  'hehe',
  'hi',
  'hello',
  'hey',
  'bye',
  'thanks',
  'thx',
  'ty',
  'yes',
  'no',
  'yeah',
  'nope',
  'wow',
  'cool',
  'nice',
  'great',
  'sure',
  'good',
  'night',
  'morning',
  'gn',
  'gm',
  'xd',
  'omg',
  'wtf',
  'hmm',
  'oh',
  'ah',
  'yay',
  'awesome',
  'thank',
  'you',
  '哈',
  '哈哈',
  '哈哈哈',
  '嘿嘿',
  '嘻嘻',
  '呵呵',
  '好',
  '好的',
  '好吧',
  '嗯',
  '嗯嗯',
  '哦',
  '噢',
  '啊',
  '哇',
  '草',
  '笑死',
  '牛',
  '强',
  '确实',
  '是的',
  '对',
  '行',
  '谢谢',
  '多谢',
  '感谢',
  '晚安',
  '早安',
  '早',
  '午安',
  '你好',
  '在吗',
  '拜拜',
  '再见',
  '收到',
  '了解',
  '明白',
  '666',
  '233',
  '2333',
  '可以',
  '没问题',
  '加油',
])

/**
 * The kind of a message, by rules that work for Chinese and English:
 * - `notification`: starts like an announcement (【通知】, 公告：, Notice:, PSA …) or @-s everyone;
 * - `question`: a sentence ends with a question mark, the text ends with a Chinese question particle
 *   (吗 / 呢 …) or holds a Chinese question word (什么 / 几点 / 哪里 …), or it is a short English
 *   sentence opening with a question word;
 * - `casual`: empty, emoji or punctuation only, or made only of greetings, laughter and acknowledgements;
 * - `answer`: replies to a question, or is a reply that starts like an answer (yes / because / 是的 / 因为 …);
 * - `discussion`: any other statement.
 */
export function classifyMessage(content: string, context: { isReply?: boolean; repliedType?: MessageType } = {}): MessageType {
  const text = content.trim()
  if (NOTIFICATION_START.test(text) || NOTIFICATION_MENTION.test(text)) return 'notification'
  const ws = words(text.replace(/@\S+/g, ' '))
  if (!ws.length) return 'casual'
  if (isQuestion(text, ws)) return 'question'
  if (ws.every((word) => CASUAL_UNITS.has(word) || /^(?:ha)+h?$|^(?:哈)+$|^6+$/.test(word))) return 'casual'
  if (context.repliedType === 'question') return 'answer'
  if (context.isReply && (EN_ANSWER_START.has(ws[0]) || ZH_ANSWER_START.some((start) => text.startsWith(start)))) return 'answer'
  return 'discussion'
}

function isQuestion(text: string, ws: string[]): boolean {
  if (QUESTION_MARK.test(text.replace(URL, ' '))) return true
  if (ZH_QUESTION_END.test(text) && /\p{Script=Han}/u.test(text)) return true
  if (ws.some((word) => ZH_QUESTION_WORDS.includes(word) || ZH_QUESTION_PREFIXES.some((prefix) => word.startsWith(prefix)))) return true
  // An English question that lost its mark: short and opening with a question word.
  return EN_QUESTION_WORDS.has(ws[0]) && ws.length <= 12
}
