import { describe, expect, it } from 'vitest'
import { Counters } from '../../src/core/observability'
import type { GroupForgetDeps } from '../../src/group/forget'
import { GroupForget } from '../../src/group/forget'
import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupRef, GroupSourceRow, ReviewRow } from '../../src/group/types'
import { GroupMemories } from '../../src/group/memories'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { FakeLLM } from '../fakes/llm'
import { MemoryGroupStore, memoryRow } from '../fakes/group-store'
import { quiet } from '../fakes/logger'

const G: GroupRef = { platform: 'qq', guildId: 'g1' }
const T = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute))

function change(id: string, memoryId: string, runId: string, extra: Partial<GroupChangeRow> = {}): GroupChangeRow {
  return {
    id,
    memoryId,
    previousId: '',
    ...G,
    action: 'create',
    oldStatement: '',
    newStatement: '',
    reason: '',
    version: 1,
    runId,
    createdAt: T(0),
    ...extra,
  }
}

/** The rows of one group in memory, behind the ports `GroupForget` uses; `leaseHeld: false`: another instance holds it. */
function world(rows: { memories: GroupMemoryRow[]; changes?: GroupChangeRow[]; reviews?: ReviewRow[]; sources: GroupSourceRow[] }) {
  const state = {
    memories: rows.memories,
    changes: rows.changes ?? [],
    reviews: rows.reviews ?? [],
    sources: rows.sources,
    lease: { id: 'qq:g1', ...G, owner: '', expiresAt: T(0), watermark: T(50), lastEvolvedAt: T(50), pending: '' } as GroupLeaseRow,
    leaseHeld: true,
    removedIndex: [] as string[],
  }
  const deps: GroupForgetDeps = {
    store: {
      hasMemories: async () => state.memories.length > 0,
      memoriesOf: async () => state.memories,
      changesOf: async () => state.changes,
      removeMemories: async (ids) => void (state.memories = state.memories.filter((row) => !ids.includes(row.id))),
      removeChanges: async (ids) => void (state.changes = state.changes.filter((row) => !ids.includes(row.id))),
      getLease: async () => state.lease,
      patchLease: async (_group, _owner, patch) => {
        Object.assign(state.lease, patch)
        return true
      },
    },
    reviews: {
      hasReviews: async () => state.reviews.length > 0,
      reviewsOf: async () => state.reviews,
      removeReviews: async (ids) => void (state.reviews = state.reviews.filter((row) => !ids.includes(row.id))),
    },
    sources: {
      runsReading: async (ids) =>
        state.sources.filter((row) => ids.includes(row.messageId)).map(({ runId, platform, guildId }) => ({ runId, platform, guildId })),
      recorded: async (runIds) =>
        new Map(
          state.sources.filter((row) => row.id.endsWith('.0') && runIds.includes(row.runId)).map((row) => [row.runId, row.createdAt]),
        ),
      remove: async (runIds) => void (state.sources = state.sources.filter((row) => !runIds.includes(row.runId))),
    },
    index: { table: { remove: async (ids: string[]) => void state.removedIndex.push(...ids) } } as unknown as GroupForgetDeps['index'],
    exclusive: async (_group, task) => (state.leaseHeld ? { held: true, value: await task('me') } : { held: false }),
    counters: new Counters(),
    logger: quiet,
  }
  return { state, forget: new GroupForget(deps) }
}

/** The messages a run read, oldest first, from minute `at`. */
const read = (runId: string, messageIds: string[], at: number): GroupSourceRow[] =>
  messageIds.map((messageId, n) => ({ id: `${runId}.${n}`, runId, ...G, messageId, createdAt: T(at + n) }))

describe('what a forget takes from group memory', () => {
  it('takes a whole chain when a later version was written by a run that read the message, and leaves the others', async () => {
    const { state, forget } = world({
      memories: [
        memoryRow(G, 'v1', 'old', { runId: 'clean', status: 'deprecated', supersededBy: 'v2', statusBy: 'dirty' }),
        memoryRow(G, 'v2', 'new', { runId: 'dirty', parentId: 'v1', version: 2 }),
        memoryRow(G, 'kept', 'another', { runId: 'clean' }),
      ],
      changes: [
        change('clean.0', 'v1', 'clean'),
        change('dirty.0', 'v2', 'dirty', { previousId: 'v1' }),
        change('clean.1', 'kept', 'clean'),
      ],
      sources: [...read('clean', ['b1'], 0), ...read('dirty', ['b2', 'a1'], 10)],
    })
    expect(await forget.eraseMessages('qq', [{ id: 'a1', guildId: 'g1' }])).toBe(2)
    expect(state.memories.map((row) => row.id)).toEqual(['kept'])
    expect(state.changes.map((row) => row.id)).toEqual(['clean.1'])
    expect(state.removedIndex.sort()).toEqual(['v1', 'v2'])
    // back to just before the oldest message the run read; what it read is no longer recorded
    expect(state.lease.watermark).toEqual(new Date(T(10).getTime() - 1))
    expect(state.sources.map((row) => row.runId)).toEqual(['clean'])
  })

  it('takes a memory a run deleted with a reason drawn from the message, and drops a plan that run left unfinished', async () => {
    const { state, forget } = world({
      memories: [
        memoryRow(G, 'm', 'said once', { runId: 'clean', status: 'deprecated', statusBy: 'dirty', deprecatedReason: 'quotes her' }),
      ],
      sources: [...read('clean', ['b1'], 0), ...read('dirty', ['a1'], 20)],
    })
    state.lease.pending = JSON.stringify({ runId: 'dirty', ops: [], watermark: T(20).toISOString() })
    await forget.eraseMessages('qq', [{ id: 'a1', guildId: 'g1' }])
    expect(state.memories).toEqual([])
    expect(state.lease.pending).toBe('')
  })

  it("takes a proposal of a run that read the message and the version its approval wrote; another run's approval stays", async () => {
    const proposal = { id: 'p1', ...G, runId: 'dirty', action: 'create', targetId: '', newId: 'approved', status: 'approved' } as ReviewRow
    const { state, forget } = world({
      memories: [memoryRow(G, 'approved', 'from her', { runId: 'p1' }), memoryRow(G, 'bobs', 'from bob', { runId: 'p2' })],
      reviews: [
        proposal,
        { ...proposal, id: 'p2', runId: 'clean', newId: 'bobs' },
        { ...proposal, id: 'p3', newId: 'x', status: 'pending' },
      ],
      sources: [...read('clean', ['b1'], 0), ...read('dirty', ['a1'], 20)],
    })
    await forget.eraseMessages('qq', [{ id: 'a1', guildId: 'g1' }])
    expect(state.memories.map((row) => row.id)).toEqual(['bobs'])
    expect(state.reviews.map((row) => row.id)).toEqual(['p2'])
  })

  it('leaves a group whose every writer recorded its sources alone when no run read the message', async () => {
    const { state, forget } = world({ memories: [memoryRow(G, 'm', 'bob', { runId: 'clean' })], sources: read('clean', ['b1'], 0) })
    expect(await forget.eraseMessages('qq', [{ id: 'a1', guildId: 'g1' }])).toBe(0)
    expect(state.memories).toHaveLength(1)
    expect(state.lease.watermark).toEqual(T(50))
  })

  it('removes the rows all the same when another instance holds the lease, and leaves the lease alone', async () => {
    const { state, forget } = world({ memories: [memoryRow(G, 'm', 'x', { runId: 'dirty' })], sources: read('dirty', ['a1'], 20) })
    state.leaseHeld = false
    await forget.eraseMessages('qq', [{ id: 'a1', guildId: 'g1' }])
    expect(state.memories).toEqual([])
    expect(state.lease.watermark).toEqual(T(50))
  })
})

describe('an evolution records what it read', () => {
  it('before its plan changes anything, so a run cut off half-way is found by a forget', async () => {
    const store = new MemoryGroupStore()
    store.addMessages(G, [
      { userId: 'alice', content: '我住在翡翠湖边', at: T(1) },
      { userId: 'bob', content: '我爱吃蓝莓松饼', at: T(2) },
    ])
    const recorded: { runId: string; ids: string[] }[] = []
    store.failWhen = (write) => write === 'putMemory'
    const memories = new GroupMemories({
      store,
      sources: { record: async (runId, _group, messages) => void recorded.push({ runId, ids: messages.map((message) => message.id) }) },
      embedder: new OfflineEmbedder({ dims: 64 }),
      llm: () => new FakeLLM([JSON.stringify({ action: 'create', statement: '有成员住在翡翠湖边' })]),
      counters: new Counters(),
      logger: quiet,
      now: () => T(10),
    })
    expect((await memories.evolve(G, { days: 1 })).status).toBe('failed')
    expect(recorded.map((run) => run.ids)).toEqual([['m1', 'm2']])
    expect(JSON.parse((await store.getLease(G))!.pending).runId).toBe(recorded[0].runId)
  })

  it('records nothing for a run that changes nothing', async () => {
    const store = new MemoryGroupStore()
    store.addMessages(G, [{ userId: 'bob', content: '早', at: T(1) }])
    const recorded: string[] = []
    const memories = new GroupMemories({
      store,
      sources: { record: async (runId) => void recorded.push(runId) },
      embedder: new OfflineEmbedder({ dims: 64 }),
      llm: () => new FakeLLM(['']),
      counters: new Counters(),
      logger: quiet,
      now: () => T(10),
    })
    expect((await memories.evolve(G, { days: 1 })).status).toBe('evolved')
    expect(recorded).toEqual([])
  })
})
