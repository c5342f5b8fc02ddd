import { resolveRelativeDates } from '../text/dates'
import type { Language } from '../text/language'
import { detectLanguage } from '../text/language'
import { isQuestion } from '../text/questions'
import type { ExtractedFact, Extraction, ExtractOptions, MemoryJudge, Turn } from './judge'
import type { FactCategory, LanguageRules, Rules, Statement } from './rules'
import { CATEGORY_ORDER, categoriesBy, stripTrailingEmoji } from './rules'

/**
 * The offline judge: keyword rules in Chinese and English instead of a model. It reads only what the
 * users said (never the bot's turns), cuts each message into statements (sentences, and in Chinese
 * the clauses that say something new about the speaker: "我叫小明，是一名大学老师，住在成都" is three
 * statements), drops questions, and keeps a statement about the speaker that names a fact of a known
 * kind — pets, hobbies and learning, family and relationships, job and school, home and travel,
 * plans and dates, health, likes and dislikes, possessions, birthdays, identity — or asks the bot to
 * remember. Beyond those kinds it keeps any other statement of the speaker's life ('life'), the way
 * friends say them in passing: the speaker as the subject or left out ("Went to a pottery class on
 * Saturday", "上周末带孩子去了趟海洋馆"), after a reaction that is dropped ("Wow, I went there last
 * year too!" → "Alice went there in 2025 too."), unless it is a question, a stance ("I think…"), a
 * feeling or a wish for the listener ("So happy for you", "我真为你高兴"), a move of the chat ("I'll
 * check it out", "我们下次一起去吧"), the moment (eating, heading to bed, tired) or too thin to say
 * anything. Each kept statement is rewritten in the third person with the speaker's name ("我最近在学
 * 吉他" → "小明最近在学吉他。", "I have a golden retriever named Max" → "Alice has a golden retriever
 * named Max.") and its relative dates made absolute against the time it was said. It is rules, not
 * understanding: expect misses and the odd false positive; configure a model for judgement.
 * `test/unit/rule-judge-measure.test.ts` measures it on a labelled set of lines said to a bot,
 * `test/unit/rule-judge-chat-measure.test.ts` on one of chat between friends.
 */

// ───────────────────────────── Chinese ─────────────────────────────

/** A gap of a few characters inside one clause that does not switch to another person. */
const ZH_GAP = '[^，。！？,.!?；;你他她它]{0,6}?'
const ZH_KIN =
  '(?:妈妈|爸爸|老妈|老爸|母亲|父亲|妈|爸|老婆|老公|妻子|丈夫|媳妇|爱人|女朋友|男朋友|女友|男友|对象|未婚妻|未婚夫|儿子|女儿|孩子|宝宝|哥哥|姐姐|弟弟|妹妹|哥|姐|弟|妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表弟|表妹|堂哥|堂姐|同事|老板|领导|上司|室友|舍友|同学|朋友|好朋友|闺蜜|兄弟|邻居|家人|家里人|爸妈|父母)'
const ZH_PET =
  '(?:猫咪|猫|狗狗|狗|小狗|小猫|柯基|金毛|哈士奇|泰迪|柴犬|边牧|拉布拉多|布偶|英短|美短|橘猫|仓鼠|兔子|鹦鹉|金鱼|乌龟|龙猫|宠物)'
/** Colloquial one-character kinship terms, spelled out in a third-person statement. */
const ZH_KIN_FULL: Record<string, string> = { 妈: '妈妈', 爸: '爸爸', 哥: '哥哥', 姐: '姐姐', 弟: '弟弟', 妹: '妹妹' }
const ZH_DATE =
  '(?:今天|明天|后天|大后天|明早|明晚|今晚|下周|下星期|下礼拜|下个月|下个星期|明年|后年|周末|这周[一二三四五六日天末]|(?:周|星期|礼拜)[一二三四五六日天]|\\d{1,2}\\s*月\\s*\\d{1,2}\\s*[日号]|[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号]|\\d{1,2}\\s*[号日]|\\d{4}\\s*年|\\d{1,2}\\s*点|国庆|五一|春节|过年|寒假|暑假|元旦|中秋)'
const ZH_EVENT =
  '(?:考试|面试|出差|旅游|旅行|搬家|婚礼|结婚|答辩|航班|飞机|高铁|火车|体检|复查|预约|考研|考公|考驾照|科目[一二三四]|驾照|比赛|演出|演唱会|聚会|聚餐|约会|开会|会议|手术|毕业|入职|报到|开学|放假|回老家|回国|出国|留学)'
const ZH_JOBS =
  '(?:老师|教师|医生|大夫|护士|程序员|工程师|设计师|律师|会计|警察|司机|厨师|销售|产品经理|项目经理|经理|运营|开发|前端|后端|测试|公务员|记者|编辑|主播|作家|画家|演员|歌手|模特|保安|快递员|外卖员|店长|老板|创业者|自由职业者|研究员|博士后|教授|翻译|客服|HR|hr|会计师|建筑师|药剂师|兽医|牙医|飞行员|空姐|军人|农民|工人|学生|大学生|研究生|博士生|高中生|初中生|小学生)'
const ZH_ILLNESS =
  '(?:过敏|不耐受|手术|住院|生病|病了|感冒|发烧|咳嗽|近视|远视|减肥|怀孕|高血压|糖尿病|哮喘|失眠|抑郁|焦虑症|骨折|扭伤|体检|吃药|胃病|胃不好|腰不好|牙疼|痛风|贫血|鼻炎|胆固醇|戒烟|戒酒|素食|吃素|过敏原)'

/** A statement where the speaker is the subject or owner: 我, 我们, 咱们, 我家… */
const ZH_SPEAKER = /[我咱]/

/** Imperative only: "记住…" / "你要记得…", not "我记得…" (I remember) or "不记得" (forgot). */
const ZH_REQUEST = /(?:^|[，,：:\s]|你|请|要|帮我|一定)(?:记住|记得|记一下|记下来)(?![吗么了])|别忘|不要忘|帮我记/

const ZH_RULES: Rules = {
  request: (s) => ZH_REQUEST.test(s),
  identity: (s) =>
    new RegExp(
      [
        '我(?:的名字|名字)(?:是|叫)',
        '我(?:叫|的网名是|的英文名是)(?!你|他|她|什么)',
        '我是(?:个|一个)?[^，。！？,.!?不]{1,4}人$',
        '我(?:今年|现在)?\\s*(?:已经)?(?:\\d{1,3}|[一二三四五六七八九十两]{1,3})\\s*岁',
        '我(?:是)?(?:左撇子|右撇子|独生子女|双胞胎|[ABO]型血|AB型血)',
        '我(?:是|属)(?:属)?[鼠牛虎兔龙蛇马羊猴鸡狗猪]的?$',
        '我(?:是)?(?:[白金天处摩水双射狮巨]\\S座|处女座|双子座|天蝎座|水瓶座|双鱼座|白羊座|金牛座|巨蟹座|狮子座|天秤座|摩羯座|射手座)',
        '我(?:是)?(?:i|e)[ns][tf][jp]',
      ].join('|'),
      'i',
    ).test(s),
  job: (s) =>
    new RegExp(
      [
        `我(?:是|当|做)(?:了)?(?:一名|一个|个|一位)?[^，。！？,.!?]{0,8}${ZH_JOBS}`,
        `我${ZH_GAP}在[^，。！？,.!?]{1,12}(?:工作|上班|实习|打工|当|做|干)`,
        '我(?:的)?(?:职业|工作)是',
        '我是(?:做|搞|干)[^，。！？,.!?]{1,8}的$',
        `我${ZH_GAP}(?:换了|找到了|辞了|丢了)(?:新)?工作|我${ZH_GAP}(?:升职|辞职|离职|退休|入职|跳槽|失业|创业|转行)`,
        '我(?:现在)?(?:做|干|搞)[^，。！？,.!?]{0,6}(?:开发|设计|运营|销售|工作|行业|这行|产品|研究)',
      ].join('|'),
    ).test(s),
  school: (s) =>
    new RegExp(
      [
        `我${ZH_GAP}在[^，。！？,.!?]{1,12}(?:上学|读书|读研|读博|念书|上大学|读大学|读高中|读初中|上高中|上初中)`,
        '我(?:今年|现在)?(?:是|在读|读|上)?(?:大[一二三四]|研[一二三]|高[一二三]|初[一二三]|博[一二三四五])',
        '我(?:学的是|的专业是|专业是|主修|毕业于|在读)',
        `我${ZH_GAP}(?:毕业|考上了|被[^，。！？,.!?]{1,10}录取)`,
      ].join('|'),
    ).test(s),
  home: (s) =>
    /我(?:现在|目前|一直)?(?:住在|住(?!院)|家在|老家在|老家是|来自|是在[^，。！？,.!?]{1,8}长大|在[^，。！？,.!?]{1,8}(?:住了|生活了|长大))/.test(
      s,
    ) || new RegExp(`我${ZH_GAP}(?:搬到|搬去|搬家|定居|租了)`).test(s),
  family: (s) =>
    !/我的(?:妈|天)(?:呀|啊|耶|哪)/.test(s) &&
    (new RegExp(`(?:我|我们|我家|咱家)(?:的|最好的|最要好的)?${ZH_KIN}`).test(s) ||
      new RegExp(`我(?:有|有个|有一个|有两个|和|跟)[^，。！？,.!?]{0,3}${ZH_KIN}`).test(s) ||
      /我(?:结婚|离婚|单身|订婚|恋爱|脱单|分手|怀孕|当爸爸|当妈妈)/.test(s)),
  pet: (s) =>
    new RegExp(`(?:我|我家|我们家)${ZH_GAP}(?:养了|养着|养|领养了|收养了|捡了|有)${ZH_GAP}${ZH_PET}`).test(s) ||
    new RegExp(`(?:我|我家|我们家)(?:的)?${ZH_PET}`).test(s),
  learning: (s) =>
    new RegExp(
      [
        `我${ZH_GAP}(?:在|开始|正在|一直在|刚开始)(?:自学|学|练)(?!校|生|期|者|历|霸|渣|长|姐|妹|弟|到|会|习惯)`,
        `我${ZH_GAP}自学`,
        `我${ZH_GAP}报了[^，。！？,.!?]{0,8}(?:班|课|培训)`,
      ].join('|'),
    ).test(s),
  hobby: (s) =>
    new RegExp(
      `我${ZH_GAP}(?:平时|一般|经常|每天|每周|每晚|每个周末|周末|业余|有空|没事)[^，。！？,.!?]{0,4}(?:都)?(?:会)?(?:去|跑|打|玩|看|练|做|钓|游|骑|爬|写|画|听|弹|唱|追|拍|逛)`,
    ).test(s) ||
    new RegExp(`(?:周末|平时|每天|业余)我${ZH_GAP}(?:一般|经常|都|会)?(?:去|跑|打|玩|看|练|做|钓|游|骑|爬|写|画|听|弹|唱|追|拍|逛)`).test(
      s,
    ) ||
    /我(?:是)?(?:个|一个|一名)?[^，。！？,.!?]{0,6}(?:玩家|爱好者|粉丝|发烧友|迷|控|党)$/.test(s) ||
    /我(?:的)?(?:爱好|兴趣)/.test(s),
  preference: (s) => {
    const m = new RegExp(
      `我${ZH_GAP}(?:不喜欢|喜欢|讨厌|爱吃|爱喝|爱看|爱听|爱玩|爱|最爱|偏好|偏爱|受不了|不吃|不喝|不能吃|不能喝|吃不了|喝不了|吃不惯|迷上了|入坑了|害怕|怕)`,
    ).exec(s)
    if (m) {
      const rest = s.slice(m.index + m[0].length).replace(/[\s，。！？,.!?~～…哦喔啊呀啦哈嘛了的]+/g, '')
      // what the bot said or did is no fact about the speaker ("我喜欢你的回答")
      // nor what is in front of them ("我太喜欢这张照片了": a reaction to what was shown)
      return rest.length > 0 && !/^(?:这个|那个|这|那|它|你|这样|那样|死了|了)$/.test(rest) && !/^(?:你|您|这)/.test(rest)
    }
    return /我(?:的)?(?:最喜欢的|最爱的)/.test(s)
  },
  health: (s) => new RegExp(`(?:我|我的)${ZH_GAP}${ZH_ILLNESS}|我(?:有|得了|患有)[^，。！？,.!?]{0,8}(?:病|症|炎)`).test(s),
  possession: (s) =>
    new RegExp(`我${ZH_GAP}(?:买了|入手了|入了|新买了|订了|租了|提了)(?:一|两|个|台|辆|部|套|只|块|把|双|件)`).test(s) ||
    /我(?:有|家有)(?:一|两)?(?:台|辆|部|套|栋|块|把|架)/.test(s),
  birthday: (s) =>
    /生日|纪念日/.test(s) &&
    (new RegExp(
      `(?:生日|纪念日)(?:是|在|就在|就是)?[^，。！？,.!?]{0,3}(?:\\d|[一二三四五六七八九十]+月|正月|腊月|农历|阴历|阳历|${ZH_DATE})`,
    ).test(s) ||
      new RegExp(`${ZH_DATE}[^，。！？,.!?]{0,3}(?:是|过)[^，。！？,.!?]{0,10}(?:生日|纪念日)`).test(s)),
  plan: (s) =>
    new RegExp(`${ZH_DATE}[^，。！？,.!?]{0,8}${ZH_EVENT}|${ZH_EVENT}[^，。！？,.!?]{0,4}(?:在|是)${ZH_DATE}`).test(s) ||
    /(?:打算|计划|准备|决定|要去|约了|报名了|预定了|预订了|订了票|有个面试|要考)/.test(s) ||
    new RegExp(`${ZH_DATE}[^，。！？,.!?]{0,6}(?:要|得|会|去|回|飞)`).test(s),
}

/** Verbs a statement may start with when the speaker is left out ("最近刚领养了一只橘猫"). */
/**
 * One or more of `words`, each taken once and never split again: an atomic group (`(?=(x))\k<x>`), so
 * a run like 刚刚刚刚… is read in one pass, not in every way of cutting it (which takes forever).
 */
function runOf(words: string, name: string): string {
  return `(?:(?=(?<${name}>${words}))\\k<${name}>)+`
}

const ZH_PREDICATE_START = new RegExp(
  `^(?:${runOf(`刚刚|最近|刚|才|已经|今年|现在|平时|一直|还|也|都|明天|后天|下周|下个月|明年|周末|${ZH_DATE}`, 'when')})?(?:养了|领养了|收养了|买了|入手了|在学|在自学|开始学|报了|住在|搬到|搬去|要去|打算|准备|计划|换了|辞职|升职|考上了|是|叫|在|有|对|不吃|不喝|喜欢|讨厌|爱吃|爱喝|学的是|做|当|来自|毕业)`,
)

/** A clause that brings in someone or something the next clause may be about. */
const ZH_BRINGS_IN = /(?:有|养了|养着|养|领养了|收养了|买了|认识了|交了|生了|捡了)(?:一|两|三|几|个|只|位|条|台|辆|匹)/

/** Conjunctions and fillers before the next clause of a statement ("但是不吃香菜"). */
const ZH_CONJUNCTION = /^(?:但是|但|不过|可是|而且|并且|然后|还有|另外|同时|所以|因此|也|还|就)+/

function isZhQuestion(sentence: string): boolean {
  return isQuestion(sentence, 'zh')
}

/** Leading "remember / please remember / you should remember …" wrappers, with their punctuation. */
const ZH_REQUEST_WRAPPER =
  /^(?:(?:请|麻烦|拜托)?(?:你)?(?:一定)?(?:要)?(?:帮我)?(?:记住|记得|记一下|记下来|别忘了|别忘记|不要忘了|不要忘记)(?:哦|啊|呀|喔)?[，,：:\s]*)+/

function rewriteZh(sentence: string, name: string): string {
  let s = sentence.replace(ZH_REQUEST_WRAPPER, '').replace(ZH_LEAD, '')
  s = s.replace(/(?:我们|咱们)家|咱家/g, `${name}家`)
  s = s.replace(/(?:咱们|我们)/g, `${name}他们`)
  s = s.replace(/我的/g, `${name}的`)
  // 我妈 → 小明的妈妈, 我女朋友的生日 → 小明女朋友的生日 (no doubled 的)
  s = s.replace(new RegExp(`我(${ZH_KIN})(的)?`, 'g'), (_m, kin: string, de?: string) =>
    de ? `${name}${ZH_KIN_FULL[kin] ?? kin}的` : `${name}的${ZH_KIN_FULL[kin] ?? kin}`,
  )
  s = s.replace(/我/g, name)
  s = s.replace(/(?<!哗)[\s，,。.！!？?；;：:~～…哦喔啊呀啦哈嘛]+$/u, '')
  s = stripTrailingEmoji(s)
  if (!s) return ''
  if (!s.includes(name)) s = `${name}${s}`
  return `${s}。`
}

// ───────────────────────────── English ─────────────────────────────

/** A statement where the speaker is the subject or owner: I, me, my, we, our… */
const EN_SPEAKER = /\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we'll|we've|our|us)\b/
const EN_KIN =
  '(?:wife|husband|girlfriend|boyfriend|partner|fianc[eé]e?|mom|mum|mother|mommy|dad|father|daddy|parents?|son|daughter|kids?|children|child|baby|brother|sister|siblings?|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece|nephew|friends?|best friend|bff|colleagues?|coworkers?|co-workers?|boss|manager|roommate|flatmate|classmate|neighbou?r|family|in-laws)'
const EN_PET =
  '(?:dogs?|cats?|pupp(?:y|ies)|kittens?|pets?|rabbits?|bunn(?:y|ies)|hamsters?|guinea pigs?|parrots?|birds?|fish|goldfish|turtles?|tortoises?|horses?|snakes?|lizards?|retrievers?|labradors?|labs?|corgis?|poodles?|huskies|husky|beagles?|bulldogs?|terriers?|shepherds?|chihuahuas?|pugs?|dachshunds?|tabby|persian)'
const EN_MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const EN_DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend'
const EN_DATE = new RegExp(
  [
    `\\b(?:today|tomorrow|tonight|next (?:week|month|year|${EN_DAYS}|${EN_MONTH})|this (?:${EN_DAYS}|evening|summer|winter|spring|fall|autumn|week|month|year)|on (?:${EN_DAYS})|in (?:\\w+ )?(?:days?|weeks?|months?|years?))\\b`,
    `\\b(?:in|on|by|until|this|next) ${EN_MONTH}\\b`,
    `\\b${EN_MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)? (?:of )?${EN_MONTH}\\b`,
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
    '\\b\\d{1,2}/\\d{1,2}\\b',
  ].join('|'),
)
const EN_EVENT =
  '(?:birthday|anniversary|appointment|deadline|exam|test|interview|flight|wedding|trip|vacation|holiday|surgery|meeting|marathon|race|concert|match|game|party|date|checkup|check-up|conference|presentation)'
const EN_OBJECT_FREE = /^(?:it|that|this|them|those|these|you|so much|a lot|to|too)?$/
const EN_JOBS =
  '(?:teacher|doctor|nurse|engineer|developer|programmer|designer|lawyer|accountant|police officer|cop|driver|chef|cook|manager|student|writer|artist|musician|scientist|researcher|professor|consultant|analyst|architect|pharmacist|vet|dentist|pilot|firefighter|farmer|electrician|plumber|mechanic|cashier|barista|waiter|waitress|journalist|editor|photographer|freelancer|entrepreneur|founder|intern|lead|director|ceo|cto)'

const EN_REQUEST =
  /(?<!\b(?:i|you|we) )\bremember (?:that|this|my|i|i'm|me|we)\b|\bdon't forget\b|\bdo not forget\b|\bplease remember\b|\bkeep in mind\b/

const EN_RULES: Rules = {
  request: (s) => EN_REQUEST.test(s),
  identity: (s) =>
    /\bmy name is\b|\bmy name's\b|\bi'm called\b|\bi am called\b|\bcall me\b|\bi(?: am|'m) \d{1,3}(?: years old)?\b|\bi(?: am|'m) (?:left-handed|right-handed|an only child|a twin|an? (?:introvert|extrovert))\b|\bmy (?:zodiac|star) sign\b|\bi(?: am|'m) an? (?:aries|taurus|gemini|cancer|leo|virgo|libra|scorpio|sagittarius|capricorn|aquarius|pisces)\b/.test(
      s,
    ),
  job: (s) =>
    new RegExp(
      `\\bi (?:work|worked|'ve worked|have worked) (?:at|for|as|in|on)\\b|\\bi(?: am|'m) (?:a|an) (?:[\\w-]+ ){0,3}${EN_JOBS}s?\\b|\\bi (?:just )?(?:got|was) (?:promoted|hired|fired|laid off)\\b|\\bi teach\\b|\\bi (?:just )?(?:quit|lost|started|got|found|changed) (?:my|a) (?:new )?(?:job|career)\\b|\\bi(?: am|'m) (?:retired|unemployed|self-employed|between jobs)\\b|\\bmy (?:job|work|profession|occupation) is\\b|\\bi run (?:a|my own)\\b`,
    ).test(s),
  school: (s) =>
    /\bi (?:study|studied|majored|major|'m majoring|am majoring|graduate|graduated|'m graduating|am graduating)\b|\bi(?: am|'m) (?:in|doing|starting) (?:my )?(?:first|second|third|fourth|final|last|\d(?:st|nd|rd|th)) year\b|\bi(?: am|'m) (?:a )?(?:freshman|sophomore|junior|senior|grad student|phd student|phd candidate)\b|\bi go to (?:\w+ )*(?:school|college|university|uni)\b|\bmy (?:major|degree|thesis|school|college|university)\b|\bi(?: am|'m) (?:doing|taking|finishing|pursuing) (?:a |an |my )?(?:master's|masters|bachelor's|phd|degree|mba)\b/.test(
      s,
    ),
  home: (s) =>
    /\bi (?:live|lived|grew up|was born|'ve lived|have lived) (?:in|at|near|on)\b|\bi(?: am|'m) from\b|\bi come from\b|\b(?:i|we)(?: just)? (?:moved|am moving|'m moving|are moving|'re moving|will move|'ll move|relocated) (?:to|back|here|in|into)\b|\bmy (?:home ?town|home|apartment|house) is in\b/.test(
      s,
    ),
  family: (s) =>
    new RegExp(`\\b(?:my|our) (?:\\w+ )?${EN_KIN}\\b`).test(s) ||
    /\bi have (?:a|an|one|two|three|four|five|\d) (?:(?:\w+) )?(?:kids?|children|sons?|daughters?|brothers?|sisters?|siblings?|grandchildren|twins)\b/.test(
      s,
    ) ||
    /\bi(?: am|'m| got| just got) (?:married|engaged|divorced|single|pregnant|getting married|expecting)\b/.test(s) ||
    /\b(?:two|three|four|five|\d) (?:older |younger |little |big |elder )?(?:brothers|sisters|siblings|kids|children|sons|daughters)\b/.test(
      s,
    ),
  pet: (s) =>
    new RegExp(`\\b(?:my|our) (?:\\w+ )?${EN_PET}\\b`).test(s) ||
    new RegExp(
      `\\b(?:i|we)(?:'ve| have)? (?:just )?(?:have|got|own|adopted|rescued|bought|has) (?:a|an|two|three|\\d) (?:[\\w-]+ ){0,2}${EN_PET}\\b`,
    ).test(s),
  learning: (s) =>
    /\bi(?: am|'m|'ve been| have been) (?:\w+ )?(?:learning|studying|practicing|practising|taking (?:\w+ )?(?:classes|lessons|courses?))\b|\bi (?:started|began|want to start|'m starting) (?:learning|studying|taking|to learn)\b|\bi(?: am|'m) (?:taking|doing) (?:an? )?(?:\w+ )?(?:class|course|lessons?)\b/.test(
      s,
    ),
  hobby: (s) =>
    /\bi (?:\w+ )?(?:play|collect|paint|knit|bake|hike|run|swim|cycle|bike|climb|draw|sing|dance|garden|fish|surf|ski|skate|ride|jog|golf|sew|crochet|write poetry|do yoga|go (?:hiking|fishing|running|swimming|climbing|camping|skiing))\b(?! (?:it|that|this|you)\b)|\bi(?: am|'m) (?:really )?into\b|\bi(?: am|'m) (?:a )?(?:big |huge )?fan of\b|\bmy (?:hobby|hobbies)\b/.test(
      s,
    ),
  preference: (s) => {
    const m =
      /\bi (?:(?:really|also|just|absolutely|totally|actually|kinda|kind of|sort of|truly|still|always|do|don't|do not|don't really|never|honestly) )*(?:like|love|hate|prefer|enjoy|adore|dislike|can't stand|cannot stand|don't eat|don't drink|never eat|never drink|can't eat|can't drink)\b/.exec(
        s,
      )
    if (m) {
      const rest = s
        .slice(m.index + m[0].length)
        .replace(/[^a-z0-9' ]+/g, ' ')
        .trim()
      return !EN_OBJECT_FREE.test(rest) && !/^(?:your|you|this|these)\b/.test(rest)
    }
    return /\bi(?: am|'m) not (?:a|much of a) (?:big )?fan of\b|\bmy (?:favou?rite|fave)\b|\bis my (?:favou?rite|fave)\b|\bi(?: am|'m) (?:a )?(?:vegetarian|vegan|pescatarian)\b|\bi(?: am|'m) (?:afraid|scared) of\b/.test(
      s,
    )
  },
  health: (s) =>
    /\bi(?: am|'m) (?:allergic|lactose intolerant|gluten intolerant|diabetic|asthmatic|epileptic|colorblind|colou?r blind|deaf|blind|pregnant|on a diet|recovering)\b|\bi(?: have|'ve got| got|'ve had| have had| suffer from| was diagnosed with|'ve been diagnosed with) (?:an? )?(?:\w+ )?(?:allergy|allergies|asthma|diabetes|adhd|autism|anxiety|depression|migraines?|insomnia|arthritis|cancer|covid|flu|cold|high blood pressure|back pain|a bad back|celiac)\b|\bi (?:broke|sprained|hurt|injured|twisted) my\b|\bi(?: had| have| 'm having|'m having) (?:a |an )?(?:surgery|operation)\b|\bmy (?:allerg|diet|doctor)\w*/.test(
      s,
    ),
  possession: (s) =>
    /\bi (?:just )?(?:drive|own|bought|got|purchased|'ve got|have got|have) (?:a|an|my|two|three) (?:new |used |old |brand new )?(?:car|bike|motorcycle|house|home|apartment|flat|condo|camera|laptop|computer|macbook|iphone|phone|piano|guitar|boat|truck|tesla|honda|toyota|bmw|ps5|playstation|xbox|switch|drone|tablet|ipad|watch|\w+ (?:civic|corolla|model \w))\b|\bi drive a\b|\bi own (?:a|an|two)\b/.test(
      s,
    ),
  birthday: (s) => /\b(?:birthday|anniversary)\b/.test(s) && (EN_DATE.test(s) || /\b(?:birthday|anniversary) is\b/.test(s)),
  plan: (s) =>
    EN_SPEAKER.test(s) &&
    (new RegExp(`\\b${EN_EVENT}\\b`).test(s) ||
      EN_DATE.test(s) ||
      /\b(?:plan(?:ning)? to|intend to|decided to|signed up for|booked|going to (?:visit|travel|fly|move)|i'm flying|i fly|i'm going to [A-Z]|leaving for|heading to|i'm visiting|moving to)\b/.test(
        s,
      )),
}

/** The small talk and stances that name no fact, whatever rule they brush against. */
const EN_STANCE =
  /^(?:i (?:think|guess|mean|agree|see|know|don't know|'m not sure|am not sure|hope|wonder|feel like|suppose|bet)\b|i'm (?:just )?(?:kidding|joking)\b|i(?:'m| am) (?:so |very |really )?(?:tired|bored|hungry|sleepy|happy|sad|glad|sorry|fine|good|ok|okay)(?: (?:today|now|right now|tonight))?\b[\s.!]*$)/
const ZH_STANCE = /^我(?:觉得|认为|感觉|猜|想问|知道|不知道|明白|懂|同意|也是|也觉得|是说|就是说|(?:去|靠|晕)(?=[，,！!。\s]|$))/

const EN_REQUEST_WRAPPER =
  /^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:remember|don't forget|do not forget|keep in mind|note)(?:\s+that)?[,:]?\s+/i

const EN_MODALS = new Set(['can', 'could', 'will', 'would', 'should', 'must', 'might', 'may', 'shall', 'gotta', 'gonna', 'wanna'])
const EN_PAST = new Set([
  'was',
  'were',
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

/** Verbs whose past is their base form. */
const EN_SAME_IN_PAST = new Set(['quit', 'put', 'cut', 'hit', 'set', 'let', 'hurt', 'shut', 'spread', 'read', 'cost', 'split', 'upset'])

const EN_SUBJECT_VERB = new RegExp(`\\bI((?:\\s+(?:${[...EN_ADVERBS].join('|')}))*)\\s+([a-z]+)\\b`, 'gi')

/** Third person singular present of a base-form verb: like → likes, go → goes, study → studies, have → has. */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase()
  if (lower === 'have') return 'has'
  if (lower === 'be' || lower === 'am') return 'is'
  if (lower === 'do') return 'does'
  if (lower === 'go') return 'goes'
  // feed, need, bleed, speed are present; agreed, moved are past
  const past = /ed$/.test(lower) && !(/eed$/.test(lower) && lower.length <= 5)
  if (EN_MODALS.has(lower) || EN_PAST.has(lower) || past) return verb
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
    [/\bI (?:haven't|have not)\b/gi, `${name} hasn't`],
    [/\bI (?=(?:didn't|did not|can't|cannot|couldn't|won't|wouldn't|shouldn't|wasn't|hadn't|ain't)\b)/gi, `${name} `],
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
  // quit, put, read…: past unless the statement tells a habit ("I quit my job in March", "I read every night")
  const habit = /\b(?:every|usually|often|always|sometimes|daily|weekly|each|most|never)\b/i.test(s)
  s = s.replace(EN_SUBJECT_VERB, (whole, adverbs: string, verb: string) => {
    if (EN_ADVERBS.has(verb.toLowerCase())) return whole
    const said = EN_SAME_IN_PAST.has(verb.toLowerCase()) && !habit ? verb : thirdPerson(verb)
    return [name, ...adverbs.trim().split(/\s+/).filter(Boolean), said].join(' ')
  })
  s = s.replace(/\bI\b/gi, name)
  s = stripTrailingEmoji(s.replace(/[\s,.;:!?~…]+$/, '').replace(/(?:[\s,]+(?:lol|lmao|haha\w*|hehe\w*|xd|omg|:\)|:D))+$/i, ''))
  if (!s) return ''
  if (!s.includes(name)) s = `${name} mentioned that ${s.charAt(0).toLowerCase()}${s.slice(1)}`
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`
}

// ─────────────── Chinese: any statement about the speaker's life ───────────────

/** Interjections, reactions and fillers a clause may open with ("哈哈我昨天…", "说实话我…"). */
const ZH_LEAD =
  /^(?:哈+|嘿+|嘻+|呵+|嗯+|恩+|哇塞?|哦+|噢+|喔+|诶|欸|唉|啊+|呀|天哪|天啊|我的天[哪啊呀]?|我的妈[呀啊]?|我(?:去|靠|晕)(?=[，,！!\s])|说实话|老实说|说真的|其实|对了|话说|真巧|是啊|是呀|对啊|对呀|没错|确实|好吧|呜+|害|嗐|好巧)+[，,！!～~\s]*/

/** A clause that sets the time or the circumstances of the next ("离开老家这么多年，我…"). */
const ZH_CIRCUMSTANCE = /(?:时|时候|以后|之后|以前|之前|那年|那会儿?|多年|年来|这么久|期间|后来)$/

/** A character before 我 that makes it an object ("给我看", "和我", "对我"), not the subject. */
const ZH_OBJECT_MARKER = /[给跟和同与让叫对帮陪带送替为把被问教诉像比找请逗吓说]$/

const ZH_TIME =
  '(?:上上?个?周末|这个?周末|周末|上个?(?:周|星期|礼拜)[一二三四五六日天]?|这个?(?:周|星期|礼拜)|昨天|昨晚|昨儿|前天|前几天|前阵子|前段时间|这几天|这两天|这段时间|这阵子|这几个月|这半年|这一年|这些年|最近|近来|刚刚|刚才|刚|今天|今早|今晚|今年|去年|前年|上个月|这个月|上半年|下半年|小时候|以前|之前|当年|那时候|每天|每周|每个周末|每年|平时|中秋|国庆|过年|春节|暑假|寒假|五一|元旦|明天|后天|下个?(?:周|星期|礼拜)[一二三四五六日天]?|下个月|明年|早上|晚上|[上下中]午|[\\d一二三四五六七八九十两几]+(?:年|个月|天|周|个星期)(?:前|以前|之前))'
const ZH_ADVERB = '(?:一直|终于|已经|正在|也|还|又|都|才|总算|居然|竟然|第一次|一个人|自己|偷偷|经常|常常|天天|开始|特意|专门)'
const ZH_ACTION =
  '(?:在|从|跟|和|带|陪|去|回|把|给|准备|打算|计划|要|想|学|参加|考|搬|换|找|养|买|卖|做|办|报|见|约|聚|拿|看|吃|玩|逛|爬|骑|跑|写|画|读|练|装修|认识|遇到|收到|通过|完成|辞|入职|毕业|剪|烤|种|生|结婚|领|接|送|忙|加班|出差|旅|备|迷上|爱上|喜欢|参观|体验|尝试|试|拍|听|做了)'
/** A clause whose subject, the speaker, is left out: a time or an adverb, then what they did ("上周末带孩子去了趟海洋馆"). */
const ZH_UNSAID_SUBJECT = new RegExp(
  `^(?:${runOf(`${ZH_TIME}|${ZH_ADVERB}`, 'when')}${ZH_ACTION}|(?:去|带|跟|陪|参加|报|买|看|学|考|搬|换|找|养|拿)[^，,。！？]{0,5}?[了过完])`,
)

const ZH_PAST_TIME = /昨天|昨晚|前天|前几天|前阵子|上周|上个?星期|上个?礼拜|上个月|去年|前年|小时候|以前|那年|当年/

/** A clause with the speaker as its subject, maybe after a time or an adverb ("去年我一个人…"). */
function zhOwnSubject(clause: string): boolean {
  const m = /^([^，,]{0,8}?)(?:我|咱们|咱家)/.exec(clause)
  return !!m && !/[你他她它]/.test(m[1]) && !ZH_OBJECT_MARKER.test(m[1])
}

/** What a clause says to or about the other person, about the chat, or about the moment (eating, on the way, tired). */
const ZH_TO_LISTENER =
  /我(?:真的?|好|很|太|超|特别|也|都|一直|真心|是|会|就|能)*(?:为你|替你|羡慕|佩服|相信你|支持你|懂你|理解你|心疼你|想你|爱你|喜欢你|谢谢|感谢|祝你|希望你|等你|陪你|同意|赞同|服了|跟你说|告诉你|问你|会的|会加油)/
const ZH_MOMENT =
  /(?:吃饭|吃完饭|吃[早午晚]饭|刚下班|下班了|到家|回家了|起床|睡觉|睡了|去睡|洗澡|在路上|马上|一会儿|待会|等下|等会|先去|先走|回头聊|看电视|刷手机|打游戏|笑死|饿死|困死|上厕所|出门了|醒了|看到你的消息|听首歌|想听|有(?:一|个|一个)问题|问过了|说过了|不太懂|没看懂|没听懂|刚吃完|刚吃了|刚到|刚起|刚醒|随便问|随便说|(?:看看|试试|问问|想想|聊聊)$)/
const ZH_MOOD_ONLY =
  /^(?:今天|现在|真的|也|有点|有些|好|很|太|特别|超|非常|真)*(?:累|困|饿|无聊|开心|高兴|难过|伤心|烦|郁闷|心情(?:特别|很|超|非常|有点|不太|真)?(?:好|不好|差|不错|糟)|不舒服|激动|感动|紧张|无语)(?:了|啊|呀|哦|死了|坏了)*$/

/** The characters that say something, once pronouns, particles, auxiliaries and intensifiers are gone. */
function zhContent(clause: string): number {
  return clause.replace(
    /我们家|我家|咱家|我们|咱们|我|也|都|还|就|会|想|要|的|了|吗|呢|啊|呀|哦|喔|吧|啦|嘛|是|这么|那么|这样|那样|这个|那个|很|好|真|太|一下|一起|谢谢你?|哈+|[\s\p{P}\p{S}]/gu,
    '',
  ).length
}

/**
 * Any other statement the speaker makes about their own life: `head` (the clause that opens it) has
 * the speaker as its subject, asks nothing, takes no stance, says nothing to the listener or about
 * the moment, and says at least two characters' worth.
 */
function zhLife(head: string): boolean {
  if (isZhQuestion(head) || ZH_TO_LISTENER.test(head) || ZH_MOMENT.test(head)) return false
  const predicate = head.replace(/^[^，,]{0,8}?(?:我们家|我家|咱家|我们|咱们|我)/, '')
  if (ZH_STANCE.test(`我${predicate}`) || ZH_LIFE_STANCE.test(predicate) || ZH_MOOD_ONLY.test(predicate) || ZH_FAREWELL.test(predicate))
    return false
  // a suggestion to the listener ("我们下次一起去吧"), or a clause about them that tells no past event of the speaker's
  if (/吧[！!。~～\s]*$/.test(predicate) && /^[^，,]{0,8}?(?:我们|咱们)/.test(head)) return false
  if (/[你您]/.test(head) && !(ZH_PAST_TIME.test(head) && /[了过]/.test(head))) return false
  // a liking for what is in front of them: "我太喜欢这张照片了"
  if (/^[^，,]{0,4}?(?:喜欢|爱|爱死|羡慕|佩服)了?这/.test(predicate)) return false
  // "我的生日" names something and says nothing of it
  if (/^的/.test(predicate) && !ZH_PREDICATE.test(predicate)) return false
  return zhContent(head) >= 3
}

/** Remembering, knowing, hoping: what the speaker thinks, not what they did ("我不记得了", "我也不清楚"). */
const ZH_LIFE_STANCE =
  /^(?:也|都|还|就|早|真的?|一直|总|总是|始终|其实|要是|如果|假如)*(?:不|没)?(?:太|很)?(?:记得|清楚|确定|知道|想知道|记不清|忘了|懂|明白|理解|以为|希望|祝|相信|是说|同意|有同感|同感|觉得|认为|感觉)|^(?:要是|如果|假如)/
/** Parting words: "明天见", "那我们明天再聊". */
const ZH_FAREWELL = /(?:见|再聊|再说|聊|拜拜|回见)[啦了哦呀吧～~！!。]*$/
/** Something said of what is named: a verb, a copula, an adverb or an aspect marker. */
const ZH_PREDICATE = /是|有|在|了|过|着|叫|很|太|真|特别|非常|会|要|去|来|说|让|把|被|给|从|已经|刚|都|也|又|还|不|没|[岁年月天]/

// ─────────────── English: any statement about the speaker's life ───────────────

/** Words at the head of a clause that say nothing yet: interjections, reactions, thanks, fillers. */
const EN_LEAD =
  /^(?:(?:yeah|yes|yep|yup|ya|yea|yah|oh|ohh|ooh|wow|whoa|woah|omg|gosh|oh my (?:god|gosh|goodness)|ha(?:ha)+h?|hehe\w*|lol|lmao|aw+|hey|hi|hello|well|so|and|but|also|anyway|anyways|actually|honestly|totally|definitely|absolutely|sure|right|true|ok|okay|alright|hm+|um+|uh|ah+|man|dude|girl|no way|same(?: here)?|me too|ha|hah|nice|cool|great|awesome|amazing|congrats|congratulations|thanks(?: so much| a lot)?|thank you(?: so much)?|ugh|yikes|btw|by the way|oh no|funny enough|guess what|good question|to be honest|tbh|fun fact|haha yes)\b[\s,!.…~-]*)+(?=(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|me and)\b)/i

/** A clause that sets the time or the circumstances of what follows ("Last weekend, I…", "When I was a kid, my dad…"). */
const EN_ADVERBIAL =
  /^(?:when|whenever|after|before|since|while|as|once|if|back|last|this|next|yesterday|today|tonight|earlier|later|recently|lately|these days|nowadays|growing up|on|in|at|during|over|for|from|every|each|the other day|a few|a couple|one|two|three|four|five|six|seven|eight|nine|ten|\d+|years|months|weeks|days|ever since|a while|right after|honestly|to be honest|funny enough|believe it or not)\b/i

/** Past forms and present participles a chat line may start with, the speaker left out ("Went to…", "Been painting…"). */
const EN_PARTICIPLES =
  'planning|thinking|hoping|trying|working|heading|getting|starting|learning|reading|training|saving|looking|taking|writing|painting|studying|preparing|helping|moving|visiting|volunteering|researching|considering|spending|building|making|teaching|practicing|practising|cooking|baking|running|playing|traveling|travelling|organizing|organising|decorating|renovating|applying|doing'
const EN_UNSAID_SUBJECT = new RegExp(
  `^((?:(?:just|finally|also|recently|already|actually|literally|totally|still|currently|lately|really|even|then|only|officially)\\s+)*)(been|${EN_PARTICIPLES}|[a-z]+)\\b`,
  'i',
)
const EN_GERUND_SUBJECT =
  /^\s+(?:(?:really|always|truly|just|honestly|totally|definitely|actually|usually|often|never)\s+)*[a-z]+s\b|\b(?:is|was|are|were|has|have|can|will|makes?|helps?|gives?|keeps?|brings?|opens?|means?|takes?|feels?|gets?|teaches?|changes?)\b/i
const EN_NOT_PAST = new Set([
  'need',
  'feed',
  'speed',
  'seed',
  'indeed',
  'bed',
  'red',
  'shed',
  'wed',
  'bred',
  'led',
  'ted',
  'ned',
  'fred',
  'bled',
])

/** The subject to add when the speaker was left out: "Went to…" → "I went to…", "Been painting…" → "I've been painting…". */
function unsaidSubject(clause: string): string | undefined {
  const m = EN_UNSAID_SUBJECT.exec(clause)
  if (!m) return undefined
  const word = m[2].toLowerCase()
  if (word === 'been') return "I've"
  if (new RegExp(`^(?:${EN_PARTICIPLES})$`).test(word)) {
    // "Traveling really opens your mind", "Reading helps me relax": the participle is the subject
    const after = clause.slice(m[0].length).split(',')[0]
    return EN_GERUND_SUBJECT.test(after) ? undefined : "I'm"
  }
  const past = EN_PAST.has(word) || (/^[a-z]{3,}ed$/.test(word) && !/eed$/.test(word) && !EN_NOT_PAST.has(word))
  return past && !['said', 'thought', 'used', 'meant', 'felt', 'knew'].includes(word) ? 'I' : undefined
}

/** The speaker as the subject of a clause (I, we, me and…, my sister…), or what is theirs named ("that's my old bike"). */
const EN_OWN_SUBJECT =
  /\b(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd)\b|^(?:me and|my|our)\b|\b(?:is|was|'s|are|were|been) (?:\w+ ){0,2}(?:my|our)\b/

/**
 * What a line says to or about the other person, about the conversation or about the moment rather
 * than about the speaker's life: feelings and wishes for the listener ("I'm so happy for you", "I
 * hope you have fun", "I can't wait to see it"), moves of the chat ("I'll check it out", "I have a
 * question"), and the moment ("I'm heading to bed", "I'm eating lunch right now", "I'm so tired").
 */
const EN_CHAT_MOVE = new RegExp(
  [
    "\\bi(?:'m| am)? (?:\\w+ ){0,2}(?:proud of (?:you|u)|happy for|glad (?:you|that you|to hear|for you|it)|sorry (?:you|for your|to hear|about your|that you|for you)|excited for (?:you|u)|rooting for|here for you|thinking of you|praying for|jealous|so impressed|really impressed)",
    '\\bi (?:\\w+ ){0,2}(?:love|like|admire|appreciate|adore|respect|envy|miss|enjoy(?:ed)?) (?:your|you|this|these|how you|that you|the way you|it when you|how much you|hearing|seeing your|talking to you|chatting)',
    '\\bi (?:\\w+ ){0,2}(?:hope|wish|bet|believe in|trust) (?:you|your|it|that|so|everything|things|all|we can|we get)',
    "\\bi (?:can(?:'t|not)?|could) (?:\\w+ )?(?:imagine|tell|relate|understand|picture|see (?:why|how|that|it|what|where))\\b",
    '\\bi (?:\\w+ )?(?:hear|feel|get|understand|agree with) (?:you|ya|that|it|what you|the same)',
    "\\b(?:can't|cannot|can not) wait (?:to (?:see|hear|try|read|meet)|for you)",
    "\\b(?:would|'d) love to (?:see|hear|try|meet|read|join) (?:it|that|them|those|more|how|what|your|you|pictures|photos|pics|the pictures|the photos)",
    "^i(?:'ll| will) (?:\\w+ )?(?:check (?:it|that|them|this) out|keep (?:that|it|this|you) in mind|let you know|try (?:it|that|this)|think about it|do that|do it|tell you|send (?:you|it|them)|text you|call you|see you|talk to you|be there|remember that)",
    "^i (?:have|got) (?:a|one more|another) question|^i (?:have|had) no idea|^i (?:didn't|don't|did not|do not) (?:get|understand|follow) (?:that|it|you|what)|^i (?:already )?asked (?:that|this|you)|^i was (?:just )?wondering|^i (?:want|wanna|would like|'d like) to (?:hear|listen to) (?:a|some|the|another) (?:song|music|joke|story)",
    '\\b(?:heading|going|off) to (?:bed|sleep)\\b|\\b(?:heading|going|off) (?:out|home|to work)(?: now| soon)?$|\\bon (?:my|our) way\\b|\\bbe right back\\b|\\bbrb\\b|\\b(?:gotta|have to|need to|got to) (?:go|run|sleep)\\b',
    '\\b(?:eating|having|grabbing|making|cooking) (?:lunch|dinner|breakfast|a snack|some food|coffee)\\b|\\bjust got (?:home|back home|up|off work)\\b|\\blaughing so hard|\\bwatching (?:a movie|tv|a show|netflix)|\\b(?:lying in bed|chilling|getting ready)\\b',
    "^i(?:'m| am) (?:so |really |very |super |pretty |a bit |kinda |just |a little )*(?:tired|bored|hungry|sleepy|happy|sad|glad|fine|good|ok|okay|great|excited|exhausted|stressed|relieved|stuffed|busy|well|thrilled|doing (?:good|great|well|fine|okay|ok|alright))(?: (?:today|now|right now|tonight|too|as well|lol|haha|thanks|thank you))*$",
    "^i(?:'m| am) (?:doing )?(?:good|great|well|fine|okay|ok|alright|awesome|not bad)\\b",
    '\\bmade my (?:day|week|night)\\b|^(?:my|oh my) (?:god|gosh|goodness|bad|pleasure)\\b|\\bmy heart goes out|^my thoughts exactly',
    // a feeling, a wish or words for the listener: "how proud I am of you", "I love how supportive your family is"
    "\\b(?:proud|happy|glad|sorry|love|admire|appreciate|adore|wish|miss|jealous|impressed|awe|excited|rooting|thinking|praying|curious)(?: [\\w']+){0,3} (?:you|your|u|ya)\\b|\\bhere (?:for|if) you\\b|\\bcan (?:\\w+ )?see you\\b|\\b(?:wanted|meant|meaning) to (?:ask|tell) you\\b",
    "\\bi (?:didn't|did not|never) (?:know|realize|realise|think|guess) (?:you|that you|your)|\\bnever thought (?:of|about) it\\b|\\bi(?:'ve| have) heard (?:great|good|amazing|so much|a lot|wonderful)",
    "^we (?:should|could|gotta|must|oughta|all)\\b|^if i (?:were|was) you\\b|\\bcan(?:'t|not) believe (?:it|that|how|you|what|this)\\b",
    '\\bwish i (?:could|had|was|were) (?:have )?(?:been|go|come|see|join|there)',
    "\\bi (?:\\w+ )?(?:need|have|ought|gotta|got|should|must) to (?:try|check|do|see|read|watch|visit|make) (?:that|it|this|them|those)\\b|\\bi(?:'ll| will) (?:\\w+ ){0,3}(?:check|look) (?:\\w+ ){0,2}(?:out|up)\\b",
    '\\b(?:happy|glad) to help\\b|\\bexcited to (?:hear|see|read|try) (?:about )?(?:it|that|more|your|all)|\\blooking forward to (?:it|that|this|seeing|hearing|meeting|catching up)\\b',
  ].join('|'),
)

/** A stance the speaker opens with: what follows is theirs only when it has a subject of its own ("I think I'll apply…"). */
const EN_STANCE_LEAD =
  /^(?:i (?:really |honestly |just |do |totally |kinda |still )?(?:think|guess|mean|agree|see|know|don't know|hope|wonder|feel like|suppose|bet|believe|reckon|figure|gotta say|have to say|must say|(?:just )?wanted to say|(?:always |often )?say|remember(?: when| the (?:day|time|first time)(?: when| that)?| how)?)|i'm (?:not )?(?:sure|pretty sure|certain|positive)|i(?: am|'m) (?:just )?(?:kidding|joking))\b(?: that)?[,\s]*/

/** Words that carry nothing: pronouns, auxiliaries, articles, prepositions, intensifiers, interjections. */
const EN_EMPTY_WORDS = new Set(
  (
    'i me my mine myself we us our you your yours it its that this these those they them their there here he she him her his ' +
    "am is are was were be been being 's 'm 're 've 'll 'd do does did will would can could should shall may might must gonna wanna gotta " +
    'a an the some any all so such very really totally just also too as well still even much lot lots bit kinda pretty quite super ' +
    'to of in on at for with about from by up out into over and but or because not no yes yeah oh wow haha lol omg thanks thank ' +
    'now right today tonight thing things stuff one way same more most ever again sure definitely absolutely honestly actually'
  ).split(' '),
)

function enContentWords(text: string): number {
  return text
    .replace(/\b(?:i|we|you|it|that|they|he|she|there|who|what)'(?:m|s|re|ve|ll|d)\b|\b\w+n't\b/g, ' ')
    .split(/[^a-z0-9']+/)
    .filter((word) => word && !EN_EMPTY_WORDS.has(word)).length
}

/** A question, also one that starts like "when I was a kid, …" only when it asks. */
function isEnQuestion(lower: string): boolean {
  if (!isQuestion(lower, 'en')) return false
  return /[?？]\s*$/.test(lower) || !/^(?:when|where|how|what|while|since|after|before|once|if|as) (?:i|we|my|our|me)\b/.test(lower)
}

/** A clause that only announces what follows ("Let me tell you, …", "I'm not gonna lie, …"). */
const EN_FILLER =
  /^(?:let me tell you|you know what|guess what|(?:i'm |i am )?not gonna lie|to be honest|tbh|honestly|i have to say|i gotta say|i must say|fun fact|i mean|you know|for real|seriously)[\s,!.…:]*$/

/** Someone or something of the speaker's named without "my", as friends do ("The kids are doing great, …"). */
const EN_THEIRS =
  /^(?:the (?:kids|baby|boys|girls|twins|little ones?|family|pup|puppy|dog|cat|kitten|hubby)|hubby|mom|dad|grandma|grandpa)\b(?! (?:must|will|would|'ll|might|should|could)\b)(?!.*\b(?:you|your)\b)/

/**
 * The part of an English statement that says something about the speaker: interjections and reactions
 * before it are dropped ("Wow, I went there last year too" → "I went there last year too"), a clause
 * that sets its time is kept ("Last weekend, I went camping").
 */
function enCore(statement: string): string {
  const segments = statement.split(/(?<=,)\s+|\s+[-–—]+\s+/)
  const first = segments.findIndex((segment) => {
    const lower = normalizeEn(segment)
    if (EN_FILLER.test(lower)) return false
    return EN_SPEAKER.test(lower) || EN_THEIRS.test(lower) || unsaidSubject(lower.replace(/^[\s,!.…~-]+/, '')) !== undefined
  })
  let start = Math.max(0, first)
  while (start > 0 && EN_ADVERBIAL.test(segments[start - 1].trim())) start--
  return segments.slice(start).join(' ').trim().replace(EN_LEAD, '')
}

/**
 * Any other statement the speaker makes about their own life: a clause with the speaker as its
 * subject (or left out: "Went to a pottery class on Saturday") that asks nothing, is no stance, no
 * reaction to the listener and no remark about the moment, and says at least two things. Returns the
 * statement to rewrite (with "I" added where the speaker was left out), or undefined.
 */
function enLife(core: string): string | undefined {
  const lower = normalizeEn(core)
  if (EN_CHAT_MOVE.test(lower) || !(EN_OWN_SUBJECT.test(lower) || EN_THEIRS.test(lower))) return undefined
  return enContentWords(lower) >= 2 ? core : undefined
}

/** The statement with the speaker put back where a chat line leaves them out: "Went to…" → "I went to…". */
function withSubject(core: string): string {
  const lower = normalizeEn(core)
  if (/^(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd|me and|my|our)\b/.test(lower)) return core
  const subject = unsaidSubject(lower)
  if (!subject) return core
  const adverbs = subject === 'I' ? '' : EN_UNSAID_SUBJECT.exec(core)![1]
  const rest = core.slice(adverbs.length)
  return `${subject} ${adverbs.toLowerCase()}${rest.charAt(0).toLowerCase()}${rest.slice(1)}`
}

// ───────────────────────────── shared ─────────────────────────────

/** Sentences of one message: split at sentence punctuation and line breaks, media placeholders removed. */
function sentencesOf(content: string): string[] {
  return content
    .replace(/\[(?:图片|表情|语音|视频|文件|image|sticker|voice|video|file)\]|<[^<>]+\/>/gi, ' ')
    .split(/(?<=[。！？!?；;…])|\n+|(?<=[a-z0-9)"'])\.(?=\s|$)/i)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

function zhCategories(statement: string): FactCategory[] {
  const core = statement.replace(/[\s。！!；;…~～.,，]+$/, '')
  if (!ZH_SPEAKER.test(core) || isZhQuestion(core) || ZH_STANCE.test(core)) return []
  return categoriesBy(ZH_RULES, core)
}

function enCategories(statement: string): FactCategory[] {
  const lower = normalizeEn(statement)
  if (!EN_SPEAKER.test(lower) || isQuestion(lower, 'en') || EN_STANCE.test(lower.trim())) return []
  return categoriesBy(EN_RULES, lower)
}

/**
 * The statements of one Chinese sentence. A clause opens a new statement when it says something of
 * its own about the speaker: with 我 as its subject, or with the subject left out after a statement
 * about the speaker himself ("我叫小明，是一名大学老师" → "我叫小明" + "我是一名大学老师"). Other clauses
 * belong to the statement before them ("我喜欢吃火锅，尤其是麻辣的"); leading clauses that say nothing
 * are dropped ("哈哈，对了，我下周…").
 */
function zhStatements(sentence: string): Statement[] {
  const statements: { text: string; head: string; aboutSpeaker: boolean }[] = []
  // clauses before the first statement that set its time or name something of the speaker's
  let lead = ''
  let dropped = ''
  for (const raw of sentence.split(/(?<=[，,、：:])/)) {
    const clause = raw.trim()
    if (!clause) continue
    const bare = clause.replace(ZH_REQUEST_WRAPPER, '').replace(ZH_CONJUNCTION, '').replace(ZH_LEAD, '')
    if (!bare) continue
    const last = statements.at(-1)
    // "…，是我生病时画的" goes on with what came before, and "家里那只布偶猫已经三岁了，是我的宝贝" is
    // about what the clause before names
    if (/^(?:就)?是我/.test(bare) && (last || lead || dropped)) {
      if (last) last.text += clause
      else statements.push({ text: (lead || dropped) + bare, head: (lead || dropped) + bare, aboutSpeaker: false })
      lead = ''
      continue
    }
    if (zhOwnSubject(bare)) {
      // "我家狗狗…" and "我妈…" are about someone else, and "我养了一只柯基" or "我有一个妹妹" bring in
      // someone: what follows without a subject is about them ("…，叫豆豆", "…，在读高中")
      const aboutSpeaker = !new RegExp(`^[^，,]{0,8}?我(?:的|家|们家)?(?:${ZH_KIN}|${ZH_PET})`).test(bare) && !ZH_BRINGS_IN.test(bare)
      statements.push({ text: lead + bare, head: bare, aboutSpeaker })
      lead = ''
    } else if (last?.aboutSpeaker && ZH_PREDICATE_START.test(bare) && zhCategories(`我${bare}`).length) {
      statements.push({ text: `我${bare}`, head: `我${bare}`, aboutSpeaker: true })
    } else if (last) last.text += clause
    else if (
      (ZH_PREDICATE_START.test(bare) && zhCategories(`我${bare}`).length) ||
      (ZH_UNSAID_SUBJECT.test(bare) && !/[你您]/.test(bare) && zhLife(`我${bare}`))
    ) {
      // the speaker left out from the start: "最近刚领养了一只橘猫", "上周末带孩子去了趟海洋馆"
      statements.push({ text: `${lead}我${bare}`, head: `我${bare}`, aboutSpeaker: true })
      lead = ''
    } else if (/我/.test(bare) || ZH_CIRCUMSTANCE.test(bare.replace(/[，,、：:]$/, ''))) lead += bare
    else dropped = bare
  }
  return statements.map(({ text, head }) => {
    const categories = zhCategories(text)
    if (categories.length) return { text, categories }
    return { text, categories: ZH_SPEAKER.test(text) && zhLife(head) ? ['life'] : [] }
  })
}

/**
 * The statements of one English sentence: cut at ";" and before "and I", "but I", "so my"… when what
 * comes before has a subject of its own ("I live in Seattle and I work at Amazon"), not inside one
 * ("My girlfriend and I have been together for five years").
 */
function enStatements(sentence: string): Statement[] {
  const parts: string[] = []
  for (const piece of sentence.split(/;\s*/)) {
    const cut = /(?:,\s*|\s+)(?:and|but|so|plus)\s+(?=(?:i|i'm|i've|i'll|my|we|we're|our)\b)/gi
    let from = 0
    for (const m of piece.matchAll(cut)) {
      const before = piece.slice(from, m.index)
      if (!/\b(?:i|i'm|i've|i'll|we|we're|my \w+ (?:is|are|was|has|lives|works))\b/i.test(before)) continue
      parts.push(before)
      from = m.index + m[0].length
    }
    parts.push(piece.slice(from))
  }
  return parts
    .map((part) => part.trim().replace(/^(?:and|but|so|also|oh|well|btw|by the way|anyway)[,\s]+/i, ''))
    .filter(Boolean)
    .map(enStatement)
}

const normalizeEn = (text: string) => text.toLowerCase().replace(/[\u2018\u2019]/g, "'")

/** One English statement: its core, and the kinds of fact it states (none for a question, a stance or a chat move). */
function enStatement(part: string): Statement {
  let core = withSubject(enCore(part))
  let lower = normalizeEn(core)
  const none = { text: core, categories: [] }
  if (isEnQuestion(lower)) return none
  const stance = EN_STANCE_LEAD.exec(lower)
  if (stance) {
    // "I think I'll apply to grad school": the stance goes, the statement stays
    const rest = core.slice(stance[0].length)
    if (!/^(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|my|our)\b/i.test(rest)) return none
    core = rest
    lower = normalizeEn(rest)
  }
  if (EN_CHAT_MOVE.test(lower)) return none
  core = withSubject(core)
  const categories = enCategories(core)
  if (categories.length) return { text: core, categories }
  const life = enLife(core)
  return life ? { text: life, categories: ['life'] } : none
}

const ZH: LanguageRules = {
  unnamed: '用户',
  capitalised: false,
  asksToRemember: (sentence) => ZH_REQUEST.test(sentence.toLowerCase()),
  hasContentBeyondRequest: (text) =>
    text.replace(ZH_REQUEST_WRAPPER, '').replace(/[\s\p{P}\p{S}哦喔啊呀啦哈嘛了]|这个|那个|这些|那些|它/gu, '').length > 0,
  isRequestable: (statement) => {
    const core = statement.replace(ZH_REQUEST_WRAPPER, '')
    return ZH_SPEAKER.test(core) && !isZhQuestion(core)
  },
  statements: zhStatements,
  rewrite: rewriteZh,
}

const EN: LanguageRules = {
  unnamed: 'The user',
  capitalised: true,
  asksToRemember: (sentence) => EN_REQUEST.test(sentence.toLowerCase()),
  hasContentBeyondRequest: (text) =>
    text
      .replace(/[\u2018\u2019]/g, "'")
      .replace(EN_REQUEST_WRAPPER, '')
      .replace(/\b(?:this|that|it|ok|okay|please)\b|[^\p{L}\p{N}]/giu, '').length > 0,
  isRequestable: (statement) => {
    const core = statement.toLowerCase().replace(EN_REQUEST_WRAPPER, '')
    return EN_SPEAKER.test(core) && !isQuestion(core, 'en')
  },
  statements: enStatements,
  continues: continuesEn,
  rewrite: rewriteEn,
}

const LANGUAGES: Record<Language, LanguageRules> = { zh: ZH, en: EN }

interface FoundFact {
  name: string
  statement: string
  language: Language
  categories: FactCategory[]
  turn: number
}

/**
 * An English sentence that goes on about what the sentence before said, without naming it again:
 * "It was so powerful.", "It's special to me.", "They loved the jellyfish." It joins that fact.
 */
function continuesEn(sentence: string): boolean {
  const lower = normalizeEn(sentence.trim())
  return (
    /^(?:it|it's|that|that's|this|they|they're|he|she|he's|she's|the \w+ (?:was|were|is|are))\b/.test(lower) &&
    !/^(?:that|this)(?:'s| is| was)? (?:so |really |very |such |super |pretty )*(?:awesome|amazing|great|cool|nice|funny|hilarious|crazy|wild|sweet|cute|true|right|fair|sad|awful|terrible|the best|the worst)\b/.test(
      lower,
    ) &&
    !/\b(?:you|your)\b/.test(lower) &&
    !isEnQuestion(lower) &&
    !EN_CHAT_MOVE.test(lower) &&
    lower.split(/\s+/).length <= 20
  )
}

function findFacts(conversation: Turn[]): FoundFact[] {
  const found: FoundFact[] = []
  conversation.forEach((turn, index) => {
    if (turn.role !== 'user') return
    // the fact the previous sentence of this turn stated, which a sentence like "It was so powerful." goes on with
    let previous: FoundFact | undefined
    for (const sentence of sentencesOf(turn.content ?? '')) {
      const language = detectLanguage(sentence, 'zh')
      const before = previous
      previous = undefined
      const rules = LANGUAGES[language]
      if (!rules.hasContentBeyondRequest(sentence)) continue
      const request = rules.asksToRemember(sentence)
      const statements = rules.statements(sentence)
      if (before && !request && !statements.some((statement) => statement.categories.length) && rules.continues?.(sentence)) {
        before.statement = `${before.statement.replace(/[\s.!…~]+$/, '')}; ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`
        previous = before
        continue
      }
      for (const statement of statements) {
        // what the user asks to be remembered is kept even when no rule knows its kind
        const categories: FactCategory[] = request
          ? rules.isRequestable(statement.text)
            ? ['request', ...statement.categories]
            : []
          : statement.categories
        if (!categories.length || !rules.hasContentBeyondRequest(statement.text)) continue
        previous = {
          name: turn.name?.trim() || '',
          statement: statement.text,
          language,
          categories: [...new Set(categories)],
          turn: index,
        }
        found.push(previous)
      }
    }
  })
  return found
}

export class RuleJudge implements MemoryJudge {
  readonly id = 'rules'

  async extract(conversation: Turn[], { now }: ExtractOptions): Promise<Extraction> {
    const facts: ExtractedFact[] = []
    const found = new Set<FactCategory>()
    for (const fact of findFacts(conversation)) {
      const rules = LANGUAGES[fact.language]
      const rewritten = rules.rewrite(fact.statement, fact.name || rules.unnamed)
      if (!rewritten) continue
      const resolved = resolveRelativeDates(rewritten, conversation[fact.turn].time ?? now, fact.language)
      // a date resolved at the head of a statement ("last month I…" → "in October 2026 …")
      const statement = rules.capitalised ? `${resolved.charAt(0).toUpperCase()}${resolved.slice(1)}` : resolved
      const same = facts.find((f) => f.statement === statement)
      if (same) {
        same.turns = [...new Set([...(same.turns ?? []), fact.turn])]
        continue
      }
      facts.push({ statement, turns: [fact.turn] })
      for (const category of fact.categories) found.add(category)
    }
    if (!facts.length) return { facts, reason: 'rules: no statement about the speaker of a kind worth keeping' }
    return { facts, reason: `rules: ${CATEGORY_ORDER.filter((c) => found.has(c)).join(', ')}` }
  }
}
