import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import type { Decision, MemoryJudge, Turn } from './judge'

/**
 * The offline judge: keyword rules in Chinese and English instead of an LLM. `decide` looks for
 * first-person statements in what the users said (never in the bot's turns) that name a
 * preference, an identity fact, a plan or date, a relationship, or ask the bot to remember;
 * questions are skipped. `summarize` is extractive: it takes the sentences that matched and rewrites
 * them in the third person with the speaker's name ("我下周三考试" → "小明下周三考试。",
 * "I like hiking" → "Alice likes hiking."). It is rules, not understanding: expect misses and the
 * odd false positive; configure an LLM for judgement.
 */

export type FactCategory = 'request' | 'identity' | 'preference' | 'relationship' | 'plan'

const CATEGORY_ORDER: FactCategory[] = ['request', 'identity', 'preference', 'relationship', 'plan']

interface Rule {
  category: FactCategory
  test(sentence: string): boolean
}

// ───────────────────────────── Chinese ─────────────────────────────

/** A gap of a few characters inside one clause that does not switch to another person. */
const ZH_GAP = '[^，。！？,.!?；;你他她它]{0,6}?'
const ZH_KIN =
  '(?:妈妈|爸爸|老妈|老爸|母亲|父亲|妈|爸|老婆|老公|妻子|丈夫|媳妇|女朋友|男朋友|女友|男友|对象|未婚妻|未婚夫|儿子|女儿|孩子|宝宝|哥哥|姐姐|弟弟|妹妹|哥|姐|弟|妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表弟|表妹|堂哥|堂姐|同事|老板|领导|上司|室友|舍友|同学|朋友|好朋友|闺蜜|兄弟|邻居|家人|家里人|猫|狗|宠物)'
/** Colloquial one-character kinship terms, spelled out in a third-person statement. */
const ZH_KIN_FULL: Record<string, string> = { 妈: '妈妈', 爸: '爸爸', 哥: '哥哥', 姐: '姐姐', 弟: '弟弟', 妹: '妹妹' }
const ZH_DATE =
  '(?:明天|后天|大后天|明早|明晚|今晚|下周|下星期|下礼拜|下个月|下个星期|明年|周末|这周[一二三四五六日天末]|(?:周|星期|礼拜)[一二三四五六日天]|\\d{1,2}\\s*月\\s*\\d{1,2}\\s*[日号]|[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号]|\\d{1,2}\\s*[号日]|\\d{4}\\s*年|\\d{1,2}\\s*点|生日|纪念日|考试|面试|出差|旅游|旅行|搬家|婚礼|结婚|截止|答辩|航班|飞机|高铁|火车|体检|复查|预约)'

const ZH_RULES: Rule[] = [
  {
    category: 'request',
    // Imperative only: "记住…" / "你要记得…", not "我记得…" (I remember) or "不记得" (forgot).
    test: (s) => /(?:^|[，,：:\s]|你|请|要|帮我|一定)(?:记住|记得|记一下|记下来)(?![吗么了])|别忘|不要忘|帮我记/.test(s),
  },
  {
    category: 'identity',
    test: (s) =>
      new RegExp(
        [
          '我(?:的名字|名字)(?:是|叫)',
          '我叫(?!你|他|她)',
          '我是(?!说|不是|真|很|太|挺|有点|在|不|想|觉|要|会|来|去|被|说|因为|为了|故意|开玩笑)[^，。！？,.!?]{1,12}$',
          '我是[^，。！？,.!?]{0,10}(?:人|学生|老师|医生|护士|程序员|工程师|设计师|律师|会计|警察|司机|厨师|博士|硕士|研究生|本科生|大学生|高中生|初中生)',
          `我${ZH_GAP}在[^，。！？,.!?]{1,12}(?:工作|上班|上学|读书|读研|读博|实习|念书)`,
          '我(?:现在)?(?:住在|家在|老家在|老家是|来自)',
          '我(?:今年)?\\s*(?:\\d{1,3}|[一二三四五六七八九十两]{1,3})\\s*岁',
          '我(?:的)?(?:职业|工作|专业)是',
          '我(?:毕业于|在读|主修)',
          '我(?:对[^，。！？,.!?]{1,8})?过敏',
          '我(?:是)?(?:吃素|素食者|左撇子)',
        ].join('|'),
      ).test(s),
  },
  {
    category: 'preference',
    test: (s) => {
      const m = new RegExp(
        `我${ZH_GAP}(?:不喜欢|喜欢|讨厌|爱吃|爱喝|爱看|爱听|爱玩|最爱|偏好|偏爱|受不了|不吃|不喝|不能吃|不能喝|吃不了|喝不了|迷上了|入坑了)`,
      ).exec(s)
      if (m) {
        const rest = s.slice(m.index + m[0].length).replace(/[\s，。！？,.!?~～…哦喔啊呀啦哈嘛了的]+/g, '')
        return rest.length > 0 && !/^(?:这个|那个|这|那|它|你|这样|那样)$/.test(rest)
      }
      return /我(?:的)?(?:爱好|兴趣|最喜欢的)/.test(s)
    },
  },
  {
    category: 'relationship',
    test: (s) => !/我的(?:妈|天)(?:呀|啊|耶)/.test(s) && new RegExp(`(?:我|我们|我家)(?:的)?${ZH_KIN}`).test(s),
  },
  {
    category: 'plan',
    test: (s) => /(?:我|咱)/.test(s) && (new RegExp(ZH_DATE).test(s) || /(?:打算|计划|准备|决定|想要|要去|约了|报名了|预定|预订)/.test(s)),
  },
]

function isZhQuestion(sentence: string): boolean {
  const core = sentence.replace(/[\s。！!~～…]+$/, '')
  return /[？?]$/.test(core) || /(?:吗|么|嘛|呢)$/.test(core) || /(?:是不是|有没有|能不能|可不可以|要不要)/.test(core)
}

/** Leading "remember / please remember / you should remember …" wrappers, with their punctuation. */
const ZH_REQUEST_WRAPPER =
  /^(?:(?:请|麻烦|拜托)?(?:你)?(?:一定)?(?:要)?(?:帮我)?(?:记住|记得|记一下|记下来|别忘了|别忘记|不要忘了|不要忘记)(?:哦|啊|呀|喔)?[，,：:\s]*)+/

function rewriteZh(sentence: string, name: string): string {
  let s = sentence.replace(ZH_REQUEST_WRAPPER, '')
  s = s.replace(/(?:咱们|我们)/g, `${name}他们`)
  s = s.replace(/我的/g, `${name}的`)
  // 我妈 → 小明的妈妈, 我女朋友的生日 → 小明女朋友的生日 (no doubled 的)
  s = s.replace(new RegExp(`我(${ZH_KIN})(的)?`, 'g'), (_m, kin: string, de?: string) =>
    de ? `${name}${ZH_KIN_FULL[kin] ?? kin}的` : `${name}的${ZH_KIN_FULL[kin] ?? kin}`,
  )
  s = s.replace(/我/g, name)
  s = s.replace(/[\s，,。.！!？?；;：:~～…哦喔啊呀啦哈嘛]+$/u, '')
  s = stripTrailingEmoji(s)
  if (!s) return ''
  if (!s.includes(name)) s = `${name}提到：${s}`
  return `${s}。`
}

// ───────────────────────────── English ─────────────────────────────

const EN_FIRST_PERSON = /\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we'll|we've|our|us)\b/
const EN_KIN =
  '(?:wife|husband|girlfriend|boyfriend|partner|fianc[eé]e?|mom|mum|mother|mommy|dad|father|daddy|parents?|son|daughter|kids?|children|child|baby|brother|sister|siblings?|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece|nephew|friends?|best friend|bff|colleagues?|coworkers?|co-workers?|boss|manager|roommate|flatmate|classmate|neighbou?r|family|dog|cat|pet|puppy|kitten)'
const EN_MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const EN_DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend'
const EN_DATE = new RegExp(
  [
    `\\b(?:tomorrow|tonight|next (?:week|month|year|${EN_DAYS})|this (?:${EN_DAYS}|evening|summer|winter|spring|fall|autumn)|on (?:${EN_DAYS}))\\b`,
    `\\b${EN_MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)? (?:of )?${EN_MONTH}\\b`,
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
    '\\b\\d{1,2}/\\d{1,2}\\b',
    '\\b(?:birthday|anniversary|appointment|deadline|exam|interview|flight|wedding|trip|vacation|holiday|surgery|meeting)\\b',
  ].join('|'),
)
const EN_OBJECT_FREE = /^(?:it|that|this|them|those|these|you|so much|a lot)?$/

const EN_RULES: Rule[] = [
  {
    category: 'request',
    test: (s) =>
      /(?<!\b(?:i|you|we) )\bremember (?:that|this|my|i|i'm|me|we)\b|\bdon't forget\b|\bdo not forget\b|\bplease remember\b|\bkeep in mind\b/.test(
        s,
      ),
  },
  {
    category: 'identity',
    test: (s) =>
      /\bmy name is\b|\bmy name's\b|\bi'm called\b|\bi am called\b|\bcall me\b|\bi (?:am|'m) (?:a|an)\b(?! (?:bit|little|lot)\b)|\bi (?:work|worked) (?:at|for|as|in|on)\b|\bi (?:live|lived|grew up) (?:in|at|near)\b|\bi(?: am|'m) from\b|\bi come from\b|\bi(?: am|'m) \d{1,3}(?: years old)?\b|\bi (?:study|studied|majored|major) (?:at|in)?\b|\bi(?: am|'m) (?:allergic|vegetarian|vegan|married|single|divorced|pregnant|retired|left-handed)\b|\bi have (?:a|an|two|three) (?:allergy|kids?|children|sons?|daughters?|brothers?|sisters?|dogs?|cats?)\b/.test(
        s,
      ),
  },
  {
    category: 'preference',
    test: (s) => {
      const m =
        /\bi (?:(?:really|also|just|absolutely|totally|actually|kinda|kind of|sort of|truly|still|always|do|don't|do not|don't really|never|honestly) )*(?:like|love|hate|prefer|enjoy|adore|dislike|can't stand|cannot stand|don't eat|don't drink)\b/.exec(
          s,
        )
      if (m) {
        const rest = s
          .slice(m.index + m[0].length)
          .replace(/[^a-z0-9' ]+/g, ' ')
          .trim()
        return !EN_OBJECT_FREE.test(rest)
      }
      return /\bmy (?:favou?rite|fave)\b|\bmy hobby\b|\bmy hobbies\b/.test(s)
    },
  },
  {
    category: 'relationship',
    test: (s) => new RegExp(`\\b(?:my|our) (?:\\w+ )?${EN_KIN}\\b`).test(s),
  },
  {
    category: 'plan',
    test: (s) =>
      EN_FIRST_PERSON.test(s) &&
      (EN_DATE.test(s) || /\b(?:plan(?:ning)? to|intend to|decided to|signed up for|booked|i've booked|i'm moving|we're moving)\b/.test(s)),
  },
]

function isEnQuestion(sentence: string): boolean {
  const core = sentence.trim()
  if (/\?\s*$/.test(core)) return true
  return /^(?:do|does|did|can|could|would|will|is|are|am|should|shall|what|what's|who|who's|how|why|where|which|whats)\b/.test(core)
}

const EN_REQUEST_WRAPPER =
  /^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:remember|don't forget|do not forget|keep in mind|note)(?:\s+that)?[,:]?\s+/i

const EN_MODALS = new Set(['can', 'could', 'will', 'would', 'should', 'must', 'might', 'may', 'shall'])
const EN_PAST = new Set([
  'was',
  'went',
  'had',
  'did',
  'got',
  'made',
  'saw',
  'met',
  'bought',
  'took',
  'came',
  'left',
  'found',
  'gave',
  'told',
  'said',
  'thought',
  'felt',
  'knew',
  'began',
  'ran',
  'ate',
  'drank',
  'wrote',
  'read',
  'put',
  'lost',
  'won',
  'paid',
  'sold',
  'sent',
  'spent',
  'built',
  'broke',
  'chose',
  'fell',
  'flew',
  'forgot',
  'grew',
  'heard',
  'kept',
  'led',
  'lent',
  'lay',
  'meant',
  'rode',
  'rose',
  'sang',
  'sat',
  'slept',
  'spoke',
  'stood',
  'swam',
  'taught',
  'understood',
  'woke',
  'wore',
  'used',
])
const EN_ADVERBS = new Set([
  'really',
  'also',
  'just',
  'always',
  'usually',
  'often',
  'never',
  'still',
  'actually',
  'absolutely',
  'totally',
  'truly',
  'honestly',
  'sometimes',
  'rarely',
  'mostly',
  'only',
  'even',
  'kinda',
])

const EN_SUBJECT_VERB = new RegExp(`\\bI((?:\\s+(?:${[...EN_ADVERBS].join('|')}))*)\\s+([a-z]+)\\b`, 'gi')

/** Third person singular present of a base-form verb: like → likes, go → goes, study → studies, have → has. */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase()
  if (lower === 'have') return 'has'
  if (lower === 'be' || lower === 'am') return 'is'
  if (lower === 'do') return 'does'
  if (lower === 'go') return 'goes'
  if (EN_MODALS.has(lower) || EN_PAST.has(lower) || /ed$/.test(lower)) return verb
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`
  if (/(?:s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`
  return `${verb}s`
}

function rewriteEn(sentence: string, name: string): string {
  let s = sentence
    .replace(/[\u2018\u2019]/g, "'")
    .trim()
    .replace(EN_REQUEST_WRAPPER, '')
  const possessive = name.endsWith('s') ? `${name}'` : `${name}'s`
  const replacements: [RegExp, string | ((...m: string[]) => string)][] = [
    [/\bI(?:'m| am)\b/gi, `${name} is`],
    [/\bI was\b/gi, `${name} was`],
    [/\bI've\b/gi, `${name} has`],
    [/\bI'll\b/gi, `${name} will`],
    [/\bI'd\b/gi, `${name} would`],
    [/\bI (?:don't|do not)\b/gi, `${name} doesn't`],
    [/\bI(?:'ve| have) got\b/gi, `${name} has got`],
    [/\bwe're\b/gi, `${name} and others are`],
    [/\bwe've\b/gi, `${name} and others have`],
    [/\bwe'll\b/gi, `${name} and others will`],
    [/\bwe\b/gi, `${name} and others`],
    [/\bour\b/gi, possessive],
    [/\bus\b/gi, `${name} and others`],
    [/\bmy\b/gi, possessive],
    [/\bmine\b/gi, possessive],
    [/\bmyself\b/gi, name],
    [/\bme\b/gi, name],
  ]
  for (const [pattern, replacement] of replacements) s = s.replace(pattern, replacement as string)
  // I [adverbs] verb → Name [adverbs] verb-s
  s = s.replace(EN_SUBJECT_VERB, (whole, adverbs: string, verb: string) => {
    if (EN_ADVERBS.has(verb.toLowerCase())) return whole
    return [name, ...adverbs.trim().split(/\s+/).filter(Boolean), thirdPerson(verb)].join(' ')
  })
  s = s.replace(/\bI\b/gi, name)
  s = stripTrailingEmoji(s.replace(/[\s,.;:!?~…]+$/, ''))
  if (!s) return ''
  if (!s.includes(name)) s = `${name} mentioned that ${s.charAt(0).toLowerCase()}${s.slice(1)}`
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`
}

// ───────────────────────────── shared ─────────────────────────────

function stripTrailingEmoji(text: string): string {
  return text.replace(/[\s\p{Extended_Pictographic}\u{FE0F}\u{200D}]+$/u, '').replace(/[\s，,。.！!？?~～…]+$/u, '')
}

/** Sentences of one message: split at sentence punctuation and line breaks, media placeholders removed. */
function sentencesOf(content: string): string[] {
  return content
    .replace(/\[(?:图片|表情|语音|视频|文件|image|sticker|voice|video|file)\]|<[^<>]+\/>/gi, ' ')
    .split(/(?<=[。！？!?；;…])|\n+|(?<=[a-z0-9)"'])\.(?=\s|$)/i)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

/** Drops leading clauses that carry nothing ("哈哈，对了，我下周…" → "我下周…"). */
function trimLeadingClauses(sentence: string, language: Language, categories: (s: string) => FactCategory[]): string {
  const clauses = sentence.split(language === 'zh' ? /(?<=[，,、])/ : /(?<=,)\s*/)
  while (clauses.length > 1) {
    const first = clauses[0]
    const personal = language === 'zh' ? /[我咱]/.test(first) : EN_FIRST_PERSON.test(first.toLowerCase())
    if (personal || categories(first).length) break
    clauses.shift()
  }
  return clauses.join(language === 'zh' ? '' : ' ').trim()
}

interface FactSentence {
  name: string
  sentence: string
  language: Language
  categories: FactCategory[]
}

function categoriesOf(sentence: string, language: Language): FactCategory[] {
  if (language === 'zh') {
    if (isZhQuestion(sentence)) return []
    const core = sentence.replace(/[\s。！!；;…~～.,，]+$/, '')
    return ZH_RULES.filter((rule) => rule.test(core)).map((rule) => rule.category)
  }
  const lower = sentence.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  if (isEnQuestion(lower)) return []
  return EN_RULES.filter((rule) => rule.test(lower)).map((rule) => rule.category)
}

/** A request with nothing left to remember ("记住哦", "remember this") is not a fact. */
function hasContentBeyondRequest(sentence: string, language: Language): boolean {
  const rest =
    language === 'zh'
      ? sentence.replace(ZH_REQUEST_WRAPPER, '').replace(/[\s\p{P}\p{S}哦喔啊呀啦哈嘛了]|这个|那个|这些|那些|它/gu, '')
      : sentence
          .replace(/[\u2018\u2019]/g, "'")
          .replace(EN_REQUEST_WRAPPER, '')
          .replace(/\b(?:this|that|it|ok|okay|please)\b|[^\p{L}\p{N}]/giu, '')
  return rest.length > 0
}

function findFacts(conversation: Turn[]): FactSentence[] {
  const facts: FactSentence[] = []
  for (const turn of conversation) {
    if (turn.role !== 'user') continue
    for (const raw of sentencesOf(turn.content ?? '')) {
      const language = detectLanguage(raw, 'zh')
      let categories = categoriesOf(raw, language)
      if (!categories.length) continue
      if (!hasContentBeyondRequest(raw, language)) continue
      const sentence = trimLeadingClauses(raw, language, (s) => categoriesOf(s, language))
      categories = categoriesOf(sentence, language)
      if (!categories.length) continue
      facts.push({ name: turn.name?.trim() || '', sentence, language, categories })
    }
  }
  return facts
}

/** Most sentences a summary is made of. */
const MAX_SENTENCES = 3

export class RuleJudge implements MemoryJudge {
  readonly id = 'rules'

  async decide(conversation: Turn[]): Promise<Decision> {
    const facts = findFacts(conversation)
    if (!facts.length) return { shouldRemember: false, reason: 'rules: no preference, identity, plan, relationship or request' }
    const found = new Set(facts.flatMap((f) => f.categories))
    return { shouldRemember: true, reason: `rules: ${CATEGORY_ORDER.filter((c) => found.has(c)).join(', ')}` }
  }

  async summarize(conversation: Turn[]): Promise<string> {
    const facts = findFacts(conversation).slice(0, MAX_SENTENCES)
    const statements = facts
      .map((fact) => {
        const name = fact.name || (fact.language === 'zh' ? '用户' : 'The user')
        return fact.language === 'zh' ? rewriteZh(fact.sentence, name) : rewriteEn(fact.sentence, name)
      })
      .filter(Boolean)
    if (!statements.length) throw new Error('rules: nothing in the conversation to summarise')
    return statements.join(' ').replace(/。 (?=\S)/g, '。')
  }
}
