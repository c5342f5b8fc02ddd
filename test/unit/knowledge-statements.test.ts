import { describe, expect, it } from 'vitest'
import type { Extraction, Turn } from '../../src/facts/judge'
import { KnowledgeExtractor } from '../../src/knowledge/extractor'
import { ruleFindings } from '../../src/knowledge/rules'
import { nonStatementKind, statementsOf } from '../../src/text/non-statements'
import { quiet } from '../fakes/logger'

const extractor = new KnowledgeExtractor(quiet)
const say = (content: string): Turn => ({ role: 'user', name: 'alice', content, userId: 'u1' })
/** Everything a line teaches: entities other than the speaker, relations, preferences and traits. */
const learnt = (line: string) => {
  const draft = extractor.extract([say(line)])
  return [
    ...draft.entities.filter((entity) => !entity.userId).map((entity) => `entity ${entity.name}`),
    ...draft.relations.map((relation) => `${relation.subject} ${relation.predicate} ${relation.object}`),
    ...draft.preferences.map((preference) => `${preference.key} ${preference.value}`),
    ...draft.traits.map((trait) => `trait ${trait.name}`),
  ]
}

/** Per rule kind and language: a statement the rule reads, and lines in its words that state nothing. */
const KINDS: { kind: string; statement: string; learns: string; not: string[] }[] = [
  {
    kind: 'lives (zh)',
    statement: '我住在成都',
    learns: 'alice 住在 成都',
    not: ['我住在哪里？', '我住在哪儿', '我是不是住在成都？', '如果我住在成都就好了', '我想住在成都', '我不想住在成都'],
  },
  {
    kind: 'lives (en)',
    statement: 'I live in Chengdu',
    learns: 'alice lives in Chengdu',
    not: [
      'Where do I live?',
      'Do I live in Chengdu?',
      'If I lived in Chengdu I would be happy',
      'I wish I lived in Chengdu',
      "I don't want to live in Chengdu",
    ],
  },
  {
    kind: 'works (zh)',
    statement: '我在腾讯工作',
    learns: 'alice 工作于 腾讯',
    not: ['我在哪工作？', '我在什么公司工作', '要是我在腾讯工作就好了'],
  },
  {
    kind: 'works (en)',
    statement: 'I work at Google',
    learns: 'alice works at Google',
    not: ['Where do I work?', 'Do I work at Google?', 'Would I work at Google?'],
  },
  { kind: 'comes from (zh)', statement: '我是杭州人', learns: 'alice 来自 杭州', not: ['我是哪里人？', '我是杭州人吗'] },
  {
    kind: 'comes from (en)',
    statement: "I'm from Toronto",
    learns: 'alice is from Toronto',
    not: ['Where am I from?', 'Am I from Toronto?'],
  },
  { kind: 'kin (zh)', statement: '我的哥哥叫小明', learns: 'alice 哥哥 小明', not: ['我的哥哥叫什么？', '我哥哥叫啥来着', '谁是我的哥哥'] },
  {
    kind: 'kin (en)',
    statement: 'My brother is Jake',
    learns: 'alice brother Jake',
    not: ["What's my brother's name?", 'Who is my brother?'],
  },
  { kind: 'pet (zh)', statement: '我养了一只猫，叫咪咪', learns: 'alice 猫 咪咪', not: ['我的猫叫什么名字', '我的猫叫啥？'] },
  {
    kind: 'pet (en)',
    statement: 'My cat is called Mimi',
    learns: 'alice cat Mimi',
    not: ["What's my cat called?", 'What is my cat called'],
  },
  {
    kind: 'visited (zh)',
    statement: '我上周去了趟苏州',
    learns: 'alice 去过 苏州',
    not: ['我去了哪里？', '我是不是去过苏州', '我想去苏州', '我去了超市'],
  },
  {
    kind: 'visited (en)',
    statement: 'I went to Paris last summer',
    learns: 'alice visited Paris',
    not: ['Did I go to Paris?', 'Where did I go last summer?', 'I wish I went to Paris', 'I went to the gym'],
  },
  {
    kind: 'likes (zh)',
    statement: '我喜欢吃火锅',
    learns: '喜欢 吃火锅',
    not: ['我喜欢吃什么', '我喜欢吃啥？', '我喜欢吃火锅吗', '你觉得我喜欢什么'],
  },
  {
    kind: 'likes (en)',
    statement: 'I love hot pot',
    learns: 'likes hot pot',
    not: ['What do I love?', 'Do I love hot pot?', 'I would love hot pot'],
  },
  { kind: 'trait (zh)', statement: '我比较内向', learns: 'trait 内向', not: ['我比较内向吗？', '我是不是比较内向'] },
  { kind: 'trait (en)', statement: "I'm very shy", learns: 'trait shy', not: ['Am I very shy?', 'If I were very shy, I would stay home'] },
]

describe('questions, requests, hypotheticals and wishes never become knowledge', () => {
  for (const { kind, statement, learns, not } of KINDS) {
    it(`${kind}: learnt from the statement, never from a question or a supposition in its words`, () => {
      expect(learnt(statement)).toContain(learns)
      for (const line of not) expect(learnt(line), line).toEqual([])
    })
  }

  it('requests to the bot teach nothing, in both languages; a request to remember states what follows', () => {
    for (const line of [
      '帮我查一下北京明天的天气',
      '给我推荐一家成都的火锅店',
      '你帮我问问张伟在哪',
      'Please tell me the weather in London',
      'Can you recommend a restaurant in Paris?',
      'Find me a hotel in Rome',
    ])
      expect(learnt(line), line).toEqual([])
    expect(learnt('请记住我住在成都')).toContain('alice 住在 成都')
    expect(learnt('Remember that I live in Paris')).toContain('alice lives in Paris')
  })

  it('keeps the statement of a line that also asks, and the statement before a supposition', () => {
    expect(learnt('我住在成都，你呢？')).toContain('alice 住在 成都')
    expect(learnt('你住哪？我住在成都。')).toContain('alice 住在 成都')
    expect(learnt('I live in Paris. Where do you live?')).toContain('alice lives in Paris')
    expect(learnt('我住在成都，如果你来可以找我')).toContain('alice 住在 成都')
    // what follows a supposition depends on it
    expect(learnt('如果我搬到上海，我就住在浦东')).toEqual([])
  })

  it('reads an indefinite question word as a statement (我什么都吃), a real one as a question', () => {
    expect(nonStatementKind('我什么都吃')).toBeUndefined()
    expect(nonStatementKind('我和几个朋友去了北京')).toBeUndefined()
    expect(nonStatementKind('别人说我很内向')).toBeUndefined()
    expect(nonStatementKind("I couldn't sleep")).toBeUndefined()
    expect(nonStatementKind('我今年几岁了')).toBe('question')
    expect(nonStatementKind('要是明天不下雨')).toBe('hypothetical')
    expect(nonStatementKind('帮我查一下天气')).toBe('request')
    expect(nonStatementKind('我不想去上班')).toBe('wish')
    expect(statementsOf("I'm a nurse at St. Mary's Hospital")).toBe("I'm a nurse at St. Mary's Hospital")
  })

  it('the rules never name a question word, a pronoun or a demonstrative as a party', () => {
    for (const line of ['我住在那里', '我在这里工作', 'I live in This', '我喜欢这个'])
      expect(ruleFindings(line).relations.concat(), line).toEqual([])
    expect(ruleFindings('我喜欢这个').preferences).toEqual([])
  })
})

describe('a model’s answer is held to the same rule by our code', () => {
  const model = (turns: Turn[], extraction: Extraction) => extractor.extract(turns, extraction, 'u1')

  it('refuses a relation, an entity or a preference the dialogue only asks about', () => {
    const turns = [say('我住在成都'), say('我住在哪里？'), say('我喜欢吃什么')]
    const draft = model(turns, {
      facts: [],
      reason: '',
      entities: [
        { name: '成都', type: 'LOCATION', turns: [0] },
        { name: '哪里', type: 'ORGANIZATION', turns: [1] },
      ],
      relations: [
        { subject: 'alice', predicate: '住在', object: '成都', turns: [0] },
        { subject: 'alice', predicate: '住在', object: '哪里', turns: [1] },
      ],
      preferences: [{ about: 'alice', key: '喜欢', value: '吃什么', turns: [2] }],
    } as Extraction)
    expect(draft.entities.map((entity) => entity.name)).toEqual(['成都', 'alice'])
    expect(draft.relations.map((relation) => relation.object)).toEqual(['成都'])
    expect(draft.preferences).toEqual([])
  })

  it('refuses what it cites from a question even under a real name, and a name said only in a question', () => {
    const turns = [say('今天好累'), say('我是不是住在上海？'), say('Do I work at Google?')]
    const draft = model(turns, {
      facts: [],
      reason: '',
      entities: [{ name: 'Google', type: 'ORGANIZATION' }],
      relations: [
        { subject: 'alice', predicate: '住在', object: '上海', turns: [1] },
        { subject: 'alice', predicate: 'works at', object: 'Google' },
      ],
      preferences: [{ about: 'alice', key: 'likes', value: 'Google' }],
    } as Extraction)
    expect(draft).toMatchObject({ entities: [], relations: [], preferences: [] })
  })
})
