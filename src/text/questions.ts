import type { Language } from './language'
import { detectLanguage } from './language'

/**
 * A question word anywhere in a Chinese clause: a question need not end in a mark or a particle ("我用的
 * 什么手机", "我儿子多大了", "我每月还多少房贷"). Unless it is indefinite: 什么都吃, 谁也, 不怎么, 多少有点, 水果
 * 什么的; "几" only before a measure that asks (几个朋友 is "a few friends").
 */
const ZH_ASKS =
  /(?:哪|什么|啥|谁|怎么|怎样|如何|为什么|为啥|多少|多大|多久|多远|多高|多重|干嘛|几(?:岁|点|号|月|年级|天|次|位|口|公里|块钱|个月))(?!都|也|有点|有些)/u
const ZH_NOT_ASKING =
  /不怎么|没什么|没啥|什么都|什么也|谁都|谁也|哪都|哪儿都|哪里都|哪怕|多少有点|多少还|(?<![干做搞是])什么的|不知道|不记得|忘了/u

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
      /(?:是|叫|在|有|喜欢|吃|做|去|住|养|学|买)(?:什么|啥|哪|谁|几)/.test(core) ||
      /几点|几号|几岁|哪天|哪年|哪儿|为什么|为啥/.test(core) ||
      (ZH_ASKS.test(core) && !ZH_NOT_ASKING.test(core)) ||
      /(?<![前这近好十过几])几年了?$/.test(core)
    )
  }
  const lower = core.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  // "When I was a kid, my dad…", "How I met my wife is a long story": a clause of the speaker's, not a question
  if (/^(?:when|where|how|what|while|since|after|before|once|if|as) (?:i|we|my|our|me)\b/.test(lower)) return false
  // "Can't wait to try it", "Didn't expect that": the subject left out, not a question (no question mark)
  if (/^(?:(?:so|and|but|hey|ok|okay|also)[,\s]+)?\w+n't\b/.test(lower)) return false
  return /^(?:(?:so|and|but|hey|ok|okay|also)[,\s]+)?(?:do|does|did|can|could|would|will|is|are|am|was|were|should|shall|have|has|what|what's|whats|who|who's|whom|whose|how|how's|why|where|where's|when|which|any idea|do you know|i wonder)\b/.test(
    lower,
  )
}

/**
 * Whether a sentence asks the bot to do something rather than telling about the speaker: "帮我查一下
 * 天气", "给我讲个笑话", "推荐几本书", "tell me a joke", "can you recommend…", "let's talk about…".
 * "帮我记住…" / "remember that…" are requests to remember, read by the judges on their own.
 */
export function isRequest(sentence: string, language: Language = detectLanguage(sentence, 'zh')): boolean {
  const core = sentence.trim()
  if (language === 'zh') {
    if (/(?:记住|记得|记一下|记下来|别忘)/.test(core)) return false
    return /^(?:请|麻烦|拜托)?(?:你)?(?:(?:帮|给|替)我(?:查|看看|找|写|想|算|推荐|翻译|搜|问|订|选|列|整理|规划|安排|改|生成|分析|总结|讲|说|介绍|来|出|发)|帮忙|推荐|介绍一下|讲(?:个|一个|讲)|说说|告诉我|查一下|查查|搜一下|翻译|写(?:一|个)|算一下|提醒我|教我|陪我聊|来(?:一|个|首|段)|唱(?:一|个|首))/.test(
      core,
    )
  }
  const lower = core.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  if (/\b(?:remember|don't forget|keep in mind)\b/.test(lower)) return false
  return /^(?:(?:hey|ok|okay|so|and|pls|please)[,\s]+)*(?:please |pls )?(?:tell me|give me|show me|recommend|suggest|help me|find me|find|search|look up|translate|write me|write a|make me|remind me|teach me|explain|let's|lets|sing|play (?:me|some)|calculate|list)\b/.test(
    lower,
  )
}

/**
 * Whether a sentence tells what is not (yet) so: a hypothetical ("如果我中了彩票…", "要是/假如/万一…",
 * "if I…", "I would…", "imagine…"), a wish for what is not ("I wish I had a dog", "我多希望…"), or a
 * negated wish ("我不想去上班", "I don't want to move"). None of them says how the speaker's life is.
 */
export function isHypothetical(sentence: string, language: Language = detectLanguage(sentence, 'zh')): boolean {
  const core = sentence.trim()
  if (language === 'zh') {
    return (
      /(?:^|[，,：:])[^，,。]{0,4}(?:如果|要是|假如|万一|假设|倘若|若是|要不是|假使)/.test(core) ||
      /(?:^|[，,])[^，,。]{0,3}我?(?:真)?(?:多么?希望|好希望|真希望|但愿|巴不得|做梦都想|梦想着)/.test(core) ||
      /我(?:才|真|真的|一点都|一点也|并|根本|再也)?(?:不想|不愿意|不打算|不希望|不愿)/.test(core) ||
      /(?:我|咱)[^，,。]{0,3}(?:会|就会|就能)[^，,。]{0,12}(?:的话|就好了)/.test(core) ||
      /(?:的话|就好了)[，,。！!\s]*$/.test(core)
    )
  }
  const lower = core.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  return (
    /(?:^|[,;:]\s*|\b(?:and|but|so|even|only|as|what)\s+)(?:if|imagine|suppose|supposing|assuming|unless|in case|what if)\b/.test(lower) ||
    /\bi (?:\w+ )?wish\b|\bif only\b|\bi (?:would|might)\b(?! say\b)|\bi'd (?!(?:been|had|gone|done|seen|met|never|already|just|always|say|\w+ed)\b)|\bwould (?:i|you|we)\b/.test(
      lower,
    ) ||
    /\bi (?:really |just |definitely |absolutely |honestly )?(?:don't|do not|never) (?:want|wanna|plan|intend|wish|hope) to\b|\bi(?:'m| am) not (?:going|planning|gonna) to\b/.test(
      lower,
    ) ||
    /\b(?:i|we) (?:want|wanted|hope|hoped|dream|dreamed|dreamt) (?:that )?(?:i|we) (?:could|would|had|were)\b/.test(lower)
  )
}

/** A sentence that asks, requests or supposes: nothing in it is memory (design §4.2). */
export function isNotAStatement(sentence: string, language: Language = detectLanguage(sentence, 'zh')): boolean {
  return isQuestion(sentence, language) || isRequest(sentence, language) || isHypothetical(sentence, language)
}
