import { describe, expect, it } from 'vitest'
import { contentTerms, matchTerms } from '../../src/text/keywords'
import { nameTerms } from '../../src/text/names'
import { slotTerm } from '../../src/text/slots'
import { baseForm } from '../../src/text/word-forms'

const shared = (a: string[], b: string[]) => a.filter((term) => b.includes(term))

describe('question words', () => {
  it('are not content, in Chinese (characters and bigrams included) and in English', () => {
    for (const question of ['我的猫叫什么名字', '我住在哪里？', '你去过哪儿', '咋样', '为啥不去']) {
      expect(matchTerms(question).some((term) => /[什哪啥咋儿]/.test(term))).toBe(false)
    }
    expect(matchTerms('Where do I live? What is her name, and which city, when, who, how?')).not.toEqual(
      expect.arrayContaining(['where', 'what', 'which', 'when', 'who', 'how']),
    )
  })
})

describe('Chinese nicknames and parts of words', () => {
  it('match by the word and by their characters', () => {
    expect(shared(matchTerms('元旦晚会我要表演魔术'), matchTerms('圣诞晚会上跳舞'))).toEqual(expect.arrayContaining(['\u0001晚']))
    expect(shared(matchTerms('咪咪今天吃了什么'), matchTerms('alice养了一只猫，叫咪咪'))).toEqual(expect.arrayContaining(['咪咪']))
  })
})

describe('slots', () => {
  it('lets the word that names something meet the word that asks for a name', () => {
    expect(slotTerm('名字')).toBe(slotTerm('叫'))
    expect(slotTerm('name')).toBe(slotTerm('called'))
    expect(slotTerm('猫')).toBeUndefined()
    const question = matchTerms('我的猫的名字是什么')
    const fact = matchTerms('alice养了一只猫，叫咪咪')
    expect(shared(question, fact)).toContain(slotTerm('名字'))
    expect(shared(matchTerms("what's her cat's name"), matchTerms('She has a cat called Mimi'))).toContain(slotTerm('name'))
  })
})

describe('English word forms', () => {
  it('folds irregular forms to their base, and regular ones by the stemmer', () => {
    expect(baseForm('went')).toBe('go')
    expect(baseForm('bought')).toBe('buy')
    expect(baseForm('children')).toBe('child')
    expect(baseForm('feed')).toBe('feed')
    expect(shared(contentTerms('When did she go to Paris?'), contentTerms('She went to Paris in May'))).toEqual(contentTerms('go Paris'))
    expect(shared(contentTerms('What did he buy?'), contentTerms('He bought a bike'))).toEqual(contentTerms('buy'))
    expect(new Set(['live', 'lives', 'lived', 'living'].map((word) => contentTerms(word)[0])).size).toBe(1)
    expect(shared(contentTerms('Where do I live?'), contentTerms('Tom lives in Chengdu'))).toHaveLength(1)
  })
})

describe('nameTerms', () => {
  it('finds the names of people, not places, question words or acronyms', () => {
    expect([...nameTerms("Which bonds are in Alice's portfolio?")]).toEqual(matchTerms('Alice'))
    expect([...nameTerms("Alice's cat is called Tom")].sort()).toEqual([...matchTerms('Alice Tom')].sort())
    expect(nameTerms('Where do I live? Tom flew to Tokyo, then Paris. Books about LGBTQ history.')).toEqual(new Set(matchTerms('Tom')))
    expect(nameTerms('alice养了一只猫').has(matchTerms('alice')[0])).toBe(true)
  })

  it('finds Chinese names by the dictionary and by surname, not other new words', () => {
    expect(nameTerms('张伟是我的同事').has('\u0002张伟')).toBe(true)
    expect(nameTerms('元旦晚会我要表演魔术').size).toBe(0)
  })
})
