import { Jieba } from '@node-rs/jieba'
import { dict } from '@node-rs/jieba/dict'
import nlp from 'compromise'
import type { EntityType } from './types'
import { cleanName } from './names'

/** A name found in a text by the NLP libraries, offline. */
export interface NamedEntity {
  name: string
  type: EntityType
}

/** jieba's part-of-speech tags for proper nouns. */
const JIEBA_TYPES: Record<string, EntityType> = { nr: 'PERSON', ns: 'LOCATION', nt: 'ORGANIZATION', nz: 'OTHER' }

/**
 * jieba's HMM finds names its dictionary lacks (张伟, 小红) but tags them `x`, like punctuation: a word
 * of two or three Han characters that opens with a common surname or a familiar prefix is taken for a person.
 */
const SURNAMES = new Set(
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤小老阿',
)

/** Words jieba's dictionary tags as places or names that are not (kinship terms and the like). */
const NOT_NAMES = new Set(['哥哥', '姐姐', '弟弟', '妹妹', '爸爸', '妈妈', '老公', '老婆', '朋友', '同学', '同事', '老师', '今天', '明天'])

let jieba: Jieba | undefined

/** Proper nouns of a Chinese text by jieba's part-of-speech tags. */
export function chineseEntities(text: string): NamedEntity[] {
  jieba ??= Jieba.withDict(dict)
  const found: NamedEntity[] = []
  for (const { word, tag } of jieba.tag(text, true)) {
    if (NOT_NAMES.has(word) || word.length < 2) continue
    const type = JIEBA_TYPES[tag] ?? (tag === 'x' && /^\p{Script=Han}{2,3}$/u.test(word) && SURNAMES.has(word[0]) ? 'PERSON' : undefined)
    if (type) found.push({ name: word, type })
  }
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
      if (name.length >= 2) found.push({ name, type })
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
