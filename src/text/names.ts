import nlp from 'compromise'
import { matchTerms } from './keywords'
import { cjkTags } from './segment'

/**
 * The match terms of the names of people a text refers to, so that a ranking can weigh them apart
 * from what is asked about them: in "Which bonds are in Alice's portfolio?" every fact about Alice holds
 * "Alice", only the answer holds "bonds". Places are not people: "Tokyo" stays a word like any other.
 * - Latin script: a word compromise's lexicon knows as a first or last name, capitalised (any case in a
 *   Chinese sentence, where ids and English names are often written in lower case);
 * - Chinese: a word of two or three Han characters that jieba's dictionary tags as a person's name, or
 *   that its HMM found outside the dictionary and opens with a common surname or 小 / 老 / 阿.
 */
export function nameTerms(text: string): Set<string> {
  const names: string[] = []
  const han = /\p{Script=Han}/u.test(text)
  for (const [word] of text.matchAll(LATIN_WORD)) {
    if ((han || /^\p{Lu}\p{Ll}/u.test(word)) && isPersonName(word)) names.push(word)
  }
  for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
    for (const { word, tag } of cjkTags(run)) {
      if (/^\p{Script=Han}{2,3}$/u.test(word) && (tag.startsWith('nr') || (tag === 'x' && NAME_STARTS.has(word[0])))) names.push(word)
    }
  }
  return new Set(names.flatMap((name) => matchTerms(name)))
}

const LATIN_WORD = /(?<!\p{Script=Latin})\p{Script=Latin}+(?!\p{Script=Latin})/gu
const PERSON_TAGS = new Set(['FirstName', 'FemaleName', 'MaleName', 'LastName', 'Person'])
let lexicon: Record<string, string | string[]> | undefined

/** Whether compromise's lexicon knows the word as a person's name. */
function isPersonName(word: string): boolean {
  lexicon ??= (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon
  const tags = lexicon[word.toLowerCase()]
  return tags !== undefined && ([] as string[]).concat(tags).some((tag) => PERSON_TAGS.has(tag))
}

/** First characters of Chinese names: the commonest surnames, and the prefixes of familiar names. */
const NAME_STARTS = new Set(
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤小老阿',
)
