import { Jieba } from '@node-rs/jieba'
import { dict } from '@node-rs/jieba/dict'
import nlp from 'compromise'
import type { EntityType } from './types'
import { isEntityName } from './entity-names'
import { cleanName } from './names'

/** A name found in a text by the NLP libraries, offline. */
export interface NamedEntity {
  name: string
  type: EntityType
}

/** jieba's part-of-speech tags for proper nouns (person, transliterated or foreign name, place, organisation, other). */
const PROPER_TAGS = new Set(['nr', 'nrfg', 'nrt', 'ns', 'nt', 'nz'])

/**
 * jieba's HMM finds names its dictionary lacks (张伟, 小红) but tags them `x`, like punctuation; and its
 * dictionary tags transliterated common nouns as names (吉他 ns, 巧克力 nr). A person is a word of two or
 * three Han characters opening with a common surname or a familiar prefix (老, 小, 阿).
 */
const SURNAMES = new Set(
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤小老阿',
)
const TITLES = /^(?:老师|医生|大夫|教授|师傅|经理|总|阿姨|叔叔|同学|先生|女士|小姐)$/u
const PLACE_SUFFIX = /.(?:市|省|县|区|镇|村|乡|州|岛|湖|山|江|河|湾|港|路|街|屯|寺|塔|广场|公园|景区|古镇)$/u
const ORG_SUFFIX = /.(?:公司|集团|银行|大学|学院|医院|中学|小学|研究所|研究院|科技|工作室|俱乐部|协会|事务所)$/u
/** The word before a place (在成都, 去西湖, 来自杭州) and after it (杭州人, 云南旅游). */
const BEFORE_PLACE = /^(?:在|去|到|住在|住|来自|从|回|回到|飞|飞往|往|搬到|搬去|定居|抵达|逛|游|离开|路过|经过)$/u
const AFTER_PLACE = /^(?:人|旅游|旅行|出差|玩|度假|的天气|读书|读大学|上学|见面|园林)$/u
/** 在腾讯上班, 入职字节: the word after (or before) an employer. */
const AFTER_EMPLOYER = /^(?:工作|上班|实习|任职|做|当|读书|读研|读研究生|读博|上学)$/u
const BEFORE_EMPLOYER = /^(?:入职|加入|加入了|毕业于|就职于|任职于)$/u
/** Verbs whose object is a thing (学吉他, 吃汉堡, 喝威士忌): what follows is no name. */
const BEFORE_THING = /^(?:学|弹|练|吃|喝|买|玩|打|拉|吹|点|煮|做|戴|穿|养)$/u

let jieba: Jieba | undefined
let frequentPlaces: Set<string> | undefined

/** Places frequent in jieba's dictionary (provinces, large cities, countries): a place without other evidence. */
function isFrequentPlace(word: string): boolean {
  if (!frequentPlaces) {
    frequentPlaces = new Set()
    for (const line of new TextDecoder().decode(dict).split('\n')) {
      const [name, count, tag] = line.split(' ')
      if (tag?.trim() === 'ns' && Number(count) >= 2000) frequentPlaces.add(name)
    }
  }
  return frequentPlaces.has(word)
}

const personShaped = (word: string) => /^\p{Script=Han}{2,3}$/u.test(word) && SURNAMES.has(word[0])

/**
 * The type the evidence supports for a candidate name of a Chinese text, from the name's shape, its
 * suffix and the words around it; undefined when nothing says it is a name.
 */
function chineseType(word: string, tag: string, before: string, after: string): EntityType | undefined {
  if (tag === 'ns' && (PLACE_SUFFIX.test(word) || isFrequentPlace(word))) return 'LOCATION'
  if (ORG_SUFFIX.test(word) || BEFORE_EMPLOYER.test(before) || (before === '在' && AFTER_EMPLOYER.test(after))) return 'ORGANIZATION'
  // 高中同学 is tagged nt: a group of people, not an organisation
  if (tag === 'nt') return /(?:同学|同事|室友|朋友|校友)$/u.test(word) ? undefined : 'ORGANIZATION'
  if (BEFORE_THING.test(before)) return undefined
  if (personShaped(word) && tag !== 'ns') return 'PERSON'
  if (PLACE_SUFFIX.test(word) || BEFORE_PLACE.test(before) || AFTER_PLACE.test(after) || (tag === 'ns' && isFrequentPlace(word)))
    return 'LOCATION'
  return undefined
}

/** Proper nouns of a Chinese text, each typed by the evidence around it. */
export function chineseEntities(text: string): NamedEntity[] {
  jieba ??= Jieba.withDict(dict)
  const words = jieba.tag(text, true)
  const found: NamedEntity[] = []
  words.forEach(({ word, tag }, i) => {
    const next = words[i + 1]?.word ?? ''
    // 陈老师, 王医生: a surname and a title are one person
    if (word.length === 1 && SURNAMES.has(word) && TITLES.test(next)) found.push({ name: word + next, type: 'PERSON' })
    const candidate = PROPER_TAGS.has(tag) || (tag === 'x' && personShaped(word))
    if (!candidate || !isEntityName(word)) return
    // 搬到了望京: the verb before 了
    const before = words[i - 1]?.word === '了' ? (words[i - 2]?.word ?? '') : (words[i - 1]?.word ?? '')
    const type = chineseType(word, tag, before, next)
    if (type) found.push({ name: word, type })
  })
  return found
}

/** People, places and organisations of an English text by compromise. */
export function englishEntities(text: string): NamedEntity[] {
  const doc = nlp(text)
  const found: NamedEntity[] = []
  const take = (matches: { json(): unknown }, type: EntityType) => {
    for (const match of matches.json() as { terms: { text: string; tags: string[] }[] }[]) {
      // "sister Carol", "Dr. John": the capitalised words without titles
      const words = match.terms.filter((term) => /^\p{Lu}/u.test(term.text) && !term.tags.includes('Honorific')).map((term) => term.text)
      const name = cleanName(words.join(' '))
      if (name.length >= 2 && isEntityName(name)) found.push({ name, type })
    }
  }
  take(doc.people(), 'PERSON')
  take(doc.places(), 'LOCATION')
  take(doc.organizations(), 'ORGANIZATION')
  return found
}

/** Named entities of a text, Chinese and English parts each by their library. */
export function namedEntities(text: string): NamedEntity[] {
  const found = [...(/\p{Script=Han}/u.test(text) ? chineseEntities(text) : []), ...(/[A-Za-z]/.test(text) ? englishEntities(text) : [])]
  const seen = new Set<string>()
  return found.filter((entity) => !seen.has(entity.name) && seen.add(entity.name))
}
