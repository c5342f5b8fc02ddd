import { describe, expect, it } from 'vitest'
import { KnowledgeExtractor } from '../../src/knowledge/extractor'
import { isEntityName } from '../../src/knowledge/entity-names'
import { chineseEntities, englishEntities } from '../../src/knowledge/named-entities'
import { quiet } from '../fakes/logger'
import { entityScores } from '../../bench/lib/entity-set'

const typed = (found: { name: string; type: string }[]) => Object.fromEntries(found.map((entity) => [entity.name, entity.type]))

describe('entity names', () => {
  it('are never question words, pronouns, demonstratives or generic nouns (zh)', () => {
    for (const word of [
      '哪里',
      '什么',
      '谁',
      '这个',
      '那里',
      '这儿',
      '某人',
      '大家',
      '自己',
      '东西',
      '地方',
      '哥哥',
      '吉他',
      '医生',
      '我的猫',
      '你家',
    ])
      expect(isEntityName(word), word).toBe(false)
    for (const word of ['成都', '咪咪', '张伟', '腾讯', '北京大学']) expect(isEntityName(word), word).toBe(true)
  })

  it('are never question words, pronouns, demonstratives or generic nouns (en)', () => {
    for (const word of ['where', 'What', 'this', 'That', 'It', 'someone', 'Someone', 'the', 'Mom', 'home', 'Monday'])
      expect(isEntityName(word), word).toBe(false)
    for (const word of ['Chengdu', 'Mimi', 'Google', 'New York', "St. Mary's Hospital"]) expect(isEntityName(word), word).toBe(true)
  })
})

describe('entity types follow the evidence (zh)', () => {
  it('a common noun the dictionary tags as a place or a name is no entity (吉他, 汉堡, 巧克力)', () => {
    expect(chineseEntities('我最近在学吉他')).toEqual([])
    expect(chineseEntities('昨天吃了汉堡和薯条')).toEqual([])
    expect(chineseEntities('巧克力吃多了会胖')).toEqual([])
    expect(chineseEntities('晚上喝了点威士忌')).toEqual([])
  })

  it('a place by its dictionary tag, its suffix or the words around it; a workplace by 在…工作', () => {
    expect(typed(chineseEntities('我住在成都'))).toEqual({ 成都: 'LOCATION' })
    expect(typed(chineseEntities('我们公司搬到了望京'))).toEqual({ 望京: 'LOCATION' })
    expect(typed(chineseEntities('我在腾讯上班'))).toEqual({ 腾讯: 'ORGANIZATION' })
    expect(typed(chineseEntities('我爸爸在重庆工作'))).toEqual({ 重庆: 'LOCATION' })
    expect(typed(chineseEntities('我女儿在北京大学读书'))).toEqual({ 北京大学: 'ORGANIZATION' })
  })

  it('a person by the shape of a Chinese name or a surname with a title; a group of classmates is no organisation', () => {
    expect(typed(chineseEntities('张伟是我同事'))).toEqual({ 张伟: 'PERSON' })
    expect(typed(chineseEntities('陈老师布置了很多作业'))).toEqual({ 陈老师: 'PERSON' })
    expect(typed(chineseEntities('刘洋和我是高中同学'))).toEqual({ 刘洋: 'PERSON' })
  })

  it('a pet’s name is a neutral entity, never a person or a place', () => {
    const draft = new KnowledgeExtractor(quiet).extract([
      { role: 'user', name: 'alice', userId: 'u1', content: '我的狗叫旺财，是一只柯基' },
    ])
    expect(draft.entities.filter((entity) => !entity.userId).map((entity) => [entity.name, entity.type])).toEqual([['旺财', 'OTHER']])
  })
})

describe('entity types follow the evidence (en)', () => {
  it('finds people, places and organisations, and no pronoun or demonstrative', () => {
    expect(typed(englishEntities('My sister Emma just moved to Berlin'))).toEqual({ Emma: 'PERSON', Berlin: 'LOCATION' })
    expect(englishEntities('This is awesome. That place was packed. Someone left their umbrella here')).toEqual([])
  })
})

describe('the labelled entity set (test/fixtures/entities.jsonl)', () => {
  it('has at least 150 lines in both languages, a third held out', () => {
    const scores = entityScores('test/fixtures/entities.jsonl')
    expect(scores.all.lines).toBeGreaterThanOrEqual(150)
    expect(scores['held-out'].lines / scores.all.lines).toBeGreaterThanOrEqual(0.3)
  })

  it('entity precision is at least 0.9 on the tuning part and on the whole', () => {
    const scores = entityScores('test/fixtures/entities.jsonl')
    expect(scores.dev.entity_precision).toBeGreaterThanOrEqual(0.9)
    expect(scores.all.entity_precision).toBeGreaterThanOrEqual(0.9)
  })
})
