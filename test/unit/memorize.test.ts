import { beforeEach, describe, expect, it } from 'vitest'
import type { Decision, MemoryJudge, Turn } from '../../src/facts/judge'
import type { MemorizeDeps } from '../../src/facts/memorize'
import { memorize } from '../../src/facts/memorize'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { factIndexKind } from '../../src/facts/fact-index'
import { IndexedTable } from '../../src/store/index-sync'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { quiet } from '../fakes/logger'
import { MemoryFacts } from '../fakes/facts'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'

class ScriptedJudge implements MemoryJudge {
  id = 'scripted'
  decision: Decision | Error = { shouldRemember: true, reason: 'preference' }
  summary: string | Error = 'Alice likes spicy hotpot.'
  async decide() {
    if (this.decision instanceof Error) throw this.decision
    return this.decision
  }
  async summarize() {
    if (this.summary instanceof Error) throw this.summary
    return this.summary
  }
}

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

  it('stores a fact in the database and the index', async () => {
    const outcome = await memorize(deps, { owner, turns, sourceIds: ['m1'] })
    expect(outcome.status).toBe('stored')
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
    judge.decision = new Error('must not be called')
    const outcome = await memorize(deps, { owner, turns: [{ role: 'user', name: 'A', content: '哈哈哈' }], sourceIds: [] })
    expect(outcome).toEqual({ status: 'skipped', reason: 'ack' })
    expect(counters.get('memorize.skipped.ack')).toBe(1)
  })

  it('counts a rejection and a failed decision or summary, storing nothing', async () => {
    judge.decision = { shouldRemember: false, reason: 'small talk' }
    expect((await memorize(deps, { owner, turns, sourceIds: [] })).status).toBe('rejected')
    judge.decision = new Error('timeout')
    expect(await memorize(deps, { owner, turns, sourceIds: [] })).toMatchObject({ status: 'failed', stage: 'decide' })
    judge.decision = { shouldRemember: true, reason: 'x' }
    judge.summary = '   '
    expect(await memorize(deps, { owner, turns, sourceIds: [] })).toMatchObject({ status: 'failed', stage: 'summarize' })
    expect(await facts.count()).toBe(0)
    expect(counters.snapshot()).toMatchObject({ 'memorize.rejected': 1, 'memorize.failed.decide': 1, 'memorize.failed.summarize': 1 })
  })

  it('updates a near-duplicate of the same user instead of adding a copy', async () => {
    await memorize(deps, { owner, turns, sourceIds: ['m1'] })
    judge.summary = 'Alice likes spicy hotpot a lot.'
    const outcome = await memorize(deps, { owner, turns, sourceIds: ['m2'] })
    expect(outcome).toMatchObject({ status: 'stored', updated: true })
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
})
