import * as chrono from 'chrono-node'
import type { Language } from './language'
import { detectLanguage } from './language'

/**
 * Relative dates and times in a statement ("下周三", "明年", "next September", "in three days")
 * resolved against the time the statement was said and written as absolute dates, so a fact stays
 * true after the week it was said in: "小明下周三要去上海出差" said on Thursday 2026-11-26 becomes
 * "小明2026年12月2日（周三）要去上海出差" ("alice 2026年…" after a Latin name).
 *
 * Which words are relative is decided here (a list per language): chrono-node also reads absolute
 * dates and words that only look like dates ("30 years", "sat", "at 8"), which must stay as said.
 * chrono-node computes the day of the day-sized expressions (今天 … 大后天, weekdays with 下/上/this/
 * next/last, N天后, in N days, N days ago); the coarser ones it misses or reads as a day (周末,
 * 下周, 下个月, 明年, this weekend, next week, next month, next year, next September, next summer)
 * are computed here. Dates are in the local time zone of the process (the Koishi server's).
 */

export type DatePrecision = 'day' | 'week' | 'weekend' | 'month' | 'season' | 'year'

export interface ResolvedDate {
  /** Where the relative expression starts in the text. */
  index: number
  /** The expression as said. */
  text: string
  /** The day meant; the first day of the period for coarser precisions. */
  date: Date
  precision: DatePrecision
  /** What the expression is replaced by. */
  replacement: string
}

/**
 * `text` with every relative date or time resolved against `reference` (when it was said). A date
 * written straight after a Latin name gets a space ("alice 2026年12月…", not "alice2026年12月…", and
 * "user1 2026年…", not "user12026年…"), whether resolved here or written so by a model.
 */
export function resolveRelativeDates(text: string, reference: Date, language: Language = detectLanguage(text, 'zh')): string {
  let out = ''
  let at = 0
  for (const found of findRelativeDates(text, reference, language)) {
    out += text.slice(at, found.index)
    out += (/[A-Za-z0-9]$/.test(out) && /^\d/.test(found.replacement) ? ' ' : '') + found.replacement
    at = found.index + found.text.length
  }
  return (out + text.slice(at)).replace(/([A-Za-z])(\d{4}年)/g, '$1 $2')
}

/** The relative dates of `text`, in order, none overlapping. */
export function findRelativeDates(text: string, reference: Date, language: Language = detectLanguage(text, 'zh')): ResolvedDate[] {
  const found = language === 'zh' ? findZh(text, reference) : findEn(text, reference)
  found.sort((a, b) => a.index - b.index || b.text.length - a.text.length)
  const kept: ResolvedDate[] = []
  for (const date of found) {
    const last = kept.at(-1)
    if (!last || date.index >= last.index + last.text.length) kept.push(date)
  }
  return kept
}

// ───────────────────────────── calendar ─────────────────────────────

function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate())
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days)
}

/** Monday of the week `date` is in (weeks start on Monday, as in China and ISO 8601). */
function mondayOf(date: Date): Date {
  return addDays(startOfDay(date), -((date.getDay() + 6) % 7))
}

/** Offset in weeks, months or years of a relative prefix. */
function offsetOf(prefix: string | undefined): number {
  switch (prefix?.toLowerCase().replace(/\s+/g, ' ')) {
    case '下下':
      return 2
    case '下':
    case '明':
    case 'next':
      return 1
    case '上':
    case '去':
    case 'last':
      return -1
    case '后':
      return 2
    case '前':
      return -2
    case '大后':
      return 3
    case '大前':
      return -3
    default:
      return 0
  }
}

/** Whether a statement talks about the past, so a bare weekday is the last one, not the next. */
function isPast(text: string, language: Language): boolean {
  // 了 marks a finished action, except an arrangement for later ("周六约了去爬山")
  if (language === 'zh')
    return (
      /过|昨|前天|上周|上个|去年|刚才/.test(text) || (/了/.test(text) && !/(?:约|订|定|报名|预约|预定|安排|计划|打算|准备)了/.test(text))
    )
  // a past participle after "is", "get" or "feel" is an adjective ("is excited about Friday")
  return /\b(?:was|were|went|had|did|came|saw|met|took|left|made|bought|quit|ago|last|gave|told|ran|won|lost|spent|caught|found|wrote|ate|drank|drove|flew|sang|swam|threw|wore|sold|sent|paid|heard|slept|brought|taught|fought|began|broke|chose|fell|forgot|grew|rode|spoke|stood|woke)\b|(?<!\b(?:have|has|'ve|'s)\s+)\bgot\b|(?<!\b(?:am|is|are|be|been|get|gets|getting|got|feel|feels)\s+)\b\w{2,}(?<!e)ed\b/i.test(
    text,
  )
}

/** Whether a statement tells what happens as a rule, so a bare weekday or weekend is every one of them. */
function isHabitual(text: string, language: Language): boolean {
  if (language === 'zh') return /一般|通常|经常|平时|总是|往往|每/.test(text)
  return /\b(?:usually|often|always|normally|generally|typically|every|most)\b/i.test(text)
}

// ───────────────────────────── Chinese ─────────────────────────────

const ZH_WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六']

function zhDay(date: Date): string {
  return `${date.getFullYear()}年${date.getMonth() + 1}月${date.getDate()}日（周${ZH_WEEKDAYS[date.getDay()]}）`
}

function zhRange(from: Date, to: Date): string {
  const start = `${from.getFullYear()}年${from.getMonth() + 1}月${from.getDate()}日`
  if (from.getFullYear() !== to.getFullYear()) return `${start}至${to.getFullYear()}年${to.getMonth() + 1}月${to.getDate()}日`
  if (from.getMonth() !== to.getMonth()) return `${start}至${to.getMonth() + 1}月${to.getDate()}日`
  return `${start}至${to.getDate()}日`
}

const ZH_NUMERALS: Record<string, number> = { 零: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 }

/** 5, 十, 十二, 二十三 → the number (up to 99). */
function zhNumber(text: string): number {
  if (/^\d+$/.test(text)) return Number(text)
  const [tens, ones] = text.split('十')
  if (ones === undefined) return ZH_NUMERALS[text] ?? NaN
  return (tens ? (ZH_NUMERALS[tens] ?? NaN) : 1) * 10 + (ones ? (ZH_NUMERALS[ones] ?? NaN) : 0)
}

const ZH_REL = '(下下|下|上|这|本)'
const ZH_DAY_NUMBER = '(\\d{1,2}|[一二三四五六七八九十]{1,3})'
/** The day-sized words chrono-node computes, with the part of the day some of them carry. */
const ZH_DAY_WORDS: Record<string, string> = { 今晚: '晚上', 明晚: '晚上', 昨晚: '晚上', 今早: '早上', 明早: '早上', 昨早: '早上' }

function findZh(text: string, reference: Date): ResolvedDate[] {
  const found: ResolvedDate[] = []
  const add = (index: number, said: string, date: Date, precision: DatePrecision, replacement: string) =>
    found.push({ index, text: said, date, precision, replacement })
  const monday = mondayOf(reference)
  const past = isPast(text, 'zh')
  const habitual = isHabitual(text, 'zh')

  // 周末, 这周末, 下周末 (chrono-node misses them)
  for (const m of text.matchAll(new RegExp(`${ZH_REL}?个?(?:周末|礼拜末|星期末)`, 'g'))) {
    if (!m[1] && habitual) continue // 周末我一般去钓鱼: every weekend
    if (!m[1] && /[日号]\s*[（(]$/.test(text.slice(0, m.index))) continue // written already: 29日（周末）
    let saturday = addDays(monday, 5 + 7 * offsetOf(m[1]))
    // a bare weekend in a statement about the past is the last one ("周末去爬山了")
    if (!m[1] && past && saturday > reference) saturday = addDays(saturday, -7)
    add(m.index, m[0], saturday, 'weekend', `${zhRange(saturday, addDays(saturday, 1))}（周末）`)
  }
  // 下周, 这个星期, 上礼拜 (a whole week; not 下周三, 这周末, 周围, 周年)
  for (const m of text.matchAll(new RegExp(`${ZH_REL}个?(?:周|星期|礼拜)(?![一二三四五六日天末\\d围边年岁刊报])`, 'g'))) {
    const start = addDays(monday, 7 * offsetOf(m[1]))
    add(m.index, m[0], start, 'week', `${zhRange(start, addDays(start, 6))}那周`)
  }
  // 下个月, 这月, 上个月底, 下个月5号 (chrono-node misses them)
  for (const m of text.matchAll(new RegExp(`${ZH_REL}个?月(?:${ZH_DAY_NUMBER}[号日]|(初|中|底|末))?(?![饼亮光球票份])`, 'g'))) {
    const month = new Date(reference.getFullYear(), reference.getMonth() + offsetOf(m[1]), 1)
    const label = `${month.getFullYear()}年${month.getMonth() + 1}月`
    const day = m[2] ? zhNumber(m[2]) : NaN
    if (day >= 1 && day <= 31) {
      const date = new Date(month.getFullYear(), month.getMonth(), day)
      add(m.index, m[0], date, 'day', zhDay(date))
    } else add(m.index, m[0], month, 'month', `${label}${m[3] ?? ''}`)
  }
  // 今年, 明年, 后年, 去年, 前年 (明年三月 → 2027年三月)
  for (const m of text.matchAll(/(大后|大前|今|明|后|去|前)年/g)) {
    if (m[1] === '前' && /[\d一二三四五六七八九十两几]$/.test(text.slice(0, m.index))) continue // 三前年 is not a year
    const year = reference.getFullYear() + offsetOf(m[1])
    add(m.index, m[0], new Date(year, 0, 1), 'year', `${year}年`)
  }
  // 两周后, 3个星期以后 (chrono-node reads N天后 and N个月后, not weeks)
  for (const m of text.matchAll(/([\d一二两三四五六七八九十]+)个?(?:周|星期|礼拜)(?:后|以后|之后)/g)) {
    const weeks = zhNumber(m[1])
    if (!weeks) continue
    const date = addDays(reference, 7 * weeks)
    add(m.index, m[0], date, 'day', zhDay(date))
  }
  // 这周三, 本周日: this week's day, whether it is past or not
  for (const m of text.matchAll(/(这|本)个?(?:周|星期|礼拜)([一二三四五六日天])/g)) {
    const date = addDays(monday, (ZH_WEEKDAYS.indexOf(m[2] === '天' ? '日' : m[2]) + 6) % 7)
    add(m.index, m[0], date, 'day', zhDay(date))
  }
  // 前几天, 几天前, 前几个月: a few before the day it was said
  for (const m of text.matchAll(/前几(天|个月|年)|几(天|个月|年)前/g)) {
    const unit = m[1] ?? m[2]
    const date =
      unit === '天' ? addDays(reference, -3) : unit === '年' ? new Date(reference.getFullYear() - 3, 0, 1) : addDays(reference, -90)
    const day = `${reference.getFullYear()}年${reference.getMonth() + 1}月${reference.getDate()}日`
    add(m.index, m[0], date, unit === '天' ? 'day' : unit === '年' ? 'year' : 'month', `${day}的前几${unit}`)
  }
  // the day-sized words, computed by chrono-node
  const anchors = new RegExp(
    [
      '大后天|后天|明天|今天|昨天|大前天|前天|今晚|明晚|昨晚|今早|明早|昨早|今日|明日|昨日',
      `(?:下下|下|上)?个?(?:周|星期|礼拜)[一二三四五六日天]`,
      '[\\d一二两三四五六七八九十半]+个?(?:天|月|年)(?:后|以后|之后|前|以前|之前)',
    ].join('|'),
    'g',
  )
  for (const m of text.matchAll(anchors)) {
    if (/每个?$/.test(text.slice(0, m.index)) || (habitual && /^(?:周|星期|礼拜)/.test(m[0]))) continue // 每周三 recurs
    if (/[日号]\s*[（(]$/.test(text.slice(0, m.index))) continue // the weekday of a date already written: 12月2日（周三）
    const [result] = chrono.zh.hans.parse(m[0], reference, { forwardDate: !past })
    if (!result || result.index !== 0) continue
    let date = startOfDay(result.start.date())
    // a bare weekday in a statement about the past is the last one (chrono-node takes the nearest)
    if (past && /^(?:周|星期|礼拜)/.test(m[0]) && date > reference) date = addDays(date, -7)
    const unit = /([月年])(?:后|以后|之后|前|以前|之前)$/.exec(m[0])?.[1]
    if (unit === '年') add(m.index, m[0], date, 'year', `${date.getFullYear()}年`)
    else if (unit === '月') add(m.index, m[0], date, 'month', `${date.getFullYear()}年${date.getMonth() + 1}月`)
    else add(m.index, m[0], date, 'day', `${zhDay(date)}${ZH_DAY_WORDS[m[0]] ?? ''}`)
  }
  return found
}

// ───────────────────────────── English ─────────────────────────────

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const EN_WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const SEASON_START: Record<string, number> = { spring: 2, summer: 5, fall: 8, autumn: 8, winter: 11 }

function enDay(date: Date): string {
  return `${EN_WEEKDAYS[date.getDay()]}, ${EN_MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`
}

function enRange(from: Date, to: Date): string {
  const start = `${EN_MONTHS[from.getMonth()]} ${from.getDate()}`
  if (from.getFullYear() !== to.getFullYear())
    return `${start}, ${from.getFullYear()} – ${EN_MONTHS[to.getMonth()]} ${to.getDate()}, ${to.getFullYear()}`
  if (from.getMonth() !== to.getMonth()) return `${start} – ${EN_MONTHS[to.getMonth()]} ${to.getDate()}, ${to.getFullYear()}`
  return `${start}–${to.getDate()}, ${to.getFullYear()}`
}

/** What follows "'s" when it is "is" ("tomorrow's gonna be fun"), not a possessive ("tomorrow's meeting"). */
const EN_IS_AFTER =
  /^\s+(?:gonna|going|not|been|a|an|the|so|really|just|also|still|too|very|finally|already|probably|definitely|my|our|your|when|all)\b/i

/** A preposition right before the expression: then none of ours is added ("by tomorrow", not "by on …"). */
const EN_PREPOSITION_BEFORE = /\b(?:on|by|until|till|before|after|since|from|for|of|to|through|in|at|during|over)\s+$/i

const EN_NUMBER = '(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|\\d{1,3})'
const EN_PARTS = '(?:morning|afternoon|evening|night)'

/** `next week`'s offset: a dictionary lookup that tolerates `this coming`. */
function enOffset(word: string | undefined): number {
  return offsetOf(word?.replace(/^(?:this\s+)?coming$/i, 'next'))
}

function findEn(text: string, reference: Date): ResolvedDate[] {
  const found: ResolvedDate[] = []
  const add = (index: number, said: string, date: Date, precision: DatePrecision, phrase: (preposition: boolean) => string) => {
    // "tonight's conversation", "last year's trip": a possessive names a thing, not a time to resolve;
    // "tomorrow's gonna be fun" is "tomorrow is"
    const after = text.slice(index + said.length)
    if (/^['\u2019]s\b/.test(after)) {
      if (!EN_IS_AFTER.test(after.slice(2))) return
      found.push({ index, text: said + after.slice(0, 2), date, precision, replacement: `${phrase(false)} is` })
      return
    }
    const preposition = EN_PREPOSITION_BEFORE.test(text.slice(0, index))
    found.push({ index, text: said, date, precision, replacement: phrase(!preposition) })
  }
  const monday = mondayOf(reference)
  const past = isPast(text, 'en')
  const habitual = isHabitual(text, 'en')

  for (const m of text.matchAll(/\b(?:(this|next|last|this\s+coming|coming)\s+|the\s+)weekend\b/gi)) {
    if (!m[1] && habitual) continue // "usually … at the weekend": every weekend
    if (/^\s+of\s/i.test(text.slice(m.index + m[0].length))) continue // written already: the weekend of November 28–29
    let saturday = addDays(monday, 5 + 7 * enOffset(m[1]))
    // "the weekend" in a statement about the past is the last one ("we hosted a barbecue over the weekend")
    if (!m[1] && past && saturday > reference) saturday = addDays(saturday, -7)
    const range = `the weekend of ${enRange(saturday, addDays(saturday, 1))}`
    add(m.index, m[0], saturday, 'weekend', (own) => (own ? `on ${range}` : range))
  }
  for (const m of text.matchAll(/\b(this|next|last)\s+week\b/gi)) {
    const start = addDays(monday, 7 * enOffset(m[1]))
    const range = `the week of ${EN_MONTHS[start.getMonth()]} ${start.getDate()}, ${start.getFullYear()}`
    add(m.index, m[0], start, 'week', (own) => (own ? `in ${range}` : range))
  }
  for (const m of text.matchAll(/\b(this|next|last)\s+month\b/gi)) {
    const month = new Date(reference.getFullYear(), reference.getMonth() + enOffset(m[1]), 1)
    const label = `${EN_MONTHS[month.getMonth()]} ${month.getFullYear()}`
    add(m.index, m[0], month, 'month', (own) => (own ? `in ${label}` : label))
  }
  for (const m of text.matchAll(/\b(this|next|last)\s+year\b/gi)) {
    const year = reference.getFullYear() + enOffset(m[1])
    add(m.index, m[0], new Date(year, 0, 1), 'year', (own) => (own ? `in ${year}` : `${year}`))
  }
  // next September, last March, this coming May (chrono-node reads the month only, without "next")
  const months = EN_MONTHS.join('|')
  for (const m of text.matchAll(new RegExp(`\\b(this\\s+coming|coming|this|next|last)\\s+(${months})\\b`, 'gi'))) {
    const month = EN_MONTHS.findIndex((name) => name.toLowerCase() === m[2].toLowerCase())
    const date = periodOf(month, enOffset(m[1]), reference)
    const label = `${EN_MONTHS[month]} ${date.getFullYear()}`
    add(m.index, m[0], date, 'month', (own) => (own ? `in ${label}` : label))
  }
  // "in September", "since March", "by June" without a year: the nearest one, after the day said for a plan, before it for
  // the past; a birthday, an anniversary or a habit recurs and keeps no year
  if (!habitual && !/\b(?:birthdays?|anniversar(?:y|ies)|every|each)\b/i.test(text)) {
    for (const m of text.matchAll(
      new RegExp(`\\b(?:in|since|until|till|by|during|(?:early|late|mid)(?:-|\\s+))\\s*(${months})\\b(?!\\s*(?:\\d|of\\s+\\d))`, 'g'),
    )) {
      const month = EN_MONTHS.indexOf(m[1])
      const current = reference.getMonth()
      let year = reference.getFullYear()
      // "since March" always looks back
      const before = past || /^since/i.test(m[0])
      if (before && month > current) year--
      else if (!before && month < current) year++
      const at = m.index + m[0].length - m[1].length
      add(at, m[1], new Date(year, month, 1), 'month', () => `${m[1]} ${year}`)
    }
  }
  // this summer, next winter
  for (const m of text.matchAll(/\b(this\s+coming|coming|this|next|last)\s+(spring|summer|fall|autumn|winter)\b/gi)) {
    const season = m[2].toLowerCase()
    let date = periodOf(SEASON_START[season], enOffset(m[1]), reference)
    // "last fall" said in November, inside this fall, is the fall before
    const inSeason = (reference.getMonth() - SEASON_START[season] + 12) % 12 < 3
    if (enOffset(m[1]) < 0 && inSeason) date = new Date(date.getFullYear() - 1, date.getMonth(), 1)
    // "this spring" said in November of a plan is the coming one
    const over = new Date(date.getFullYear(), date.getMonth() + 3, 1) <= reference
    if (enOffset(m[1]) === 0 && !past && over) date = new Date(date.getFullYear() + 1, date.getMonth(), 1)
    const label = `${season} ${date.getFullYear()}`
    add(m.index, m[0], date, 'season', (own) => (own ? `in ${label}` : label))
  }
  // this morning, this afternoon, this evening: the day it was said
  for (const m of text.matchAll(/\bthis\s+(morning|afternoon|evening)\b/gi)) {
    add(m.index, m[0], startOfDay(reference), 'day', () => `on the ${m[1].toLowerCase()} of ${enDay(reference)}`)
  }
  // a few weeks ago, several months ago: before the day it was said
  for (const m of text.matchAll(/\b(a few|a couple of|several|a couple|few)\s+(days|weeks|months|years)\s+ago\b/gi)) {
    const label = `${EN_MONTHS[reference.getMonth()]} ${reference.getDate()}, ${reference.getFullYear()}`
    const unit = m[2].toLowerCase()
    const precision: DatePrecision = unit === 'days' ? 'day' : unit === 'weeks' ? 'week' : unit === 'months' ? 'month' : 'year'
    add(m.index, m[0], startOfDay(reference), precision, () => `${m[1].toLowerCase()} ${unit} before ${label}`)
  }
  // the day-sized expressions and "in N months", computed by chrono-node
  const anchors = new RegExp(
    [
      'the\\s+day\\s+after\\s+tomorrow',
      'the\\s+day\\s+before\\s+yesterday',
      `(?:tomorrow|yesterday)(?:\\s+${EN_PARTS})?`,
      'today|tonight|last\\s+night',
      '(?:(?:this\\s+coming|coming|this|next|last)\\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day',
      `in\\s+${EN_NUMBER}\\s+(?:days?|weeks?|months?|years?)`,
      `${EN_NUMBER}\\s+(?:days?|weeks?|months?|years?)\\s+ago`,
    ]
      .map((form) => `\\b(?:${form})\\b`)
      .join('|'),
    'gi',
  )
  for (const m of text.matchAll(anchors)) {
    if (/\b(?:every|each)\s+$/i.test(text.slice(0, m.index)) || (habitual && /^(?:mon|tues|wednes|thurs|fri|satur|sun)day$/i.test(m[0])))
      continue // every Monday recurs
    // the weekday of a date already written: "Wednesday, December 2, 2026"
    if (new RegExp(`^,?\\s+(?:${EN_MONTHS.join('|')})\\s+\\d`, 'i').test(text.slice(m.index + m[0].length))) continue
    const said = m[0].replace(/^(this\s+coming|coming)\s+/i, '')
    const [result] = chrono.en.parse(said, reference, { forwardDate: !past && !/^last\b/i.test(said) })
    if (!result || result.index !== 0 || result.text.length !== said.length) continue
    let date = startOfDay(result.start.date())
    if (past && /^(?:mon|tues|wednes|thurs|fri|satur|sun)day$/i.test(said) && date > reference) date = addDays(date, -7)
    const unit = /\b(month|year)s?\b/i.exec(said)?.[1]?.toLowerCase()
    if (unit === 'year') {
      add(m.index, m[0], date, 'year', (own) => (own ? `in ${date.getFullYear()}` : `${date.getFullYear()}`))
      continue
    }
    if (unit === 'month') {
      const label = `${EN_MONTHS[date.getMonth()]} ${date.getFullYear()}`
      add(m.index, m[0], date, 'month', (own) => (own ? `in ${label}` : label))
      continue
    }
    const part = /\b(morning|afternoon|evening|night)$/i.exec(said)?.[1] ?? (/^tonight$/i.test(said) ? 'evening' : undefined)
    add(m.index, m[0], date, 'day', (own) =>
      part ? `on the ${part.toLowerCase()} of ${enDay(date)}` : own ? `on ${enDay(date)}` : enDay(date),
    )
  }
  return found
}

/**
 * The month (0–11) or season starting in that month, `offset` occurrences away: next (1) is the
 * first one after the current month, this (0) the one of this year, last (-1) the latest before.
 */
function periodOf(month: number, offset: number, reference: Date): Date {
  const current = reference.getMonth()
  let year = reference.getFullYear()
  if (offset > 0) year += month > current ? 0 : 1
  else if (offset < 0) year -= month < current ? 0 : 1
  return new Date(year, month, 1)
}
