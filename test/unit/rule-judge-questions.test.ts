import { beforeEach, describe, expect, it } from 'vitest'
import type { Extraction, ExtractOptions, MemoryJudge, Turn } from '../../src/facts/judge'
import type { MemorizeDeps, MemorizeOutcome } from '../../src/facts/memorize'
import { memorize } from '../../src/facts/memorize'
import { RuleJudge } from '../../src/facts/rule-judge'
import { LlmJudge } from '../../src/facts/llm-judge'
import { DEFAULT_PROMPTS } from '../../src/facts/prompts'
import { claimsOf } from '../../src/facts/contradiction'
import { drawnOnlyFromQuestions, turnsOnlyAsk } from '../../src/facts/question-evidence'
import { Counters } from '../../src/core/observability'
import { isHypothetical, isQuestion, isRequest } from '../../src/text/questions'
import { FakeLLM } from '../fakes/llm'
import { MemoryFacts } from '../fakes/facts'
import { memorizeDeps } from '../fakes/memorize-deps'

const judge = new RuleJudge()
const now = new Date(2026, 2, 14, 20, 30)
const said = (content: string, name = /[\u4e00-\u9fff]/.test(content) ? '小明' : 'Alice'): Turn[] => [
  { role: 'user', name, content, time: now },
]
const factsOf = async (content: string) => (await judge.extract(said(content), { now })).facts.map((fact) => fact.statement)

describe('questions, requests and hypotheticals are never facts (offline)', () => {
  it.each([
    // questions about oneself
    '我住在哪里？',
    '我的猫叫什么名字',
    '我喜欢吃什么',
    '我昨天几点睡的',
    'Where do I live?',
    "What's my dog's name?",
    // requests to the bot
    '帮我查一下明天成都的天气',
    '给我讲个笑话吧',
    'Tell me a joke about cats.',
    'Recommend a good sci-fi novel.',
    // hypotheticals and wishes
    '如果我中了彩票，我就辞职去环游世界',
    '要是我有一只狗就好了',
    '假如我明天不用上班，我想睡到中午',
    '万一我考不上研究生怎么办',
    'If I won the lottery, I would buy a boat.',
    'I wish I had a bigger apartment.',
    'I would never move back to Ohio.',
    'Imagine if I quit my job and moved to Bali.',
    // negated wishes
    '我不想去上班',
    "I don't want to go to work tomorrow.",
  ])('%s → nothing', async (line) => {
    expect(await factsOf(line)).toEqual([])
  })

  it('a statement with a question to the listener tacked on keeps the statement alone', async () => {
    expect(await factsOf('我最近在学吉他，你呢？')).toEqual(['小明最近在学吉他。'])
    expect(await factsOf("I'm looking to branch out as well, any ideas I could check out?")).toEqual([
      'Alice is looking to branch out as well.',
    ])
  })

  it('an English clause opened by "when I…" is a statement, not a question', async () => {
    expect(isQuestion('When I was a kid, my dad taught me how to fish.', 'en')).toBe(false)
    expect(await factsOf('When I was a kid, my dad taught me how to fish.')).toEqual([
      "When Alice was a kid, Alice's dad taught Alice how to fish.",
    ])
  })

  it('tells requests and hypotheticals from statements in both languages', () => {
    expect(isRequest('给我女儿买了一架钢琴', 'zh')).toBe(false)
    expect(isRequest('帮我记住我的生日是五月一号', 'zh')).toBe(false)
    expect(isRequest('帮我写一封请假邮件', 'zh')).toBe(true)
    expect(isRequest("let's get brunch on Sunday", 'en')).toBe(true)
    expect(isRequest('remember that I moved to Portland', 'en')).toBe(false)
    expect(isHypothetical('我不要香菜', 'zh')).toBe(false)
    expect(isHypothetical("I'd been working there for years", 'en')).toBe(false)
    expect(isHypothetical("I'd love to visit Iceland someday", 'en')).toBe(true)
  })
})

describe('a question closes nothing', () => {
  it('claims nothing for a question or a question word as the value', () => {
    expect(claimsOf('小明住在哪里')).toEqual([])
    expect(claimsOf('Alice lives in what city?')).toEqual([])
    expect(claimsOf('小明住在成都。')).toEqual([{ key: 'home', value: '成都', negated: false }])
  })

  it('tells a fact drawn only from a question from one told in a statement', () => {
    const dialogue: Turn[] = [
      { role: 'user', name: '小明', content: '我养了一只猫，叫咪咪。' },
      { role: 'user', name: '小明', content: '我住在哪里？' },
    ]
    expect(drawnOnlyFromQuestions('小明住在哪里。', dialogue)).toBe(true)
    expect(drawnOnlyFromQuestions('小明养了一只猫，叫咪咪。', dialogue)).toBe(false)
    expect(turnsOnlyAsk(dialogue, [1])).toBe(true)
    expect(turnsOnlyAsk(dialogue, [0])).toBe(false)
  })

  it('the model judge refuses a fact drawn only from a question, whatever the prompt said', async () => {
    const llm = new FakeLLM([
      '{"facts": [{"about": "Alice", "fact": "Alice lives in Seattle."}, {"about": "Alice", "fact": "Alice has a cat named Tom."}]}',
    ])
    const dialogue: Turn[] = [
      { role: 'user', name: 'Alice', content: 'I have a cat named Tom.' },
      { role: 'assistant', name: 'Bot', content: 'Lovely!' },
      { role: 'user', name: 'Alice', content: 'Do I live in Seattle?' },
    ]
    const extraction = await new LlmJudge(llm, DEFAULT_PROMPTS).extract(dialogue, { now })
    expect(extraction.facts.map((fact) => fact.statement)).toEqual(['Alice has a cat named Tom.'])
  })

  it('the prompts say that questions, requests, hypotheticals and negated wishes are no facts', () => {
    expect(DEFAULT_PROMPTS.extraction.en).toMatch(/hypotheticals/)
    expect(DEFAULT_PROMPTS.extraction.en).toMatch(/A question never replaces a known fact/)
    expect(DEFAULT_PROMPTS.extraction.zh).toMatch(/假设/)
    expect(DEFAULT_PROMPTS.extraction.zh).toMatch(/提问永远不替换任何已知事实/)
  })
})

/** A model judge that says what the test scripts, and names the turns it drew each fact from. */
class ScriptedJudge implements MemoryJudge {
  id = 'scripted'
  readonly readsKnownFacts = true
  answer: (options: ExtractOptions) => Extraction = () => ({ facts: [], reason: '' })
  async extract(_turns: Turn[], options: ExtractOptions) {
    return this.answer(options)
  }
}

describe('memorize: a question never closes or supersedes a fact', () => {
  const owner = { platform: 'qq', userId: 'alice', guildId: '', channelId: 'c1' }
  const march = new Date(2026, 2, 1, 10)
  const june = new Date(2026, 5, 1, 10)
  const stored = (outcome: MemorizeOutcome) => (outcome.status === 'stored' ? outcome.facts : [])
  let deps: MemorizeDeps
  let facts: MemoryFacts
  let counters: Counters
  let scripted: ScriptedJudge

  beforeEach(() => {
    facts = new MemoryFacts()
    counters = new Counters()
    scripted = new ScriptedJudge()
    deps = memorizeDeps(facts, counters, june)
  })

  const turn = (content: string, time: Date): Turn[] => [{ role: 'user', name: '小明', content, time, userId: 'alice' }]

  it('offline: "我住在哪里？" after "我住在成都" stores nothing and leaves 成都 current', async () => {
    await memorize(deps, { owner, turns: turn('我住在成都', march), sourceIds: ['m1'] })
    const outcome = await memorize(deps, { owner, turns: turn('我住在哪里？', june), sourceIds: ['m2'] })
    expect(stored(outcome)).toEqual([])
    expect(facts.rows.get('f1')).toMatchObject({ content: '小明住在成都。', validTo: null })
  })

  it('a judge that draws a superseding fact from a question (turns named) stores nothing and closes nothing', async () => {
    await memorize(deps, { owner, turns: turn('我住在成都', march), sourceIds: ['m1'] })
    deps.judge = scripted
    scripted.answer = ({ known }) => ({
      facts: [{ statement: '小明住在哪里。', turns: [0], replaces: known?.map((k) => k.id) }],
      reason: '',
    })
    const outcome = await memorize(deps, { owner, turns: turn('我住在哪里？', june), sourceIds: ['m2'] })
    expect(stored(outcome)).toEqual([])
    expect(facts.rows.get('f1')).toMatchObject({ validTo: null, supersededBy: '' })
    expect(counters.get('memorize.question-dropped')).toBe(1)
  })

  it('a judge that names no turns: a fact only a question supports closes nothing', async () => {
    await memorize(deps, { owner, turns: turn('我住在成都', march), sourceIds: ['m1'] })
    deps.judge = scripted
    scripted.answer = ({ known }) => ({ facts: [{ statement: '小明住在上海吗。', replaces: known?.map((k) => k.id) }], reason: '' })
    const outcome = await memorize(deps, { owner, turns: turn('我是不是住在上海？', june), sourceIds: ['m2'] })
    expect(stored(outcome)).toEqual([])
    expect(facts.rows.get('f1')).toMatchObject({ validTo: null })
  })
})

describe('a Chinese question without a mark or a particle', () => {
  it('asks with a question word anywhere in it, and is no fact', async () => {
    const judge = new RuleJudge()
    for (const line of [
      '我用的什么手机',
      '我儿子多大了',
      '我每月还多少房贷',
      '我要考什么证来着',
      '我考研要考哪个学校',
      '我是干什么工作的',
    ]) {
      expect(isQuestion(line), line).toBe(true)
      const { facts } = await judge.extract([{ role: 'user', name: 'Ann', content: line }], { now: new Date(2026, 10, 28) })
      expect(facts, line).toEqual([])
    }
  })

  it('states with an indefinite one', () => {
    for (const line of [
      '我什么都吃',
      '我和几个朋友去了北京',
      '我不怎么喝酒',
      '我喜欢苹果香蕉什么的',
      '我忘了放哪了',
      '我谁也不认识',
      '我在北京待了好几年',
      '前几年我去过西藏',
    ])
      expect(isQuestion(line), line).toBe(false)
  })
})
