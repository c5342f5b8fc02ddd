import { isQuestion } from '../text/questions'

/**
 * Offline contradiction (design §4.3): a statement about a person read as claims on single-valued
 * predicates — where they live, where they work, their occupation, age, diet, relationship status and
 * school. Two claims with the same key and another value (or the negation) cannot both be true now, so
 * the newer closes the older. Everything else (likes, hobbies, what they did) is many-valued and never
 * contradicts. Only present, plain statements count: a plan ("is going to move"), a past ("used to live",
 * 以前住在) or a statement about someone else ("小明的妈妈住在…", "Alice's brother works at…") claims nothing.
 */

export interface Claim {
  key: string
  value: string
  negated: boolean
}

interface Pattern {
  key: string
  pattern: RegExp
  /** The value when the pattern names none (a status). */
  value?: string
  negated?: boolean
}

/** The statement's subject is the person themself: no possessive, no "and", no one else before the predicate. */
const ZH_SUBJECT = '^[^，,。的和与跟他她们]{1,12}?'
const EN_SUBJECT = '^(?:[A-Z][\\w.-]*)(?: [A-Z][\\w.-]*){0,2} (?:now |currently |still |also |recently |finally |just )*'

const ZH_NOT_NOW =
  /以前|之前|曾经|小时候|过去|原来|当年|那时|打算|准备|计划|想要?|要去|将要|会去|希望|梦想|如果|假如|要是|万一|假设|倘若|可能|也许/
const EN_NOT_NOW =
  /\b(?:used to|will|would|plans? to|planning|is going to|are going to|wants? to|hopes? to|might|may|could|if|dreams? of|considering|thinking (?:about|of)|years ago|as a (?:kid|child)|when (?:he|she|they) (?:was|were)|back in|before)\b/i

const ZH_JOB =
  '(?:老师|教师|医生|护士|程序员|工程师|设计师|律师|会计|警察|司机|厨师|销售|产品经理|项目经理|经理|公务员|记者|编辑|主播|作家|演员|歌手|研究员|教授|翻译|客服|建筑师|兽医|牙医|飞行员|军人|学生|大学生|研究生|博士生|高中生|初中生)'
const EN_JOB =
  '(?:teacher|nurse|doctor|engineer|developer|programmer|designer|manager|lawyer|accountant|police officer|chef|cook|driver|journalist|editor|writer|actor|actress|singer|researcher|professor|student|dentist|pilot|architect|consultant|analyst|scientist|pharmacist|veterinarian|firefighter|musician|artist|photographer|counselor|therapist)'

/** A place or organisation said in Chinese: up to the clause's end, without a trailing particle. */
const ZH_PLACE = '([^，,。！!？?；;、\\s了啦呢吧的]{2,12})'
/** A proper name in English: capitalised words. */
const EN_NAME = "((?:[A-Z][\\w&'.-]*)(?: (?:of |the |de |and )?[A-Z][\\w&'.-]*){0,4})"

const ZH_PATTERNS: Pattern[] = [
  { key: 'home', pattern: new RegExp(`${ZH_SUBJECT}(?:现在|目前|已经|也)?(?:住在|定居在?|搬到了?|搬去了?|搬家到了?)${ZH_PLACE}`) },
  { key: 'workplace', pattern: new RegExp(`${ZH_SUBJECT}(?:现在|目前|已经)?在${ZH_PLACE}(?:工作|上班)`) },
  { key: 'workplace', pattern: new RegExp(`${ZH_SUBJECT}(?:已经)?(?:入职|加入)了?${ZH_PLACE}`) },
  {
    key: 'occupation',
    pattern: new RegExp(`${ZH_SUBJECT}(?:现在|目前)?(?:是|当了?|成为了?)(?:一名|一个|一位|个|名)?([^，,。！!？?的]{0,6}${ZH_JOB})`),
  },
  { key: 'age', pattern: new RegExp(`${ZH_SUBJECT}(?:今年|现在|已经)*\\s*(\\d{1,3})\\s*岁`) },
  { key: 'vegetarian', pattern: new RegExp(`${ZH_SUBJECT}(?:不再|不|没有?再?|已经不)(?:吃素|是素食)`), value: 'yes', negated: true },
  { key: 'vegetarian', pattern: new RegExp(`${ZH_SUBJECT}(?:开始|又)吃肉`), value: 'yes', negated: true },
  { key: 'vegetarian', pattern: new RegExp(`${ZH_SUBJECT}(?:现在|一直|已经|开始)?(?:吃素|是素食(?:者|主义者)?)`), value: 'yes' },
  { key: 'relationship', pattern: new RegExp(`${ZH_SUBJECT}(?:现在|目前|还是|又)?(?:是)?单身`), value: 'single' },
  { key: 'relationship', pattern: new RegExp(`${ZH_SUBJECT}(?:和[^，,。]{1,8})?分手了`), value: 'single' },
  { key: 'relationship', pattern: new RegExp(`${ZH_SUBJECT}(?:已经)?(?:结婚了|已婚)`), value: 'married' },
  { key: 'relationship', pattern: new RegExp(`${ZH_SUBJECT}(?:已经)?离婚了`), value: 'divorced' },
  { key: 'relationship', pattern: new RegExp(`${ZH_SUBJECT}(?:有|交了)(?:一个)?(?:女朋友|男朋友|对象)`), value: 'dating' },
  { key: 'school', pattern: new RegExp(`${ZH_SUBJECT}(?:现在|目前)?在${ZH_PLACE}(?:上学|读书|读研|读博|念书|上大学|读大学)`) },
]

const EN_PATTERNS: Pattern[] = [
  { key: 'home', pattern: new RegExp(`${EN_SUBJECT}(?:lives|is living|has moved|moved|relocated|has relocated) (?:in|to) ${EN_NAME}`) },
  { key: 'workplace', pattern: new RegExp(`${EN_SUBJECT}(?:works|is working) (?:at|for) ${EN_NAME}`) },
  { key: 'workplace', pattern: new RegExp(`${EN_SUBJECT}(?:has joined|joined|started working at) ${EN_NAME}`) },
  { key: 'occupation', pattern: new RegExp(`${EN_SUBJECT}(?:is|works as|became) (?:a|an) ((?:[a-z-]+ ){0,2}${EN_JOB})\\b`) },
  { key: 'age', pattern: new RegExp(`${EN_SUBJECT}(?:is|turned) (\\d{1,3})(?: years old|-year-old|\\.|$)`) },
  {
    key: 'vegetarian',
    pattern: new RegExp(
      `${EN_SUBJECT}(?:is no longer|is not|isn't|stopped being) (?:a )?(?:vegetarian|vegan)|${EN_SUBJECT}eats meat again`,
    ),
    value: 'yes',
    negated: true,
  },
  { key: 'vegetarian', pattern: new RegExp(`${EN_SUBJECT}(?:is|became|has become) (?:a )?(?:vegetarian|vegan)\\b`), value: 'yes' },
  { key: 'relationship', pattern: new RegExp(`${EN_SUBJECT}(?:is single|broke up)\\b`), value: 'single' },
  { key: 'relationship', pattern: new RegExp(`${EN_SUBJECT}(?:is|got) (married|engaged|divorced)\\b`) },
  { key: 'relationship', pattern: new RegExp(`${EN_SUBJECT}(?:has a (?:girlfriend|boyfriend|partner)|is dating)\\b`), value: 'dating' },
  { key: 'school', pattern: new RegExp(`${EN_SUBJECT}(?:studies|is studying|is a student) at ${EN_NAME}`) },
]

const QUESTION_WORD = /^(?:哪|什么|啥|谁|几|多少|怎么)|^(?:where|what|which|who|whom|whose|how)\b/i

/** The claims a statement makes on single-valued predicates, at most one per key. */
export function claimsOf(statement: string): Claim[] {
  const text = statement.trim().replace(/[\u2018\u2019]/g, "'")
  const zh = /[\u4e00-\u9fff]/.test(text)
  // "小明住在哪里" asks where: it claims nothing and closes nothing
  if ((zh ? ZH_NOT_NOW : EN_NOT_NOW).test(text) || isQuestion(text, zh ? 'zh' : 'en')) return []
  const claims: Claim[] = []
  for (const { key, pattern, value, negated } of zh ? ZH_PATTERNS : EN_PATTERNS) {
    if (claims.some((claim) => claim.key === key)) continue
    const match = pattern.exec(text)
    if (!match) continue
    const said =
      value ??
      match[1]
        ?.trim()
        .toLowerCase()
        .replace(/[.!]+$/, '')
    // "搬到了新家" names no place, "住在哪里" / "lives in what" asks for one
    if (said && !/^(?:新|一|这|那|附近)/.test(said) && !QUESTION_WORD.test(said))
      claims.push({ key, value: said, negated: negated ?? false })
  }
  return claims
}

/** Whether the newer statement's claims contradict the older's: a key in both with another value or the negation. */
export function contradicts(newer: Claim[], older: Claim[]): boolean {
  return newer.some((claim) =>
    older.some(
      (old) =>
        old.key === claim.key && (old.negated !== claim.negated || (!old.value.includes(claim.value) && !claim.value.includes(old.value))),
    ),
  )
}
