import { beforeEach, describe, expect, it } from 'vitest'
import type { Extraction, MemoryJudge, Turn } from '../../src/facts/judge'
import type { MemorizeDeps, MemorizeOutcome } from '../../src/facts/memorize'
import { memorize, sourcesOf } from '../../src/facts/memorize'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { factIndexKind } from '../../src/facts/fact-index'
import { IndexedTable } from '../../src/store/index-sync'
import { KeyedLock } from '../../src/core/keyed-lock'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { quiet } from '../fakes/logger'
import { MemoryFacts } from '../fakes/facts'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'

class ScriptedJudge implements MemoryJudge {
  id = 'scripted'
  extraction: Extraction | Error = { facts: [{ statement: 'Alice likes spicy hotpot.' }], reason: 'preference' }
  calls: { turns: Turn[]; now: Date }[] = []
  async extract(turns: Turn[], { now }: { now: Date }) {
    this.calls.push({ turns, now })
    if (this.extraction instanceof Error) throw this.extraction
    return this.extraction
  }
  says(...statements: string[]) {
    this.extraction = { facts: statements.map((statement) => ({ statement })), reason: 'preference' }
  }
}

const stored = (outcome: MemorizeOutcome) => (outcome.status === 'stored' ? outcome.facts : [])

const owner = { platform: 'qq', userId: 'alice', guildId: 'g1', channelId: 'c1' }
const turns: Turn[] = [
  { role: 'user', name: 'Alice', content: 'I like spicy hotpot' },
  { role: 'assistant', name: 'bot', content: 'noted' },
]

describe('memorize', () => {
  let deps: MemorizeDeps
  let judge: ScriptedJudge
  let facts: MemoryFacts
  let index: ExactIndex
  let outbox: MemoryOutbox
  let embedder: FakeEmbedder
  let counters: Counters

  beforeEach(() => {
    judge = new ScriptedJudge()
    facts = new MemoryFacts()
    index = new ExactIndex()
    outbox = new MemoryOutbox()
    embedder = FakeEmbedder.wrap(new OfflineEmbedder({ dims: 256 }))
    counters = new Counters()
    let n = 0
    const factIndex = new IndexedTable({ index, embedder, outbox, counters, logger: quiet }, factIndexKind('memories', facts))
    deps = {
      judge,
      embedder,
      facts,
      factIndex,
      counters,
      logger: quiet,
      dedupeThreshold: 0.85,
      commandPrefixes: ['/'],
      newId: () => `f${++n}`,
      now: () => new Date(1000),
    }
  })

  it('stores a fact in the database and the index, asking the judge once with the dialogue time', async () => {
    const outcome = await memorize(deps, { owner, turns, sourceIds: ['m1'] })
    expect(outcome.status).toBe('stored')
    expect(stored(outcome).map((s) => [s.fact.id, s.updated])).toEqual([['f1', false]])
    expect(judge.calls).toEqual([{ turns, now: new Date(1000) }])
    const [row] = await facts.get(['f1'])
    expect(row).toMatchObject({
      content: 'Alice likes spicy hotpot.',
      userId: 'alice',
      guildId: 'g1',
      version: 1,
      reason: 'preference',
      sourceIds: ['m1'],
    })
    expect(await index.texts('memories', ['f1'])).toEqual(['Alice likes spicy hotpot.'])
    expect(counters.get('memorize.stored')).toBe(1)
  })

  it('skips what the prefilter rejects without asking the judge', async () => {
    judge.extraction = new Error('must not be called')
    const outcome = await memorize(deps, { owner, turns: [{ role: 'user', name: 'A', content: '哈哈哈' }], sourceIds: [] })
    expect(outcome).toEqual({ status: 'skipped', reason: 'ack' })
    expect(judge.calls).toEqual([])
    expect(counters.get('memorize.skipped.ack')).toBe(1)
  })

  it('counts an empty list as a rejection and a failed extraction as a failure, storing nothing', async () => {
    judge.extraction = { facts: [], reason: 'small talk' }
    expect(await memorize(deps, { owner, turns, sourceIds: [] })).toEqual({
      status: 'rejected',
      reason: 'small talk',
      extraction: { facts: [], reason: 'small talk' },
    })
    judge.says('   ')
    expect((await memorize(deps, { owner, turns, sourceIds: [] })).status).toBe('rejected')
    judge.extraction = new Error('timeout')
    expect(await memorize(deps, { owner, turns, sourceIds: [] })).toEqual({ status: 'failed', stage: 'extract', error: 'timeout' })
    expect(await facts.count()).toBe(0)
    expect(counters.snapshot()).toMatchObject({ 'memorize.rejected': 2, 'memorize.failed.extract': 1 })
  })

  it('updates a near-duplicate of the same user instead of adding a copy', async () => {
    await memorize(deps, { owner, turns, sourceIds: ['m1'] })
    judge.says('Alice likes spicy hotpot a lot.')
    const outcome = await memorize(deps, { owner, turns, sourceIds: ['m2'] })
    expect(stored(outcome).map((s) => [s.fact.id, s.updated])).toEqual([['f1', true]])
    expect(await facts.count()).toBe(1)
    const [row] = await facts.get(['f1'])
    expect(row).toMatchObject({ version: 2, content: 'Alice likes spicy hotpot a lot.', sourceIds: ['m1', 'm2'] })
    expect(await index.texts('memories', ['f1'])).toEqual(['Alice likes spicy hotpot a lot.'])
  })

  it("never merges with another user's or another guild's fact", async () => {
    await memorize(deps, { owner, turns, sourceIds: [] })
    await memorize(deps, { owner: { ...owner, userId: 'bob' }, turns, sourceIds: [] })
    await memorize(deps, { owner: { ...owner, guildId: 'g2' }, turns, sourceIds: [] })
    expect(await facts.count()).toBe(3)
  })

  it('keeps the fact and queues it when the index is down, and indexes it on drain', async () => {
    index.down = true
    const outcome = await memorize(deps, { owner, turns, sourceIds: [] })
    expect(outcome.status).toBe('stored')
    expect(await facts.count()).toBe(1)
    expect(await outbox.size()).toBe(1)
    index.down = false
    const factIndex = deps.factIndex
    expect(await factIndex.drain()).toEqual({ indexed: 1, pending: false })
    expect(await outbox.size()).toBe(0)
    expect(await index.texts('memories', ['f1'])).toHaveLength(1)
  })

  it('keeps the fact and queues it when the embedder is down', async () => {
    embedder.down = true
    await memorize(deps, { owner, turns, sourceIds: [] })
    expect(await facts.count()).toBe(1)
    expect(await outbox.size()).toBe(1)
    expect((await deps.factIndex.drain()).pending).toBe(true)
    embedder.down = false
    expect((await deps.factIndex.drain()).indexed).toBe(1)
  })

  describe('a dialogue with several statements', () => {
    const three: Turn[] = [
      { role: 'user', name: 'Alice', content: 'I have a golden retriever named Max. I am learning the guitar.' },
      { role: 'assistant', name: 'bot', content: 'Nice!' },
      { role: 'user', name: 'Alice', content: "I'm allergic to peanuts" },
      { role: 'assistant', name: 'bot', content: 'Noted.' },
    ]
    const statements = ['Alice has a golden retriever named Max.', 'Alice is learning the guitar.', 'Alice is allergic to peanuts.']

    beforeEach(() => {
      judge.extraction = {
        facts: [
          { statement: statements[0], turns: [0] },
          { statement: statements[1], turns: [0] },
          { statement: statements[2], turns: [2] },
        ],
        reason: 'pet, learning, health',
      }
    })

    it('stores three facts, each in the database and the index with the turns it came from and their answers', async () => {
      const outcome = await memorize(deps, { owner, turns: three, sourceIds: ['m1', 'b1', 'm2', 'b2'] })
      expect(stored(outcome).map((s) => [s.fact.content, s.updated])).toEqual(statements.map((s) => [s, false]))
      expect(await facts.count()).toBe(3)
      expect((await facts.get(['f1', 'f2', 'f3'])).map((row) => row.sourceIds)).toEqual([
        ['m1', 'b1'],
        ['m1', 'b1'],
        ['m2', 'b2'],
      ])
      expect(await index.texts('memories', ['f1', 'f2', 'f3'])).toEqual(statements)
      expect(counters.get('memorize.stored')).toBe(3)
      // one embedding call for the three
      expect(embedder.calls).toBe(1)
    })

    it('deduplicates and versions each fact on its own', async () => {
      await memorize(deps, { owner, turns: three, sourceIds: ['m1', 'b1', 'm2', 'b2'] })
      judge.extraction = {
        facts: [
          { statement: 'Alice is learning the guitar.', turns: [0] },
          { statement: 'Alice lives in Seattle.', turns: [0] },
        ],
        reason: 'learning, home',
      }
      const outcome = await memorize(deps, { owner, turns: three.slice(0, 2), sourceIds: ['m3', 'b3'] })
      expect(stored(outcome).map((s) => [s.fact.id, s.updated])).toEqual([
        ['f2', true],
        ['f4', false],
      ])
      const rows = await facts.get(['f1', 'f2', 'f3', 'f4'])
      expect(rows.map((row) => [row.version, row.sourceIds])).toEqual([
        [1, ['m1', 'b1']],
        [2, ['m1', 'b1', 'm3', 'b3']],
        [1, ['m2', 'b2']],
        [1, ['m3', 'b3']],
      ])
    })

    it('names the whole dialogue when the judge does not tell the turns or the ids do not match the turns', async () => {
      judge.says(...statements)
      await memorize(deps, { owner, turns: three, sourceIds: ['m1', 'b1', 'm2', 'b2'] })
      expect((await facts.get(['f1'])).map((row) => row.sourceIds)).toEqual([['m1', 'b1', 'm2', 'b2']])
      expect(sourcesOf({ owner, turns: three, sourceIds: ['m1', 'm2'] }, [0])).toEqual(['m1', 'm2'])
      expect(sourcesOf({ owner, turns: three, sourceIds: ['m1', 'b1', 'm2', 'b2'] }, [7])).toEqual(['m1', 'b1', 'm2', 'b2'])
    })
  })

  describe('a group dialogue of several speakers', () => {
    const group: Turn[] = [
      { role: 'user', name: 'Alice', content: 'I have a corgi named Doudou', userId: 'alice' },
      { role: 'user', name: 'Bob', content: 'I am learning the guitar', userId: 'bob' },
      { role: 'assistant', name: 'bot', content: 'nice' },
      { role: 'user', name: 'Alice', content: 'and I live in Chengdu', userId: 'alice' },
    ]
    const ids = ['a1', 'b1', 'x1', 'a2']

    it('stores each fact for the speaker of the turns it came from, with only their turns as sources', async () => {
      judge.extraction = {
        facts: [
          { statement: 'Alice has a corgi named Doudou.', turns: [0] },
          { statement: 'Bob is learning the guitar.', turns: [1] },
        ],
        reason: 'r',
      }
      await memorize(deps, { owner, turns: group, sourceIds: ids })
      const rows = await facts.get(['f1', 'f2'])
      expect(rows.map((row) => [row.userId, row.sourceIds])).toEqual([
        ['alice', ['a1']],
        ['bob', ['b1', 'x1']],
      ])
    })

    it("stores a model's fact for the person it names, and none whose person cannot be told", async () => {
      judge.extraction = {
        facts: [
          { statement: 'Bob is learning the guitar.', about: 'Bob' },
          { statement: 'Alice lives in Chengdu.', about: 'Alice' },
          { statement: 'Someone likes tea.', about: 'Carol' },
          { statement: 'Somebody else likes coffee.' },
        ],
        reason: 'r',
      }
      const outcome = await memorize(deps, { owner, turns: group, sourceIds: ids })
      expect(stored(outcome).map(({ fact }) => [fact.userId, fact.content, fact.sourceIds])).toEqual([
        ['bob', 'Bob is learning the guitar.', ['b1', 'x1']],
        ['alice', 'Alice lives in Chengdu.', ['a1', 'a2']],
      ])
      expect(counters.get('memorize.unattributed')).toBe(2)
    })
  })

  it('stores a fact once when the same statement is memorised many times at once', async () => {
    const lock = new KeyedLock()
    const fenced = { ...deps, lock }
    await Promise.all(Array.from({ length: 20 }, () => memorize(fenced, { owner, turns, sourceIds: ['m1'] })))
    expect(await facts.count()).toBe(1)
    const [row] = await facts.list({ platform: 'qq', userId: 'alice' }, 10)
    // the same dialogue again adds nothing: no new version
    expect(row.version).toBe(1)
    expect(counters.get('memorize.repeated')).toBe(19)
  })

  it('stores nothing of what a user said before they were forgotten, even when the dialogue was already running', async () => {
    const said = new Date(5000)
    const at = (time?: Date): Turn[] => turns.map((turn) => ({ ...turn, ...(turn.role === 'user' && time && { time }) }))
    let forgottenAt: Date | undefined = new Date(6000)
    const fenced = { ...deps, forgottenAt: () => forgottenAt }
    const outcome = await memorize(fenced, { owner, turns: at(said), sourceIds: ['m1', 'b1'] })
    expect(outcome.status).toBe('rejected')
    expect(await facts.count()).toBe(0)
    expect(counters.get('memorize.fenced')).toBe(1)
    // said after the forget: kept
    await memorize(fenced, { owner, turns: at(new Date(7000)), sourceIds: ['m2', 'b2'] })
    expect(await facts.count()).toBe(1)
    forgottenAt = undefined
  })
})
