import { isQuestion } from '../text/questions'
import type { FactCategory, LanguageRules, Rules, Statement } from './rules'
import { categoriesBy, stripTrailingEmoji } from './rules'

/**
 * The offline judge's rules for Chinese (rule-judge.ts): the kinds of fact a statement about the
 * speaker names, the clauses that open a statement of their own, any other statement of the
 * speaker's life, and the statement retold in the third person.
 */

/** A gap of a few characters inside one clause that does not switch to another person. */
const ZH_GAP = '[^，。！？,.!?；;你他她它]{0,6}?'
// longer words first: "爸妈" is one word, not "爸" then "妈"
const ZH_KIN =
  '(?:爸妈|家里人|妈妈|爸爸|老妈|老爸|母亲|父亲|妈|爸|老婆|老公|妻子|丈夫|媳妇|爱人|女朋友|男朋友|女友|男友|对象|未婚妻|未婚夫|儿子|女儿|孩子|宝宝|哥哥|姐姐|弟弟|妹妹|哥|姐|弟|妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表弟|表妹|堂哥|堂姐|同事|老板|领导|上司|室友|舍友|同学|朋友|好朋友|闺蜜|兄弟|邻居|家人|父母)'
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

/** The small talk and stances that name no fact, whatever rule they brush against ("我觉得…", "我也是"). */
const ZH_STANCE = /^我(?:觉得|认为|感觉|猜|想问|知道|不知道|明白|懂|同意|也是|也觉得|是说|就是说|(?:去|靠|晕)(?=[，,！!。\s]|$))/

/** Imperative only: "记住…" / "你要记得…", not "我记得…" (I remember) or "不记得" (forgot). */
const ZH_REQUEST = /(?:^|[，,：:\s]|你|请|要|帮我|一定)(?:记住|记得|记一下|记下来)(?![吗么了])|别忘|不要忘|帮我记/

/** Leading "remember / please remember / you should remember …" wrappers, with their punctuation. */
const ZH_REQUEST_WRAPPER =
  /^(?:(?:请|麻烦|拜托)?(?:你)?(?:一定)?(?:要)?(?:帮我)?(?:记住|记得|记一下|记下来|别忘了|别忘记|不要忘了|不要忘记)(?:哦|啊|呀|喔)?[，,：:\s]*)+/

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

function isZhQuestion(sentence: string): boolean {
  return isQuestion(sentence, 'zh')
}

function zhCategories(statement: string): FactCategory[] {
  const core = statement.replace(/[\s。！!；;…~～.,，]+$/, '')
  if (!ZH_SPEAKER.test(core) || isZhQuestion(core) || ZH_STANCE.test(core)) return []
  return categoriesBy(ZH_RULES, core)
}

// ─────────────── cutting a sentence into statements ───────────────

/**
 * One or more of `words`, each taken once and never split again: an atomic group (`(?=(x))\k<x>`), so
 * a run like 刚刚刚刚… is read in one pass, not in every way of cutting it (which takes forever).
 */
function runOf(words: string, name: string): string {
  return `(?:(?=(?<${name}>${words}))\\k<${name}>)+`
}

/** Verbs a statement may start with when the speaker is left out ("最近刚领养了一只橘猫"). */
const ZH_PREDICATE_START = new RegExp(
  `^(?:${runOf(`刚刚|最近|刚|才|已经|今年|现在|平时|一直|还|也|都|明天|后天|下周|下个月|明年|周末|${ZH_DATE}`, 'when')})?(?:养了|领养了|收养了|买了|入手了|在学|在自学|开始学|报了|住在|搬到|搬去|要去|打算|准备|计划|换了|辞职|升职|考上了|是|叫|在|有|对|不吃|不喝|喜欢|讨厌|爱吃|爱喝|学的是|做|当|来自|毕业)`,
)

/** A clause that brings in someone or something the next clause may be about. */
const ZH_BRINGS_IN = /(?:有|养了|养着|养|领养了|收养了|买了|认识了|交了|生了|捡了)(?:一|两|三|几|个|只|位|条|台|辆|匹)/

/** Conjunctions and fillers before the next clause of a statement ("但是不吃香菜"). */
const ZH_CONJUNCTION = /^(?:但是|但|不过|可是|而且|并且|然后|还有|另外|同时|所以|因此|也|还|就)+/

/** Interjections, reactions and fillers a clause may open with ("哈哈我昨天…", "说实话我…"). */
const ZH_LEAD =
  /^(?:哈+|嘿+|嘻+|呵+|嗯+|恩+|哇塞?|哦+|噢+|喔+|诶|欸|唉|啊+|呀|天哪|天啊|我的天[哪啊呀]?|我的妈[呀啊]?|我(?:去|靠|晕)(?=[，,！!\s])|说实话|老实说|说真的|其实|对了|话说|真巧|是啊|是呀|对啊|对呀|没错|确实|好吧|呜+|害|嗐|好巧)+[，,！!～~\s]*/

/** A clause that sets the time or the circumstances of the next ("离开老家这么多年，我…"). */
const ZH_CIRCUMSTANCE = /(?:时|时候|以后|之后|以前|之前|那年|那会儿?|多年|年来|这么久|期间|后来)$/

/** A character before 我 that makes it an object ("给我看", "和我", "对我"), not the subject. */
const ZH_OBJECT_MARKER = /[给跟和同与让叫对帮陪带送替为把被问教诉像比找请逗吓说]$/

/** A clause with the speaker as its subject, maybe after a time or an adverb ("去年我一个人…"). */
function zhOwnSubject(clause: string): boolean {
  const m = /^([^，,]{0,8}?)(?:我|咱们|咱家)/.exec(clause)
  return !!m && !/[你他她它]/.test(m[1]) && !ZH_OBJECT_MARKER.test(m[1])
}

// ─────────────── any statement about the speaker's life ───────────────

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

/** What a clause says to or about the other person, about the chat, or about the moment (eating, on the way, tired). */
const ZH_TO_LISTENER =
  /我(?:真的?|好|很|太|超|特别|也|都|一直|真心|是|会|就|能)*(?:为你|替你|羡慕|佩服|相信你|支持你|懂你|理解你|心疼你|想你|爱你|喜欢你|谢谢|感谢|祝你|希望你|等你|陪你|同意|赞同|服了|跟你说|告诉你|问你|会的|会加油)/
const ZH_MOMENT =
  /(?:吃饭|吃完饭|吃[早午晚]饭|刚下班|下班了|到家|回家了|起床|睡觉|睡了|去睡|洗澡|在路上|马上|一会儿|待会|等下|等会|先去|先走|回头聊|看电视|刷手机|打游戏|笑死|饿死|困死|上厕所|出门了|醒了|看到你的消息|听首歌|想听|有(?:一|个|一个)问题|问过了|说过了|不太懂|没看懂|没听懂|刚吃完|刚吃了|刚到|刚起|刚醒|随便问|随便说|(?:看看|试试|问问|想想|聊聊)$)/
const ZH_MOOD_ONLY =
  /^(?:今天|现在|真的|也|有点|有些|好|很|太|特别|超|非常|真)*(?:累|困|饿|无聊|开心|高兴|难过|伤心|烦|郁闷|心情(?:特别|很|超|非常|有点|不太|真)?(?:好|不好|差|不错|糟)|不舒服|激动|感动|紧张|无语)(?:了|啊|呀|哦|死了|坏了)*$/

/** Remembering, knowing, hoping: what the speaker thinks, not what they did ("我不记得了", "我也不清楚"). */
const ZH_LIFE_STANCE =
  /^(?:也|都|还|就|早|真的?|一直|总|总是|始终|其实|要是|如果|假如)*(?:不|没)?(?:太|很)?(?:记得|清楚|确定|知道|想知道|记不清|忘了|懂|明白|理解|以为|希望|祝|相信|是说|同意|有同感|同感|觉得|认为|感觉)|^(?:要是|如果|假如)/
/** Parting words: "明天见", "那我们明天再聊". */
const ZH_FAREWELL = /(?:见|再聊|再说|聊|拜拜|回见)[啦了哦呀吧～~！!。]*$/
/** Something said of what is named: a verb, a copula, an adverb or an aspect marker. */
const ZH_PREDICATE = /是|有|在|了|过|着|叫|很|太|真|特别|非常|会|要|去|来|说|让|把|被|给|从|已经|刚|都|也|又|还|不|没|[岁年月天]/

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

/**
 * The statements of one Chinese sentence. A clause opens a new statement when it says something of
 * its own about the speaker: with 我 as its subject, or with the subject left out after a statement
 * about the speaker himself ("我叫小明，是一名大学老师" → "我叫小明" + "我是一名大学老师"). Other clauses
 * belong to the statement before them ("我喜欢吃火锅，尤其是麻辣的"); leading clauses that say nothing
 * are dropped ("哈哈，对了，我下周…").
 */
/** The listener named outside quotes and greetings ("我养的鹦鹉会说你好" names nobody). */
function addressesListener(text: string): boolean {
  return /[你您]|咱们/.test(text.replace(ZH_QUOTE, '').replace(/[你您]好/g, ''))
}

function zhStatements(sentence: string): Statement[] {
  const statements: { text: string; head: string; aboutSpeaker: boolean }[] = []
  // clauses before the first statement that set its time or name something of the speaker's
  let lead = ''
  let dropped = ''
  // "我妈说：…" is one clause: what follows the colon is what was said
  for (const raw of sentence.split(/(?<=[，,、]|(?<![说道问讲])[：:])/)) {
    const clause = raw.trim()
    if (!clause) continue
    const bare = clause.replace(ZH_REQUEST_WRAPPER, '').replace(ZH_CONJUNCTION, '').replace(ZH_LEAD, '')
    if (!bare) continue
    const last = statements.at(-1)
    // a question to the listener tacked on ("我最近在学吉他，你呢？"): the statement stands without it
    if (last && isZhQuestion(bare) && (/[你您]/.test(bare) || /^(?:呢|吗|对吧|是吧|好吧|对不对)/.test(bare))) continue
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
    // what the speaker will do for the listener or tells them to do ("我明天带你去吃火锅", "你应该去试试"): said to someone
    if (addressesListener(text) && !/[了过]/.test(text)) return { text, categories: [] }
    const categories = zhCategories(text)
    if (categories.length) return { text, categories }
    return { text, categories: ZH_SPEAKER.test(text) && zhLife(head) ? ['life'] : [] }
  })
}

/** Quoted words ("我妈说："我为你骄傲""): someone else's voice, kept as said. */
const ZH_QUOTE = /(\u201c[^\u201d]*\u201d|「[^」]*」|"[^"]*")/g

function outsideQuotesZh(text: string, rewrite: (part: string) => string): string {
  return text
    .split(ZH_QUOTE)
    .map((part, i) => (i % 2 ? part : rewrite(part)))
    .join('')
}

function rewriteZh(sentence: string, name: string, addressee?: string): string {
  const said = sentence.replace(ZH_REQUEST_WRAPPER, '').replace(ZH_LEAD, '')
  if (addressesListener(said)) {
    // said to someone: "你" cannot be retold without knowing who, so the words are kept, named
    const words = stripTrailingEmoji(said.replace(/[\s，,。.！!？?；;：:~～…]+$/u, ''))
    return words ? `${name}${addressee ? `对${addressee}` : ''}说：${words}。` : ''
  }
  let s = outsideQuotesZh(said, (part) => {
    let out = part.replace(/(?:我们|咱们)家|咱家/g, `${name}家`)
    out = out.replace(/(?:咱们|我们)/g, `${name}他们`)
    out = out.replace(/我的/g, `${name}的`)
    // 我妈 → 小明的妈妈, 我女朋友的生日 → 小明女朋友的生日 (no doubled 的)
    out = out.replace(new RegExp(`我(${ZH_KIN})(的)?`, 'g'), (_m, kin: string, de?: string) =>
      de ? `${name}${ZH_KIN_FULL[kin] ?? kin}的` : `${name}的${ZH_KIN_FULL[kin] ?? kin}`,
    )
    return out.replace(/我/g, name)
  })
  s = s.replace(/(?<!哗)[\s，,。.！!？?；;：:~～…哦喔啊呀啦哈嘛]+$/u, '')
  s = stripTrailingEmoji(s)
  if (!s) return ''
  if (!s.includes(name)) s = `${name}${s}`
  return `${s}。`
}

function tellsInAnswerZh(sentence: string): boolean {
  const core = sentence.replace(ZH_LEAD, '').replace(/[\s。！!；;…~～.,，]+$/, '')
  if (!core || isZhQuestion(core) || ZH_TO_LISTENER.test(core) || ZH_MOMENT.test(core) || addressesListener(core)) return false
  return zhContent(core) >= 4
}

export const chinese: LanguageRules = {
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
  tellsInAnswer: tellsInAnswerZh,
  asksAboutListener: isZhQuestion,
  answered: (question, answer, name) => `${name}被问到“${question.trim()}”时说：${stripTrailingEmoji(answer.trim())}。`,
  rewrite: rewriteZh,
}
