import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { RuleJudge } from '../../src/facts/rule-judge'
import { resolveRelativeDates } from '../../src/text/dates'

const judge = new RuleJudge()
const sunday = new Date(2023, 9, 15, 20, 0)
const alone = (content: string, name = /[\u4e00-\u9fff]/.test(content) ? '小明' : 'Alice'): Turn[] => [
  { role: 'user', name, content, time: sunday },
]
const factsOf = async (turns: Turn[]) => (await judge.extract(turns, { now: sunday })).facts.map((fact) => fact.statement)

describe('the third person keeps the speaker’s words (English)', () => {
  it('an adverb before the verb is no verb: "completely understand" never becomes "completelies"', async () => {
    expect(await factsOf(alone('I completely forgot my keys at the gym.'))).toEqual([
      'Alice completely forgot Alice’s keys at the gym.'.replace('’', "'"),
    ])
    expect(await factsOf(alone('I personally prefer tea over coffee.'))).toEqual(['Alice personally prefers tea over coffee.'])
    expect(await factsOf(alone('I once went to Paris.'))).toEqual(['Alice once went to Paris.'])
  })

  it('an auxiliary agrees with the name: "I have been learning" → "Alice has been learning"', async () => {
    expect(await factsOf(alone('I have been learning pottery on weekends.'))).toEqual(['Alice has been learning pottery on weekends.'])
    expect(await factsOf(alone('I do love a good burrito.'))).toEqual(['Alice does love a good burrito.'])
  })

  it('a first-person reflexive keeps the words, named: no "Alice and others … ourselves"', async () => {
    expect(await factsOf(alone('We did the whole renovation ourselves.'))).toEqual(['Alice said: We did the whole renovation ourselves.'])
    expect(await factsOf(alone('I taught myself to code in 2019.'))).toEqual(['Alice said: I taught myself to code in 2019.'])
  })

  it('quoted words stay in the voice of who said them', async () => {
    expect(await factsOf(alone('My sister told me "I\'m moving to Berlin".'))).toEqual([
      'Alice\'s sister told Alice "I\'m moving to Berlin".',
    ])
  })

  it('reported speech without quotes is the speaker’s view of it, for the person who said it', async () => {
    expect(await factsOf(alone('My mom said I should become a doctor.'))).toEqual(["Alice's mom said Alice should become a doctor."])
  })

  it('what is said to the listener (plans for them, advice) is no fact of the speaker; a past told with "you" keeps the words', async () => {
    expect(await factsOf(alone("I'll pick you up at the station tomorrow at 8."))).toEqual([])
    expect(await factsOf(alone('You should totally try the new ramen place.'))).toEqual([])
    const group: Turn[] = [
      { role: 'user', name: 'Bob', content: 'How was the café?', time: sunday },
      { role: 'user', name: 'Alice', content: 'I went to the café you recommended last week.', time: sunday },
    ]
    expect(await factsOf(group)).toEqual(['Alice told Bob: I went to the café you recommended in the week of October 2, 2023.'])
  })

  it('a possessive time is no date: "Tonight\'s" stays, "tomorrow\'s gonna" is "tomorrow is"', () => {
    expect(resolveRelativeDates("Tonight's conversation reminded Alice of Alice's trip.", sunday, 'en')).toBe(
      "Tonight's conversation reminded Alice of Alice's trip.",
    )
    expect(resolveRelativeDates("Tomorrow's gonna be a blast.", sunday, 'en')).toBe('Monday, October 16, 2023 is gonna be a blast.')
    expect(resolveRelativeDates("Tomorrow's meeting is at 9.", sunday, 'en')).toBe("Tomorrow's meeting is at 9.")
  })

  it('keeps what the speaker says of their own life with the subject left out or as an object', async () => {
    expect(await factsOf(alone("Counting down the days 'til our hike!"))).toEqual(["Alice is counting down the days 'til Alice's hike."])
    expect(await factsOf(alone('Dogs and nature bring me so much joy and peace.'))).toEqual([
      'Dogs and nature bring Alice so much joy and peace.',
    ])
    expect(await factsOf(alone('There was this one time my pup got too excited and chased a squirrel.'))).toEqual([
      "There was this one time Alice's pup got too excited and chased a squirrel.",
    ])
    expect(await factsOf(alone("Roasted chicken is one of my favorites - I'll send you the recipe."))).toEqual([
      "Roasted chicken is one of Alice's favorites.",
    ])
  })

  it('an imperative or a reaction is still no fact', async () => {
    expect(await factsOf(alone('Let me know how it goes!'))).toEqual([])
    expect(await factsOf(alone('Anyway, enough about me, tell me about your week!'))).toEqual([])
    expect(await factsOf(alone('I love this photo!'))).toEqual([])
  })
})

describe('the third person keeps the speaker’s words (Chinese)', () => {
  it('quoted words stay as said, the colon after 说 does not cut the statement', async () => {
    expect(await factsOf(alone('我妈说："我为你骄傲"'))).toEqual(['小明的妈妈说："我为你骄傲"。'])
  })

  it('a kinship word is read whole: 我爸妈 → 小明的爸妈, not 小明的爸爸妈', async () => {
    expect(await factsOf(alone('我爸妈下周来北京看我'))).toEqual(['小明的爸妈2023年10月16日至22日那周来北京看小明。'])
  })

  it('what the speaker will do for the listener is said to someone, no fact of theirs', async () => {
    expect(await factsOf(alone('我明天带你去吃火锅'))).toEqual([])
    expect(await factsOf(alone('我养的鹦鹉会说你好'))).toEqual(['小明养的鹦鹉会说你好。'])
  })

  it('a past told to someone in a group keeps the words, named with whom it was told', async () => {
    const group: Turn[] = [
      { role: 'user', name: '阿杰', content: '你上次说的那家店怎么样', time: sunday },
      { role: 'user', name: '小美', content: '我昨天带你说的那只猫去打了疫苗', time: sunday },
    ]
    expect(await factsOf(group)).toEqual(['小美对阿杰说：我2023年10月14日（周六）带你说的那只猫去打了疫苗。'])
  })
})

describe('an answer to a question about the speaker is kept with its question, in their words', () => {
  it('English: "How was your trip?" → "It was amazing…" is kept; small talk and advice in reply are not', async () => {
    const trip: Turn[] = [
      { role: 'user', name: 'Bob', content: 'How was your trip to Lisbon?', time: sunday },
      {
        role: 'user',
        name: 'Alice',
        content: 'Thanks! It was amazing. Exploring the old town and trying all the pastries was the best part.',
        time: sunday,
      },
    ]
    expect(await factsOf(trip)).toEqual([
      // "It was amazing." alone says too little to be kept
      'Alice, asked "How was your trip to Lisbon?", said: Exploring the old town and trying all the pastries was the best part.',
    ])
    const advice: Turn[] = [
      { role: 'user', name: 'Bob', content: 'What should I cook tonight, any ideas for you?', time: sunday },
      { role: 'user', name: 'Alice', content: 'You should try a simple pasta with garlic and olive oil.', time: sunday },
    ]
    expect(await factsOf(advice)).toEqual([])
    const thanks: Turn[] = [
      { role: 'user', name: 'Bob', content: 'Did you like it?', time: sunday },
      { role: 'user', name: 'Alice', content: 'Yes, thanks so much!', time: sunday },
    ]
    expect(await factsOf(thanks)).toEqual([])
  })

  it('a question without "you" about what the speaker shows is answered of their own too', async () => {
    const flowers: Turn[] = [
      { role: 'user', name: 'Bob', content: 'Those flowers look great! What kind are they?', time: sunday },
      { role: 'user', name: 'Alice', content: "They're called Peruvian lilies. Haha!", time: sunday },
    ]
    expect(await factsOf(flowers)).toEqual(['Alice, asked "What kind are they?", said: They\'re called Peruvian lilies.'])
  })

  it('Chinese: "你新工作怎么样？" → an answer of substance is kept with the question', async () => {
    const job: Turn[] = [
      { role: 'user', name: '阿杰', content: '你新工作怎么样？', time: sunday },
      { role: 'user', name: '小美', content: '挺好的，同事都很照顾新人，就是通勤要一个半小时。', time: sunday },
    ]
    expect(await factsOf(job)).toEqual(['小美被问到“你新工作怎么样？”时说：挺好的，同事都很照顾新人，就是通勤要一个半小时。'])
  })

  it('a line opened by a negative auxiliary without a question mark states, it does not ask', async () => {
    expect(await factsOf(alone("Can't wait to start my new job at the library on Monday."))).toEqual([
      "Alice can't wait to start Alice's new job at the library on Monday, October 16, 2023.",
    ])
  })
})

describe('a month said without its year gets the nearest one', () => {
  const july = new Date(2026, 6, 2, 9, 15)
  it.each([
    ["We're moving to Austin in September.", "We're moving to Austin in September 2026."],
    ['I started a new job in March.', 'I started a new job in March 2026.'],
    ['I have been vegetarian since March.', 'I have been vegetarian since March 2026.'],
    ['The course starts in early October.', 'The course starts in early October 2026.'],
    ['I may go in May.', 'I may go in May 2027.'],
    // a birthday or a habit recurs; a year or a day already said stays
    ['My birthday is in September.', 'My birthday is in September.'],
    ['I go skiing in January every year.', 'I go skiing in January every year.'],
    ['I met her in May 2019.', 'I met her in May 2019.'],
  ])('%s → %s', (said, resolved) => {
    expect(resolveRelativeDates(said, july, 'en')).toBe(resolved)
  })
})

describe('a promise to the listener after a comma is cut off the statement before it', () => {
  it("I plan to return on July 20, I'll bring you a souvenir → the plan alone", async () => {
    expect(await factsOf(alone("I plan to return on July 20, I'll definitely bring you some kind of souvenir!"))).toEqual([
      'Alice plans to return on July 20.',
    ])
  })
})
