import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { KnowledgeExtractor } from '../../src/knowledge/extractor'
import { quiet } from '../fakes/logger'

const extractor = new KnowledgeExtractor(quiet)
const say = (userId: string, name: string, content: string): Turn => ({ role: 'user', name, content, userId })

describe('KnowledgeExtractor offline', () => {
  it('reads Chinese names, places and organisations with jieba, and the speaker’s own statements by rules', () => {
    const draft = extractor.extract([say('u1', '阿伟', '我叫张伟，我住在上海，在腾讯工作。我喜欢吃火锅。我比较内向')])
    const names = Object.fromEntries(draft.entities.map((entity) => [entity.name, entity.type]))
    expect(names).toMatchObject({ 阿伟: 'PERSON', 上海: 'LOCATION', 腾讯: 'ORGANIZATION' })
    expect(draft.entities.find((entity) => entity.name === '阿伟')).toMatchObject({ aliases: ['张伟'], userId: 'u1' })
    expect(draft.relations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: '阿伟', predicate: '住在', object: '上海' }),
        expect.objectContaining({ subject: '阿伟', predicate: '工作于', object: '腾讯' }),
      ]),
    )
    expect(draft.preferences).toEqual([expect.objectContaining({ userId: 'u1', key: '喜欢', value: '吃火锅' })])
    expect(draft.traits).toEqual([expect.objectContaining({ userId: 'u1', name: '内向' })])
  })

  it('reads kinship between named people (X是Y的Z) and a move (搬到 → 住在)', () => {
    const draft = extractor.extract([say('u1', '小红', '小明是我的哥哥，他下个月结婚'), say('u1', '小红', '我搬到成都了')])
    expect(draft.relations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: '小红', predicate: '哥哥', object: '小明' }),
        expect.objectContaining({ subject: '小红', predicate: '住在', object: '成都' }),
      ]),
    )
  })

  it('reads English people, places and organisations with compromise, and the rules', () => {
    const draft = extractor.extract([
      say('u2', 'bob', "I'm Bob Smith. I live in Paris and I work at Google. Carol is my sister. I love jazz and I don't like olives."),
    ])
    const names = Object.fromEntries(draft.entities.map((entity) => [entity.name, entity.type]))
    expect(names).toMatchObject({ Paris: 'LOCATION', Google: 'ORGANIZATION', Carol: 'PERSON' })
    expect(draft.entities.find((entity) => entity.userId === 'u2')?.aliases).toEqual(['Bob Smith'])
    expect(draft.relations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: 'bob', predicate: 'lives in', object: 'Paris' }),
        expect.objectContaining({ subject: 'bob', predicate: 'works at', object: 'Google' }),
        expect.objectContaining({ subject: 'bob', predicate: 'sister', object: 'Carol' }),
      ]),
    )
    expect(draft.preferences).toEqual([expect.objectContaining({ key: 'likes', value: 'jazz' })])
  })

  it('reads clauses that go on with the subject left out after a comma or 顿号 (zh)', () => {
    const draft = extractor.extract([
      say('u1', '阿明', '我叫小明，是一名大学老师，住在成都。'),
      say('u1', '阿明', '我是成都人、喜欢打羽毛球'),
    ])
    expect(draft.relations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: '阿明', predicate: '住在', object: '成都' }),
        expect.objectContaining({ subject: '阿明', predicate: '来自', object: '成都' }),
      ]),
    )
    expect(draft.entities.find((entity) => entity.userId === 'u1')?.aliases).toEqual(['小明'])
    expect(draft.preferences).toEqual([expect.objectContaining({ key: '喜欢', value: '打羽毛球' })])
  })

  it('does not give the speaker a clause another subject or another sentence says (zh)', () => {
    const draft = extractor.extract([say('u1', '阿明', '我叫小明，他住在北京。住在成都的人很多')])
    expect(draft.relations).toEqual([])
  })

  it('reads clauses that go on with "I" left out (en)', () => {
    const draft = extractor.extract([
      say('u2', 'alice', "I'm Alice, a teacher, and I live in Paris"),
      say('u2', 'alice', "I'm Alice, living in Paris now, working at Google and love jazz"),
    ])
    expect(draft.relations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: 'alice', predicate: 'lives in', object: 'Paris' }),
        expect.objectContaining({ subject: 'alice', predicate: 'works at', object: 'Google' }),
      ]),
    )
    expect(draft.preferences).toEqual([expect.objectContaining({ key: 'likes', value: 'jazz' })])
    const other = extractor.extract([say('u2', 'alice', 'Bob is tall, living in Berlin')])
    expect(other.relations).toEqual([])
  })

  it('marks "no longer" as a stopped preference, and takes nothing from the bot’s turns', () => {
    const draft = extractor.extract([
      say('u2', 'bob', "I don't like olives anymore"),
      { role: 'assistant', name: 'bot', content: 'I live in Berlin and I love Tokyo' },
    ])
    expect(draft.preferences).toEqual([expect.objectContaining({ key: 'likes', value: 'olives', stopped: true })])
    expect(draft.entities.map((entity) => entity.name)).not.toContain('Berlin')
  })
})

describe('KnowledgeExtractor with the model’s answer', () => {
  const turns = [
    say('u1', 'Alice', 'I moved to Shanghai last month, my brother Tom still lives in Chengdu'),
    say('u2', 'Bob', 'I love sushi'),
  ]

  it('uses the model’s entities, relations and preferences and skips the rules', () => {
    const draft = extractor.extract(turns, {
      facts: [],
      reason: '',
      entities: [
        { name: 'Shanghai', type: 'LOCATION', turns: [0] },
        { name: 'Tom', type: 'PERSON', turns: [0] },
        { name: 'Chengdu', type: 'LOCATION', turns: [0] },
      ],
      relations: [
        { subject: 'Alice', predicate: 'moved to', object: 'Shanghai', turns: [0] },
        { subject: 'Tom', predicate: 'lives in', object: 'Chengdu', turns: [0] },
      ],
      preferences: [{ about: 'Bob', key: 'food', value: 'sushi', turns: [1] }],
    })
    // the speaker named as a relation's end becomes an entity
    expect(draft.entities.find((entity) => entity.name === 'Alice')).toMatchObject({ type: 'PERSON', userId: 'u1' })
    expect(draft.relations.map((relation) => relation.predicate)).toEqual(['lives in', 'lives in'])
    expect(draft.preferences).toEqual([expect.objectContaining({ userId: 'u2', key: 'food', value: 'sushi', turns: [1] })])
  })

  it('drops malformed items and preferences drawn from what someone else said', () => {
    const draft = extractor.extract(turns, {
      facts: [],
      reason: '',
      entities: [
        { name: '  ', type: 'PERSON' },
        { name: 'Tom', type: 'NOT-A-TYPE' as 'OTHER', turns: [7, -1] },
      ],
      relations: [
        { subject: 'Tom', predicate: '', object: 'Chengdu' },
        { subject: 'Tom', predicate: 'is', object: 'Tom' },
      ],
      // Alice's turn said nothing of Bob's taste
      preferences: [
        { about: 'Bob', key: 'food', value: 'noodles', turns: [0] },
        { about: 'Nobody', key: 'x', value: 'y' },
      ],
    })
    expect(draft.entities).toEqual([expect.objectContaining({ name: 'Tom', type: 'OTHER', turns: [] })])
    expect(draft.relations).toEqual([])
    expect(draft.preferences).toEqual([])
  })

  it('falls back to the rules when the answer carries no knowledge', () => {
    const draft = extractor.extract(turns, { facts: [], reason: '' })
    expect(draft.preferences).toEqual([expect.objectContaining({ userId: 'u2', key: 'likes', value: 'sushi' })])
  })
})
