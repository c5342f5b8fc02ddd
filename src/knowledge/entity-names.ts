/**
 * Whether a name can stand for an entity: not a question word, a pronoun or a demonstrative, and not a
 * generic noun (a thing, a place, a kinship term, a food or an instrument the NLP tagger takes for a name).
 */

const ZH_QUESTION_WORDS = /哪|什么|啥|谁|怎么|怎样|如何|为何|多少|几时/u
const ZH_PRONOUNS = /我|你|您|咱|他们|她们|它们|^(?:他|她|它|这|那|某|大家|自己|别人|人家|有人|对方)/u
const EN_FUNCTION_WORDS = new Set(
  (
    'what where who whom whose which when why how whatever whoever i me my mine you your yours he him his she her hers it its ' +
    'we us our ours they them their theirs this that these those here there someone somebody something somewhere anyone anybody ' +
    'anything anywhere everyone everybody everything nobody nothing none a an the some any all each every one'
  ).split(' '),
)
/** Everyday nouns, some of which jieba's dictionary tags as names (吉他 ns, 巧克力 nr, 沙发 nz). */
const ZH_GENERIC = new Set(
  (
    '东西 事情 地方 时候 人 朋友 家 家里 老家 公司 学校 单位 城市 国家 外国 城镇 山区 平原 大街 江湖 湖泊 海洋 太阳 英雄 爱国 美丽 上市 ' +
    '王国 共和国 庆典 建国 开国 朝廷 南北 东南 西北 西南 东北 自治县 自治州 哥哥 姐姐 弟弟 妹妹 爸爸 妈妈 父亲 母亲 老公 老婆 ' +
    '儿子 女儿 丈夫 妻子 男朋友 女朋友 同学 同事 室友 老师 学生 老板 领导 阿姨 叔叔 宝宝 奶奶 爷爷 外婆 外公 今天 明天 昨天 周末 ' +
    '吉他 钢琴 贝斯 萨克斯 尤克里里 小提琴 巧克力 汉堡 芝士 沙拉 披萨 布丁 可乐 咖啡 拿铁 摩卡 威士忌 伏特加 白兰地 香槟 寿司 ' +
    '沙发 马拉松 高尔夫 滑雪 华尔兹 探戈 芭蕾 瑜伽 扑克 派对 卡拉 哈士奇 柯基 泰迪 金毛 布偶 上门 上楼 上街 上路 中毒 和平 ' +
    '医生 护士 律师 工程师 程序员 设计师 司机 厨师 警察 会计 销售 经理 作家 记者 演员 歌手 画家 军人 农民 公务员 同学们'
  ).split(' '),
)
const EN_GENERIC = new Set(
  (
    'mom mum dad mother father brother sister wife husband son daughter friend boss home work school office today tomorrow ' +
    'yesterday monday tuesday wednesday thursday friday saturday sunday weekend morning night lol omg ok okay thanks hi hello'
  ).split(' '),
)

export function isEntityName(name: string): boolean {
  const text = name.trim()
  if (/\p{Script=Han}/u.test(text)) {
    const han = text.replace(/[^\p{Script=Han}]/gu, '')
    return han.length >= 2 && !ZH_QUESTION_WORDS.test(text) && !ZH_PRONOUNS.test(text) && !ZH_GENERIC.has(text)
  }
  const words = text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .split(/\s+/u)
    .filter(Boolean)
  if (!words.length || text.replace(/[^\p{L}\p{N}]/gu, '').length < 2) return false
  if (EN_FUNCTION_WORDS.has(words[0])) return false
  return !(words.length === 1 && EN_GENERIC.has(words[0]))
}

/** A preference's value that names nothing: a question word, a pronoun or a demonstrative (吃什么, it, that). */
export function isVagueValue(value: string): boolean {
  const text = value.trim()
  if (/\p{Script=Han}/u.test(text)) return ZH_QUESTION_WORDS.test(text) || ZH_PRONOUNS.test(text)
  const first = text.toLowerCase().split(/\s+/u)[0] ?? ''
  return !first || (EN_FUNCTION_WORDS.has(first) && !/^(?:a|an|the|some|all)$/.test(first))
}
