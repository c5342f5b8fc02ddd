import { describe, expect, it } from 'vitest'
import { summarizeProfile } from '../../src/knowledge/profile-text'
import type { Preference } from '../../src/knowledge/types'
import { ruleFindings } from '../../src/knowledge/rules'

const like = (key: string, value: string): Preference => ({ key, value, confidence: 0.8, sourceIds: [], validFrom: 0, validTo: null })

describe('the offline profile', () => {
  it('says each like once: not again as a known fact, and likes said in two languages on one line', () => {
    const text = summarizeProfile(
      {
        userName: 'alice',
        preferences: [like('喜欢', '吃四川火锅'), like('喜欢', '猫'), like('likes', 'hiking'), like('喜欢', '猫')],
        traits: [],
        facts: ['alice喜欢猫。', 'alice喜欢吃四川火锅。', 'Alice loves hiking.', 'alice住在成都。'],
      },
      'zh',
    )
    expect(text).toBe('喜欢：吃四川火锅、猫、hiking。已知：alice住在成都。')
  })

  it('puts a space after an English sentence and none after a Chinese one', () => {
    const text = summarizeProfile(
      { userName: 'bob', preferences: [like('likes', 'sushi')], traits: [], facts: ['Bob lives in Osaka.', 'bob在大阪工作。'] },
      'en',
    )
    expect(text).toBe('Likes: sushi. Known: Bob lives in Osaka. bob在大阪工作。')
  })
})

describe('a favourite said as 我最喜欢的X是Y', () => {
  it('likes Y, not "的X是Y"', () => {
    expect(ruleFindings('我最喜欢的运动是游泳').preferences).toEqual([{ key: '喜欢', value: '游泳' }])
    expect(ruleFindings('我喜欢吃火锅').preferences).toEqual([{ key: '喜欢', value: '吃火锅' }])
  })
})
