import { statementsOf } from '../text/non-statements'
import { isEntityName, isVagueValue } from './entity-names'
import { chineseEntities } from './named-entities'
import type { EntityType } from './types'

/**
 * The offline patterns of what one speaker says about themself and the people around them:
 * self-introductions, where they live or work, kinship, preferences and traits. `SPEAKER` stands for
 * the one who said it.
 */
export const SPEAKER = Symbol('speaker')
export type Party = string | typeof SPEAKER

export interface RuleRelation {
  subject: Party
  predicate: string
  object: Party
  /** The type of a named object (the subject, when named, is a person). */
  objectType: EntityType
}

export interface RulePreference {
  key: string
  value: string
  /** "no longer": closes the preference without stating a new one. */
  stopped?: boolean
}

export interface RuleFindings {
  /** The name the speaker gave for themself. */
  selfName?: string
  relations: RuleRelation[]
  preferences: RulePreference[]
  traits: string[]
}

const HAN_END = /(?:了|啦|呢|吧|啊|哦|呀|的)+$/u
const ZH_PIECE = '([^，。！？、；,.!?;\\s]{1,12})'
const CAP = "(\\p{Lu}[\\p{L}'’-]*(?:\\s+\\p{Lu}[\\p{L}'’-]*){0,3})"
const KIN_ZH = '哥哥|姐姐|弟弟|妹妹|爸爸|妈妈|父亲|母亲|儿子|女儿|丈夫|妻子|老公|老婆|男朋友|女朋友|朋友|同学|同事|室友|老师|学生|老板'
const KIN_EN =
  'brother|sister|father|mother|dad|mom|mum|son|daughter|husband|wife|boyfriend|girlfriend|friend|roommate|colleague|teacher|boss'
const TRAITS_ZH = '内向|外向|开朗|安静|害羞|宅|社恐|急躁|耐心|乐观|悲观|懒'
const TRAITS_EN = 'introverted|extroverted|shy|outgoing|lazy|patient|impatient|optimistic|pessimistic|organized|messy|curious'
const PETS_ZH = '猫|猫咪|小猫|狗|狗狗|小狗|兔子|仓鼠|鹦鹉|乌龟|金鱼|宠物'
const PETS_EN = 'cat|dog|puppy|kitten|hamster|rabbit|bunny|parrot|bird|turtle|fish|pet'

const trimZh = (text: string) => text.replace(HAN_END, '')

/** A clause the speaker begins: 我…, maybe after a word of time (not 我们). */
const ZH_SELF = /^(?:其实|今天|现在|目前|平时|以前|后来|我也|我还)?我(?!们)/u
/** A clause that goes on with the subject left out: 是…, 住在…, 在…工作, 喜欢… */
const ZH_GOES_ON = /^(?:是|住在|住|搬到|搬去|定居|来自|在|现在|目前|也|还|很|比较|一直|最|喜欢|不喜欢|不再喜欢|讨厌|热爱|爱)/u

/**
 * The clauses of Chinese text, each one with its subject: a clause after a comma or 顿号 that goes on
 * with the subject left out (我叫小明，是一名老师，住在成都) reads as the speaker's own (我住在成都)
 * when the clause before was theirs. A sentence's end, or a clause with another subject, breaks it.
 */
export function chineseClauses(text: string): string[] {
  const clauses: string[] = []
  for (const sentence of text.split(/[。！？!?；;\n]+/u)) {
    let speaking = false
    for (const raw of sentence.split(/[，,、]/u)) {
      const clause = raw.trim()
      if (!clause) continue
      if (ZH_SELF.test(clause)) {
        speaking = true
        clauses.push(clause)
      } else if (speaking && ZH_GOES_ON.test(clause)) clauses.push(`我${clause}`)
      else {
        speaking = false
        clauses.push(clause)
      }
    }
  }
  return clauses
}

/** What a Chinese line says of its speaker, clause by clause, and the names of their pets (我养了一只猫，叫咪咪). */
function chinese(text: string, found: RuleFindings): void {
  for (const clause of chineseClauses(text)) chineseClause(clause, found)
  const pet = new RegExp(
    `我(?:的|家的?|养了?(?:一只|一条|只|条|个)?)(${PETS_ZH})[，,]?(?:叫|名叫|名字叫|取名叫?)([\\p{Script=Han}A-Za-z]{1,6})`,
    'u',
  ).exec(text)
  if (pet) found.relations.push({ subject: SPEAKER, predicate: pet[1], object: trimZh(pet[2]), objectType: 'OTHER' })
}

/** What one Chinese clause says of its speaker. */
function chineseClause(text: string, found: RuleFindings): void {
  const intro = new RegExp(`我(?:叫|的名字是|名字叫|的名字叫)([\\p{Script=Han}A-Za-z]{1,8})`, 'u').exec(text)
  if (intro) found.selfName ??= trimZh(intro[1])
  const live = new RegExp(`我(?:现在|目前|已经)?(住在|住|搬到了|搬到|搬去了|搬去|定居在|定居)${ZH_PIECE}`, 'u').exec(text)
  if (live) {
    const object = trimZh(live[2])
    if (object) found.relations.push({ subject: SPEAKER, predicate: live[1].replace(/了$/, ''), object, objectType: 'LOCATION' })
  }
  // 我在腾讯工作, and 我住在上海，在腾讯工作 (the subject left out after a comma)
  const work = /(?:我|^|[，,；;])(?:现在|目前)?在([^，。！？、；,.!?;\s]{1,12}?)(工作|上班|读书|上学)/u.exec(text)
  if (work) {
    const place = chineseEntities(`在${work[1]}${work[2]}`).some((entity) => entity.name === work[1] && entity.type === 'LOCATION')
    found.relations.push({ subject: SPEAKER, predicate: `在${work[2]}`, object: work[1], objectType: place ? 'LOCATION' : 'ORGANIZATION' })
  }
  // 我上周去了趟苏州: a place the dictionary or the words know as one (not 我去了超市)
  const went = new RegExp(`我(?:[^，,我]{0,6}?)(?:去了|去过|到了|飞到了?)(?:一?趟)?${ZH_PIECE}`, 'u').exec(text)
  const wentTo = went && trimZh(went[1])
  if (wentTo && chineseEntities(`去${wentTo}`).some((entity) => entity.name === wentTo && entity.type === 'LOCATION'))
    found.relations.push({ subject: SPEAKER, predicate: '去过', object: wentTo, objectType: 'LOCATION' })
  const from = /我(?:来自|是)([\p{Script=Han}]{2,6}?)人?(?=[，。！？,.!?\s]|$)/u.exec(text)
  if (from && chineseEntities(from[1]).some((entity) => entity.type === 'LOCATION'))
    found.relations.push({ subject: SPEAKER, predicate: '来自', object: from[1], objectType: 'LOCATION' })
  for (const kin of text.matchAll(new RegExp(`([\\p{Script=Han}A-Za-z]{1,8})是([\\p{Script=Han}A-Za-z]{1,8}?)的(${KIN_ZH})`, 'gu'))) {
    const subject = lastParty(kin[2])
    const object = lastParty(kin[1])
    if (subject !== object) found.relations.push({ subject, predicate: kin[3], object, objectType: 'PERSON' })
  }
  // 我的哥哥是小明, 我哥哥叫小明 (我哥哥是医生 says what he does, not his name)
  for (const kin of text.matchAll(new RegExp(`我(?:的(${KIN_ZH})(?:是|叫)|(${KIN_ZH})叫)([\\p{Script=Han}A-Za-z]{2,8})`, 'gu')))
    found.relations.push({ subject: SPEAKER, predicate: kin[1] ?? kin[2], object: trimZh(kin[3]), objectType: 'PERSON' })
  // 我最喜欢的运动是游泳: what is liked is what follows 是, not "的运动是游泳"
  const favourite =
    /我(?:也|真的|最|很|特别|非常|还|一直)?(喜欢|爱)的[^，。！？、；,.!?;\s]{1,8}?(?:是|就是)([^，。！？、；,.!?;\s]{1,15})/u.exec(text)
  const like =
    favourite ??
    /我(?:也|真的|最|很|特别|非常|超|超级|还|一直)?(不再喜欢|不喜欢|不爱|讨厌|喜欢|热爱|爱)([^，。！？、；,.!?;\s]{1,15})/u.exec(text)
  if (like && !like[2].startsWith('的')) {
    const value = trimZh(like[2])
    if (value && !isVagueValue(value)) {
      const verb = like[1]
      if (verb === '不再喜欢') found.preferences.push({ key: '喜欢', value, stopped: true })
      else found.preferences.push({ key: /^(不|讨厌)/.test(verb) ? '不喜欢' : '喜欢', value })
    }
  }
  const kind = /我是(?:个|一个)([^，。！？,.!?\s]{1,8}?)的人/u.exec(text)
  if (kind) found.traits.push(kind[1])
  const trait = new RegExp(`我(?:性格)?(?:比较|很|挺|特别|非常|有点)(${TRAITS_ZH})`, 'u').exec(text)
  if (trait) found.traits.push(trait[1])
}

/** 我 is the speaker; otherwise the name at the end of what stands before 是 (今天小明 → 小明 when jieba knows it). */
function lastParty(text: string): Party {
  if (text.endsWith('我')) return SPEAKER
  const names = chineseEntities(text).filter((entity) => text.endsWith(entity.name))
  return names[0]?.name ?? text
}

/** A clause the speaker begins: I …, I'm …, my … */
const EN_SELF = /^(?:and\s+|but\s+|so\s+)?(?:I\b|I'm\b|I've\b|my\s)/u
/** A clause that goes on with "I" left out: living in …, work at …, love … */
const EN_GOES_ON =
  /^(?:and\s+|but\s+)?(?:now\s+|also\s+|currently\s+|still\s+)?(?:live|living|lived|moved|work|working|study|studying|love|like|enjoy|prefer|hate|dislike|am|from)\b/iu

/**
 * The clauses of English text, each one with its subject: a clause after a comma or "and" that goes on
 * with "I" left out (I'm Alice, a teacher, living in Paris) reads as the speaker's own (I living in
 * Paris); a noun phrase after a comma (a teacher) keeps the speaker speaking. A sentence's end, or a
 * clause with another subject, breaks it.
 */
export function englishClauses(text: string): string[] {
  const clauses: string[] = []
  for (const sentence of text.split(/(?<=[.!?;])\s+|\n+/u)) {
    let speaking = false
    for (const raw of sentence.split(/,\s*|\s+(?=and\s+(?!I\b|I'))/u)) {
      const clause = raw.trim()
      if (!clause) continue
      if (EN_SELF.test(clause)) {
        speaking = true
        clauses.push(clause)
      } else if (speaking && EN_GOES_ON.test(clause)) {
        const rest = clause.replace(/^(?:and|but)\s+/iu, '')
        clauses.push(/^from\b/iu.test(rest) ? `I'm ${rest}` : `I ${rest}`)
      } else {
        // "a teacher", "from Paris": a description of the speaker goes on; another subject stops them
        if (!/^(?:a|an|the)\s/iu.test(clause)) speaking = false
        clauses.push(clause)
      }
    }
  }
  return clauses
}

/** What an English line says of its speaker, clause by clause. */
function english(text: string, found: RuleFindings): void {
  for (const clause of englishClauses(text)) englishClause(clause, found)
}

/** What one English clause says of its speaker. */
function englishClause(text: string, found: RuleFindings): void {
  const intro = new RegExp(`\\b(?:my name is|I'm|I am|call me)\\s+${CAP}`, 'u').exec(text)
  if (intro && !/^(From|In|At|Not|So|Very|The)$/.test(intro[1].split(' ')[0])) found.selfName ??= intro[1]
  const live = new RegExp(`\\bI(?:'ve|'m| have| am)?\\s+(?:now\\s+)?(live in|living in|moved to)\\s+(?:the\\s+)?${CAP}`, 'u').exec(text)
  if (live) found.relations.push({ subject: SPEAKER, predicate: live[1], object: live[2], objectType: 'LOCATION' })
  const work = new RegExp(`\\bI(?:'m| am)?\\s+(work|working|study|studying) (at|for)\\s+${CAP}`, 'u').exec(text)
  if (work)
    found.relations.push({
      subject: SPEAKER,
      predicate: work[1].startsWith('work') ? `work ${work[2]}` : 'study at',
      object: work[3],
      objectType: 'ORGANIZATION',
    })
  const went = new RegExp(
    `\\bI(?:'ve| have)?\\s+(?:just\\s+|recently\\s+|finally\\s+|also\\s+)?(went|been|traveled|travelled|flew|drove|visited|moved from)\\s+(?:to\\s+|back to\\s+)?(?:the\\s+)?${CAP}`,
    'u',
  ).exec(text)
  if (went)
    found.relations.push({
      subject: SPEAKER,
      predicate: went[1] === 'moved from' ? 'moved from' : 'visited',
      object: went[2],
      objectType: 'LOCATION',
    })
  const from = new RegExp(`\\bI(?:'m| am) from\\s+${CAP}`, 'u').exec(text)
  if (from) found.relations.push({ subject: SPEAKER, predicate: 'is from', object: from[1], objectType: 'LOCATION' })
  for (const kin of text.matchAll(new RegExp(`${CAP} is (my|\\p{Lu}[\\p{L}-]*'s) (${KIN_EN})\\b`, 'gu')))
    found.relations.push({
      subject: kin[2] === 'my' ? SPEAKER : kin[2].slice(0, -2),
      predicate: kin[3],
      object: kin[1],
      objectType: 'PERSON',
    })
  for (const kin of text.matchAll(new RegExp(`\\b[Mm]y (${KIN_EN})(?: is| named| called)? ${CAP}`, 'gu')))
    found.relations.push({ subject: SPEAKER, predicate: kin[1], object: kin[2], objectType: 'PERSON' })
  const pet = new RegExp(`\\b[Mm]y (${PETS_EN})(?:'s name is| is called| is named| named| called|,)? ${CAP}`, 'u').exec(text)
  if (pet) found.relations.push({ subject: SPEAKER, predicate: pet[1], object: pet[2], objectType: 'OTHER' })
  const like =
    /\bI\s+(?:really\s+|also\s+|do\s+|still\s+)?(love|like|enjoy|prefer|adore|hate|dislike|don't like|do not like|no longer like|can't stand)\s+([^.,!?;]{2,40}?)(?=\s+(?:and|but|because|so)\b|[.,!?;]|$)/i.exec(
      text,
    )
  if (like) {
    const verb = like[1].toLowerCase()
    let value = like[2].trim()
    const anymore = /\s+any ?more$/i.test(value)
    value = value.replace(/\s+(?:any ?more|now|these days|too|as well|a lot|so much|very much)$/i, '')
    if (value && !isVagueValue(value)) {
      if (anymore || verb === 'no longer like') found.preferences.push({ key: 'likes', value, stopped: true })
      else found.preferences.push({ key: /hate|dislike|don't|do not|can't/.test(verb) ? 'dislikes' : 'likes', value })
    }
  }
  const kind = /\bI(?:'m| am) (?:a|an) ([a-z]+(?: [a-z]+)?) person\b/i.exec(text)
  if (kind) found.traits.push(kind[1])
  const trait = new RegExp(`\\bI(?:'m| am) (?:very |really |quite |pretty |so )?(${TRAITS_EN})\\b`, 'i').exec(text)
  if (trait) found.traits.push(trait[1].toLowerCase())
}

/**
 * Self-introductions, relations, preferences and traits one line states, by the rule patterns: only its
 * statements are read (a question, a request, a hypothetical or a wish states nothing), and a named
 * party must be a name (住在哪里 names no place).
 */
export function ruleFindings(line: string): RuleFindings {
  const found: RuleFindings = { relations: [], preferences: [], traits: [] }
  const text = statementsOf(line)
  if (/\p{Script=Han}/u.test(text)) chinese(text, found)
  if (/[A-Za-z]/.test(text)) english(text, found)
  found.relations = found.relations.filter((relation) =>
    [relation.subject, relation.object].every((party) => typeof party !== 'string' || isEntityName(party)),
  )
  if (found.selfName && !isEntityName(found.selfName)) delete found.selfName
  return distinct(found)
}

/** Each relation, preference and trait once (two clauses may say the same). */
function distinct(found: RuleFindings): RuleFindings {
  const seen = new Set<string>()
  const once = <T>(list: T[], key: (item: T) => string) =>
    list.filter((item) => {
      const k = key(item)
      if (seen.has(k)) return false
      seen.add(k)
      return true
    })
  const party = (value: Party) => (value === SPEAKER ? '\u0000speaker' : value)
  found.relations = once(found.relations, (r) => `r|${party(r.subject)}|${r.predicate}|${party(r.object)}`)
  found.preferences = once(found.preferences, (p) => `p|${p.key}|${p.value}|${Boolean(p.stopped)}`)
  found.traits = once(found.traits, (t) => `t|${t}`)
  return found
}

/** Preference keys that contradict each other: a new one closes the other with the same value. */
export const OPPOSITE_KEYS: Record<string, string> = { 喜欢: '不喜欢', 不喜欢: '喜欢', likes: 'dislikes', dislikes: 'likes' }
