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
