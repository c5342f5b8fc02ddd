import { beforeEach, describe, expect, it } from 'vitest'
import type { Extraction, ExtractOptions, MemoryJudge, Turn } from '../../src/facts/judge'
import type { MemorizeDeps, MemorizeOutcome } from '../../src/facts/memorize'
import { memorize } from '../../src/facts/memorize'
import { Counters } from '../../src/core/observability'
import { MemoryFacts } from '../fakes/facts'
import { memorizeDeps } from '../fakes/memorize-deps'

/** A model judge: reads the known facts, answers what the test scripts from them. */
class ModelJudge implements MemoryJudge {
  id = 'model'
  readonly readsKnownFacts = true
  seen: ExtractOptions['known'][] = []
  answer: (options: ExtractOptions) => Extraction = () => ({ facts: [], reason: '' })
  async extract(_turns: Turn[], options: ExtractOptions) {
    this.seen.push(options.known)
    return this.answer(options)
  }
}

const owner = { platform: 'qq', userId: 'alice', guildId: '', channelId: 'c1' }
const said = (content: string, time: Date, userId = 'alice'): Turn[] => [{ role: 'user', name: '小明', content, time, userId }]
const march = new Date(2026, 2, 1, 10)
const june = new Date(2026, 5, 1, 10)
const stored = (outcome: MemorizeOutcome) => (outcome.status === 'stored' ? outcome.facts : [])

describe('memorize: a contradicting statement closes the older fact', () => {
  let deps: MemorizeDeps
  let facts: MemoryFacts
  let counters: Counters

  beforeEach(() => {
    facts = new MemoryFacts()
    counters = new Counters()
    deps = memorizeDeps(facts, counters, june)
  })

  it('offline: 住在成都 then 搬到上海 closes the first when the second was said, with a link to it', async () => {
    await memorize(deps, { owner, turns: said('我住在成都', march), sourceIds: ['m1'] })
    const outcome = await memorize(deps, { owner, turns: said('我搬到上海了', june), sourceIds: ['m2'] })
    expect(stored(outcome)).toMatchObject([
      { fact: { id: 'f2', content: '小明搬到上海了。', validFrom: june, validTo: null }, closed: ['f1'] },
    ])
    expect(facts.rows.get('f1')).toMatchObject({
      content: '小明住在成都。',
      validFrom: march,
      validTo: june,
      supersededBy: 'f2',
      version: 1,
    })
    expect(await facts.list(owner, 10)).toMatchObject([{ id: 'f2' }])
    expect(await facts.list(owner, 10, 0, { history: true })).toHaveLength(2)
    expect(counters.get('memorize.closed')).toBe(1)
  })

  it('offline: a negation closes, a many-valued statement keeps both current', async () => {
    await memorize(deps, { owner, turns: said('我吃素，我喜欢吃火锅', march), sourceIds: ['m1'] })
    await memorize(deps, { owner, turns: said('我不再吃素了，我喜欢吃寿司', june), sourceIds: ['m2'] })
    const current = (await facts.list(owner, 10)).map((row) => row.content).sort()
    expect(current).toEqual(['小明不再吃素了。', '小明喜欢吃寿司。', '小明喜欢吃火锅。'])
    expect([...facts.rows.values()].find((row) => row.content === '小明吃素。')).toMatchObject({ validTo: june })
  })

  it('stores a statement about an earlier time already closed by the newer fact it contradicts', async () => {
    deps.judge = new ModelJudge()
    const judge = deps.judge as ModelJudge
    judge.answer = () => ({ facts: [{ statement: 'Alice lives in Shanghai.' }], reason: '' })
    await memorize(deps, { owner, turns: said('x', june), sourceIds: ['m1'] })
    judge.answer = () => ({ facts: [{ statement: 'Alice lives in Chengdu.', validFrom: march }], reason: '' })
    await memorize(deps, { owner, turns: said('y', june), sourceIds: ['m2'] })
    expect(facts.rows.get('f1')).toMatchObject({ validTo: null })
    expect(facts.rows.get('f2')).toMatchObject({ validFrom: march, validTo: june, supersededBy: 'f1' })
  })

  it('memorising the same dialogue again after its fact was closed adds nothing', async () => {
    const first = { owner, turns: said('我住在成都', march), sourceIds: ['m1'] }
    await memorize(deps, first)
    await memorize(deps, { owner, turns: said('我搬到上海了', june), sourceIds: ['m2'] })
    await memorize(deps, first)
    expect(facts.rows.size).toBe(2)
    expect((await facts.list(owner, 10)).map((row) => row.content)).toEqual(['小明搬到上海了。'])
  })

  it('with a model: the speaker’s nearest current facts go into the one call, and its replaces closes them', async () => {
    const judge = new ModelJudge()
    deps.judge = judge
    judge.answer = () => ({ facts: [{ statement: 'Alice lives in Chengdu.' }, { statement: 'Alice likes hotpot.' }], reason: '' })
    await memorize(deps, { owner, turns: said('I live in Chengdu and like hotpot', march), sourceIds: ['m1'] })
    judge.answer = ({ known }) => {
      const home = known!.find((fact) => fact.statement.includes('Chengdu'))!
      return { facts: [{ statement: 'Alice has settled down by the sea.', replaces: [home.id] }], reason: '', entities: [] }
    }
    const outcome = await memorize(deps, { owner, turns: said('we settled down by the sea', june), sourceIds: ['m2'] })
    expect(judge.seen[0]).toEqual([])
    expect(judge.seen[1]!.map((fact) => [fact.about, fact.statement]).sort()).toEqual([
      ['小明', 'Alice likes hotpot.'],
      ['小明', 'Alice lives in Chengdu.'],
    ])
    expect(stored(outcome)[0].closed).toEqual(['f1'])
    expect(outcome).toMatchObject({ status: 'stored', extraction: { entities: [] } })
    expect(facts.rows.get('f1')).toMatchObject({ validTo: june, supersededBy: 'f3' })
    expect(facts.rows.get('f2')).toMatchObject({ validTo: null })
  })

  it('with a model that says nothing, the rules decide; a replaces naming another user’s fact closes nothing', async () => {
    const judge = new ModelJudge()
    deps.judge = judge
    judge.answer = () => ({ facts: [{ statement: 'Alice works at Google.' }], reason: '' })
    await memorize(deps, { owner, turns: said('a', march), sourceIds: ['m1'] })
    await memorize(deps, { owner: { ...owner, userId: 'bob' }, turns: said('b', march, 'bob'), sourceIds: ['m2'] })
    expect(facts.rows.get('f2')).toMatchObject({ userId: 'bob' })
    judge.answer = () => ({ facts: [{ statement: 'Alice now works at Amazon.' }], reason: '' })
    await memorize(deps, { owner, turns: said('c', june), sourceIds: ['m3'] })
    expect(facts.rows.get('f1')).toMatchObject({ validTo: june, supersededBy: 'f3' })
    judge.answer = () => ({ facts: [{ statement: 'Alice likes tea.', replaces: ['f2'] }], reason: '' })
    await memorize(deps, { owner, turns: said('d', june), sourceIds: ['m4'] })
    expect(facts.rows.get('f2')).toMatchObject({ validTo: null })
  })

  it('a near duplicate that contradicts is a new fact, not a new version', async () => {
    deps.dedupeThreshold = 0
    const judge = new ModelJudge()
    deps.judge = judge
    judge.answer = () => ({ facts: [{ statement: 'Alice lives in Seattle.' }], reason: '' })
    await memorize(deps, { owner, turns: said('a', march), sourceIds: ['m1'] })
    judge.answer = () => ({ facts: [{ statement: 'Alice lives in Portland.' }], reason: '' })
    await memorize(deps, { owner, turns: said('b', june), sourceIds: ['m2'] })
    expect(facts.rows.get('f1')).toMatchObject({ content: 'Alice lives in Seattle.', version: 1, validTo: june })
    expect(facts.rows.get('f2')).toMatchObject({ content: 'Alice lives in Portland.', validTo: null })
  })
})
