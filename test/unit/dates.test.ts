import { describe, expect, it } from 'vitest'
import { findRelativeDates, resolveRelativeDates } from '../../src/text/dates'

// local time, so the expectations hold in any time zone the tests run in
const thursday = new Date(2026, 10, 26, 10, 0) // Thursday 2026-11-26
const saturday = new Date(2026, 10, 28, 10, 0)
const march = new Date(2026, 2, 10, 10, 0)

describe('resolveRelativeDates (Chinese)', () => {
  it.each([
    ['小明下周三要去上海出差', '小明2026年12月2日（周三）要去上海出差'],
    ['小明明天去北京', '小明2026年11月27日（周五）去北京'],
    ['小明后天考试', '小明2026年11月28日（周六）考试'],
    ['小明大后天回家', '小明2026年11月29日（周日）回家'],
    ['小明昨天去了医院', '小明2026年11月25日（周三）去了医院'],
    ['小明前天搬了家', '小明2026年11月24日（周二）搬了家'],
    ['小明今天生日', '小明2026年11月26日（周四）生日'],
    ['小明今晚要加班', '小明2026年11月26日（周四）晚上要加班'],
    ['小明明早八点的飞机', '小明2026年11月27日（周五）早上八点的飞机'],
    ['小明下星期一面试', '小明2026年11月30日（周一）面试'],
    ['小明上周五去了医院', '小明2026年11月20日（周五）去了医院'],
    ['小明三天后考试', '小明2026年11月29日（周日）考试'],
    ['小明周五要考试', '小明2026年11月27日（周五）要考试'],
  ])('%s → %s (chrono-node)', (said, resolved) => {
    expect(resolveRelativeDates(said, thursday, 'zh')).toBe(resolved)
  })

  it.each([
    ['小明周末去爬山', '小明2026年11月28日至29日（周末）去爬山'],
    ['小明这周末去爬山', '小明2026年11月28日至29日（周末）去爬山'],
    ['小明下周末搬家', '小明2026年12月5日至6日（周末）搬家'],
    ['小明下周要搬家', '小明2026年11月30日至12月6日那周要搬家'],
    ['小明下个月要去日本旅游', '小明2026年12月要去日本旅游'],
    ['小明上个月换了工作', '小明2026年10月换了工作'],
    ['小明下个月底交论文', '小明2026年12月底交论文'],
    ['小明下个月5号考试', '小明2026年12月5日（周六）考试'],
    ['小明明年去留学', '小明2027年去留学'],
    ['小明明年三月结婚', '小明2027年三月结婚'],
    ['小明去年毕业了', '小明2025年毕业了'],
    ['小明今年28岁', '小明2026年28岁'],
    ['小明两周后回国', '小明2026年12月10日（周四）回国'],
    ['小明三个月后毕业', '小明2027年2月毕业'],
  ])('%s → %s (rules for what chrono-node misses)', (said, resolved) => {
    expect(resolveRelativeDates(said, thursday, 'zh')).toBe(resolved)
  })

  it('reads a bare weekday in a statement about the past as the last one, 这周X as this week’s', () => {
    expect(resolveRelativeDates('小明周五去了医院', thursday, 'zh')).toBe('小明2026年11月20日（周五）去了医院')
    expect(resolveRelativeDates('小明这周四去了医院', saturday, 'zh')).toBe('小明2026年11月26日（周四）去了医院')
    expect(resolveRelativeDates('小明周四要考试', saturday, 'zh')).toBe('小明2026年12月3日（周四）要考试')
    expect(resolveRelativeDates('小明他们周日约了去爬山', saturday, 'zh')).toBe('小明他们2026年11月29日（周日）约了去爬山')
  })

  it('leaves absolute dates, recurring days and look-alikes as said', () => {
    for (const said of ['小明的生日是3月5日', '小明每周三上课', '小明家这周围有很多餐馆', '小明和女朋友在一起十周年了', '小明喜欢吃月饼']) {
      expect(resolveRelativeDates(said, thursday, 'zh')).toBe(said)
    }
  })
})

describe('resolveRelativeDates (English)', () => {
  it.each([
    ['Alice flies to Paris tomorrow', 'Alice flies to Paris on Friday, November 27, 2026'],
    ['Alice has a test tomorrow morning', 'Alice has a test on the morning of Friday, November 27, 2026'],
    ['Alice has a meeting next Monday at 10am', 'Alice has a meeting on Monday, November 30, 2026 at 10am'],
    ["Alice's exam is on Friday", "Alice's exam is on Friday, November 27, 2026"],
    ['Alice went there on Friday', 'Alice went there on Friday, November 20, 2026'],
    ['Alice quit her job last Friday', 'Alice quit her job on Friday, November 20, 2026'],
    ['Alice has a dentist appointment in three days', 'Alice has a dentist appointment on Sunday, November 29, 2026'],
    ['Alice must finish by tomorrow', 'Alice must finish by Friday, November 27, 2026'],
    ['Alice went to a concert last night', 'Alice went to a concert on the night of Wednesday, November 25, 2026'],
    ['Alice will see her sister tonight', 'Alice will see her sister on the evening of Thursday, November 26, 2026'],
    ['Alice graduates in two months', 'Alice graduates in January 2027'],
  ])('%s → %s (chrono-node)', (said, resolved) => {
    expect(resolveRelativeDates(said, thursday, 'en')).toBe(resolved)
  })

  it.each([
    ['Alice is going to Tokyo next September', 'Alice is going to Tokyo in September 2027'],
    ['Alice is moving next month', 'Alice is moving in December 2026'],
    ['Alice starts a new job next week', 'Alice starts a new job in the week of November 30, 2026'],
    ['Alice is getting married next year', 'Alice is getting married in 2027'],
    ['Alice goes camping this weekend', 'Alice goes camping on the weekend of November 28–29, 2026'],
    ['Alice visits her mom next summer', 'Alice visits her mom in summer 2027'],
  ])('%s → %s (rules for what chrono-node misses or reads as a day)', (said, resolved) => {
    expect(resolveRelativeDates(said, thursday, 'en')).toBe(resolved)
  })

  it('takes the next month or season after the current one', () => {
    expect(resolveRelativeDates('Alice goes to Tokyo next September', march, 'en')).toBe('Alice goes to Tokyo in September 2026')
    expect(resolveRelativeDates('Alice was in Rome last summer', march, 'en')).toBe('Alice was in Rome in summer 2025')
  })

  it('leaves absolute dates, ages, recurring days and words that only look like dates as said', () => {
    for (const said of [
      "Alice's birthday is March 5th",
      'Alice is 30 years old',
      'Alice sat on the 2nd floor',
      'Alice works 9 to 5',
      'Alice plays tennis every Monday',
    ]) {
      expect(resolveRelativeDates(said, thursday, 'en')).toBe(said)
    }
  })
})

describe('resolveRelativeDates on its own output', () => {
  it('changes nothing more: a written date keeps its weekday', () => {
    for (const [said, language] of [
      ['小明下周三要去上海出差，周末去爬山，明年去留学', 'zh'],
      ['Alice flies to Paris next Wednesday and goes camping this weekend', 'en'],
    ] as const) {
      const once = resolveRelativeDates(said, thursday, language)
      expect(once).not.toBe(said)
      expect(resolveRelativeDates(once, saturday, language)).toBe(once)
    }
  })
})

describe('findRelativeDates', () => {
  it('reports each expression once, with its precision, in order', () => {
    const found = findRelativeDates('小明明天去北京，下个月去上海', thursday, 'zh')
    expect(found.map((f) => [f.text, f.precision])).toEqual([
      ['明天', 'day'],
      ['下个月', 'month'],
    ])
    expect(found[1].date).toEqual(new Date(2026, 11, 1))
  })

  it('follows the reference: the same words said a week later name another day', () => {
    const later = new Date(2026, 11, 3, 10, 0)
    expect(resolveRelativeDates('小明下周三要去上海出差', later, 'zh')).toBe('小明2026年12月9日（周三）要去上海出差')
  })
})

describe('a date after a Latin name', () => {
  it('is set apart by a space, so the name and the year do not run together', () => {
    expect(resolveRelativeDates('alice下个月要去日本', thursday, 'zh')).toBe('alice 2026年12月要去日本')
    expect(resolveRelativeDates('user1明年去留学', thursday, 'zh')).toBe('user1 2027年去留学')
    // as a model writes it, with the date already absolute
    expect(resolveRelativeDates('Bob2026年12月2日要去上海出差。', thursday, 'zh')).toBe('Bob 2026年12月2日要去上海出差。')
  })

  it('leaves a date after Chinese text, or inside a word, as it is', () => {
    expect(resolveRelativeDates('小明下个月要去日本', thursday, 'zh')).toBe('小明2026年12月要去日本')
    expect(resolveRelativeDates('群友A打算明年去日本留学', thursday, 'zh')).toBe('群友A打算2027年去日本留学')
    expect(resolveRelativeDates('alice 下个月要去日本', thursday, 'zh')).toBe('alice 2026年12月要去日本')
  })
})
