import { beforeEach, describe, expect, it } from 'vitest'
import { GroupMemories } from '../../src/group/memories'
import type { GroupRef } from '../../src/group/types'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import type { Embedder } from '../../src/providers/types'
import { Counters } from '../../src/core/observability'
import { FakeEmbedder } from '../fakes/embedder'
import { FakeLLM } from '../fakes/llm'
import { quiet } from '../fakes/logger'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryGroupStore, memoryRow } from '../fakes/group-store'

const group: GroupRef = { platform: 'qq', guildId: 'g1' }
const other: GroupRef = { platform: 'qq', guildId: 'g2' }
const T0 = new Date('2025-01-15T12:00:00Z')
const DAY = 86_400_000

function build(embedder: Embedder, store = new MemoryGroupStore(), llm = new FakeLLM([])) {
  const index = new ExactIndex()
  const outbox = new MemoryOutbox()
  const counters = new Counters()
  const clock = { now: T0 }
  let n = 0
  const memories = new GroupMemories({
    store,
    embedder,
    llm: () => llm,
    vector: { index, outbox },
    counters,
    logger: quiet,
    now: () => clock.now,
    newId: () => `n${++n}`,
  })
  return { store, index, outbox, counters, clock, memories, llm }
}

/** Seeds rows in the store and in the index, as an evolution would have. */
async function seed(ctx: ReturnType<typeof build>, rows: ReturnType<typeof memoryRow>[]) {
  for (const row of rows) await ctx.store.putMemory(row)
  await ctx.memories.index!.sync(rows, [])
}

describe('design §6.7 scenario 4: semantic search', () => {
  it('finds "成员多为前端开发者" for "群组的技术背景是什么？" with score > 0.8 (scripted semantic embedder)', async () => {
    const ctx = build(FakeEmbedder.concepts())
    await seed(ctx, [
      memoryRow(group, 'm1', '成员多为前端开发者'),
      memoryRow(group, 'm2', '每周五晚上讨论新番动漫'),
      memoryRow(group, 'm3', '不讨论政治话题'),
      memoryRow(other, 'o1', '成员都是后端程序员'),
    ])
    const response = await ctx.memories.search(group, '群组的技术背景是什么？', { threshold: 0.7 })
    expect(response).toMatchObject({ success: true, group_id: 'qq:g1', query: '群组的技术背景是什么？', source: 'index' })
    expect(response.results.map((r) => r.memory_id)).toEqual(['m1'])
    expect(response.results[0].score).toBeGreaterThan(0.8)
    expect(response.results[0]).toMatchObject({ statement: '成员多为前端开发者', version: 1, updated_at: '2025-01-01T00:00:00.000Z' })
  })

  it('finds a memory by shared words with the offline (lexical) embedder at its default threshold', async () => {
    const ctx = build(new OfflineEmbedder({ dims: 256 }))
    expect(ctx.memories.searchThreshold).toBe(0.3)
    await seed(ctx, [memoryRow(group, 'm1', '群组成员主要是技术背景'), memoryRow(group, 'm2', '每周五晚上讨论新番动漫')])
    const response = await ctx.memories.search(group, '群组的技术背景')
    expect(response.results.map((r) => r.memory_id)).toEqual(['m1'])
  })

  it("never returns another group's or a deprecated memory, and honours limit and threshold", async () => {
    const ctx = build(FakeEmbedder.concepts())
    await seed(ctx, [
      memoryRow(group, 'a', '前端开发', { strength: 0.9 }),
      memoryRow(group, 'b', '后端开发'),
      memoryRow(group, 'c', '程序员很多'),
      memoryRow(other, 'o', '都是前端开发'),
    ])
    await ctx.memories.remove(group, 'b')
    const all = await ctx.memories.search(group, '技术', { threshold: 0.5, limit: 5 })
    expect(all.results.map((r) => r.memory_id).sort()).toEqual(['a', 'c'])
    expect((await ctx.memories.search(group, '技术', { limit: 1 })).results).toHaveLength(1)
    expect((await ctx.memories.search(group, '火锅', { threshold: 0.5 })).results).toEqual([])
  })

  it("falls back to comparing the group's active memories when the index is down", async () => {
    const ctx = build(FakeEmbedder.concepts())
    await seed(ctx, [memoryRow(group, 'm1', '成员多为前端开发者'), memoryRow(group, 'm2', '每周五晚上讨论新番动漫')])
    ctx.index.down = true
    const response = await ctx.memories.search(group, '群组的技术背景是什么？')
    expect(response.source).toBe('scan')
    expect(response.results.map((r) => r.memory_id)).toEqual(['m1'])
    expect(ctx.counters.get('group.search-fallback')).toBe(1)
  })

  it('recall gives statements for a prompt and never throws', async () => {
    const ctx = build(FakeEmbedder.concepts())
    await seed(ctx, [memoryRow(group, 'm1', '成员多为前端开发者')])
    expect(await ctx.memories.recall(group, '技术背景')).toEqual([{ id: 'm1', statement: '成员多为前端开发者', score: expect.any(Number) }])
    expect(await ctx.memories.recall('not a group', '技术')).toEqual([])
    expect(await ctx.memories.recall(group, '')).toEqual([])
    ctx.index.down = true
    ctx.store.activeMemories = async () => {
      throw new Error('database down')
    }
    expect(await ctx.memories.recall(group, '技术')).toEqual([])
    expect(ctx.counters.get('group.recall-failed')).toBe(2)
  })

  it("uses design §6.6's 0.7 by default with a real embedding model", () => {
    expect(build(FakeEmbedder.concepts()).memories.searchThreshold).toBe(0.7)
  })

  it('rejects an empty query and bad limits', async () => {
    const { memories } = build(FakeEmbedder.concepts())
    await expect(memories.search(group, '  ')).rejects.toMatchObject({ code: 'bad-request' })
    await expect(memories.search(group, 'x', { limit: 0 })).rejects.toMatchObject({ code: 'bad-request' })
    await expect(memories.search(group, 'x', { threshold: 1.5 })).rejects.toMatchObject({ code: 'bad-request' })
  })
})

describe('list', () => {
  let ctx: ReturnType<typeof build>
  beforeEach(async () => {
    ctx = build(new OfflineEmbedder({ dims: 64 }))
    await seed(ctx, [
      memoryRow(group, 'a', 'A', { updatedAt: new Date('2025-01-03T00:00:00Z'), strength: 0.9, tags: ['习惯'] }),
      memoryRow(group, 'b', 'B', { updatedAt: new Date('2025-01-02T00:00:00Z') }),
      memoryRow(group, 'c', 'C old', { status: 'deprecated', supersededBy: 'c2' }),
      memoryRow(group, 'c2', 'C', { version: 2, parentId: 'c', updatedAt: new Date('2025-01-04T00:00:00Z') }),
      memoryRow(group, 'd', 'D', { status: 'deprecated', deprecatedReason: 'stale' }),
      memoryRow(other, 'o', 'O'),
    ])
  })

  it("lists current versions, active by default, newest first, in design §6.6's shape", async () => {
    const response = await ctx.memories.list(group)
    expect(response).toMatchObject({ success: true, group_id: 'qq:g1', total: 3 })
    expect(response.memories.map((m) => m.memory_id)).toEqual(['c2', 'a', 'b'])
    expect(response.memories[0]).toEqual({
      memory_id: 'c2',
      group_id: 'qq:g1',
      statement: 'C',
      version: 2,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-04T00:00:00.000Z',
      parent_id: 'c',
      status: 'active',
      superseded_by: null,
      change_summary: '',
      deprecated_reason: '',
      tags: [],
      strength: 0.5,
    })
    expect(response.memories[1]).toMatchObject({ parent_id: null, tags: ['习惯'], strength: 0.9 })
  })

  it('filters by status and pages', async () => {
    expect((await ctx.memories.list(group, { status: 'deprecated' })).memories.map((m) => m.memory_id)).toEqual(['d'])
    const all = await ctx.memories.list(group, { status: 'all', limit: 2, offset: 1 })
    expect(all.total).toBe(4)
    expect(all.memories).toHaveLength(2)
  })

  it('rejects a bad status, limit or offset', async () => {
    await expect(ctx.memories.list(group, { status: 'gone' as never })).rejects.toMatchObject({ code: 'bad-request' })
    await expect(ctx.memories.list(group, { limit: 101 })).rejects.toMatchObject({ code: 'bad-request' })
    await expect(ctx.memories.list(group, { offset: -1 })).rejects.toMatchObject({ code: 'bad-request' })
    await expect(ctx.memories.list('nogroup')).rejects.toMatchObject({ code: 'bad-request' })
  })
})

describe('history and changes across evolutions', () => {
  it('follows the version chain oldest first from any version, and lists recent changes', async () => {
    const store = new MemoryGroupStore()
    const llm = new FakeLLM([
      '{"action": "create", "statement": "群组讨论动漫", "change_reason": "初次"}',
      '{"action": "update", "old_id": 1, "statement": "每周五晚上讨论新番动漫", "change_reason": "明确了时间规律"}',
      '{"action": "update", "old_id": 1, "statement": "每周五晚上讨论新番动漫，偏好科幻题材", "change_reason": "新讨论明确了偏好类型"}',
    ])
    const ctx = build(new OfflineEmbedder({ dims: 64 }), store, llm)
    for (let i = 0; i < 3; i++) {
      ctx.clock.now = new Date(T0.getTime() + i * DAY)
      store.addMessages(group, [{ userName: 'A', content: `第${i}天的动漫讨论`, at: new Date(ctx.clock.now.getTime() - 1000) }])
      expect((await ctx.memories.evolve(group)).status).toBe('evolved')
    }
    const head = store.heads(group)[0]
    const v1 = store.rowsOf(group).find((row) => row.version === 1)!
    for (const id of [head.id, v1.id]) {
      const history = await ctx.memories.history(group, id)
      expect(history).toMatchObject({ success: true, memory_id: id, current_version: 3 })
      expect(history.history.map((h) => [h.version, h.statement, h.parent_id, h.change_summary, h.status])).toEqual([
        [1, '群组讨论动漫', null, '初次', 'deprecated'],
        [2, '每周五晚上讨论新番动漫', history.history[0].memory_id, '明确了时间规律', 'deprecated'],
        [3, '每周五晚上讨论新番动漫，偏好科幻题材', history.history[1].memory_id, '新讨论明确了偏好类型', 'active'],
      ])
    }

    ctx.clock.now = new Date(T0.getTime() + 2 * DAY + 1000)
    const recent = await ctx.memories.changes(group, { days: 1.5 })
    expect(recent.period).toBe('2025-01-16 to 2025-01-17')
    expect(recent.changes.map((c) => [c.action, c.old_statement, c.new_statement])).toEqual([
      ['update', '每周五晚上讨论新番动漫', '每周五晚上讨论新番动漫，偏好科幻题材'],
      ['update', '群组讨论动漫', '每周五晚上讨论新番动漫'],
    ])
    expect(recent.changes[0]).toMatchObject({
      memory_id: head.id,
      change_reason: '新讨论明确了偏好类型',
      version: 3,
      timestamp: '2025-01-17T12:00:00.000Z',
    })
    expect((await ctx.memories.changes(group)).changes).toHaveLength(3)
    expect((await ctx.memories.changes(other)).changes).toEqual([])
    await expect(ctx.memories.changes(group, { days: -1 })).rejects.toMatchObject({ code: 'bad-request' })
  })

  it("treats another group's memory id as not found", async () => {
    const ctx = build(new OfflineEmbedder({ dims: 64 }))
    await seed(ctx, [memoryRow(other, 'o1', '另一个群')])
    await expect(ctx.memories.history(group, 'o1')).rejects.toMatchObject({ code: 'not-found' })
    await expect(ctx.memories.remove(group, 'o1')).rejects.toMatchObject({ code: 'not-found' })
    await expect(ctx.memories.restore(group, 'o1')).rejects.toMatchObject({ code: 'not-found' })
    await expect(ctx.memories.setStrength(group, 'o1', 0.1)).rejects.toMatchObject({ code: 'not-found' })
    expect(ctx.store.memories.get('o1')).toMatchObject({ status: 'active', strength: 0.5 })
    expect(await ctx.memories.locate('o1')).toEqual(other)
    expect(await ctx.memories.locate('nope')).toBeUndefined()
  })
})

describe('manual delete, restore and strength', () => {
  let ctx: ReturnType<typeof build>
  beforeEach(async () => {
    ctx = build(new OfflineEmbedder({ dims: 64 }))
    await seed(ctx, [
      memoryRow(group, 'm1', '不讨论政治话题'),
      memoryRow(group, 'old', '旧版本', { status: 'deprecated', supersededBy: 'm1' }),
    ])
  })

  it('deletes, logs and unindexes; restores, logs and reindexes', async () => {
    const deleted = await ctx.memories.remove(group, 'm1', '规则取消了')
    expect(deleted.memory).toMatchObject({ memory_id: 'm1', status: 'deprecated', deprecated_reason: '规则取消了' })
    expect(ctx.index.rows.has('m1')).toBe(false)
    await expect(ctx.memories.remove(group, 'm1')).rejects.toMatchObject({ code: 'conflict' })

    const restored = await ctx.memories.restore(group, 'm1')
    expect(restored.memory).toMatchObject({ status: 'active', deprecated_reason: '' })
    expect(ctx.index.rows.has('m1')).toBe(true)
    await expect(ctx.memories.restore(group, 'm1')).rejects.toMatchObject({ code: 'conflict' })

    const log = [...ctx.store.changes.values()].map((c) => [c.action, c.memoryId, c.reason])
    expect(log).toEqual([
      ['delete', 'm1', '规则取消了'],
      ['restore', 'm1', '规则取消了'],
    ])
  })

  it('refuses to restore or change a replaced version', async () => {
    await expect(ctx.memories.restore(group, 'old')).rejects.toMatchObject({ code: 'conflict' })
    await expect(ctx.memories.setStrength(group, 'old', 0.2)).rejects.toMatchObject({ code: 'conflict' })
    await expect(ctx.memories.remove(group, 'old')).rejects.toMatchObject({ code: 'conflict' })
  })

  it('sets strength within 0–1 and logs it', async () => {
    const response = await ctx.memories.setStrength(group, 'm1', 0.85)
    expect(response.memory.strength).toBe(0.85)
    expect(ctx.store.memories.get('m1')!.strength).toBe(0.85)
    expect([...ctx.store.changes.values()][0]).toMatchObject({ action: 'strength', reason: 'strength 0.5 → 0.85' })
    await expect(ctx.memories.setStrength(group, 'm1', 1.2)).rejects.toMatchObject({ code: 'bad-request' })
    await expect(ctx.memories.setStrength(group, 'm1', Number.NaN)).rejects.toMatchObject({ code: 'bad-request' })
  })

  it('a strength set by hand decides which memories the next evolution shows first', async () => {
    await seed(ctx, [memoryRow(group, 'm2', '成员多为前端开发者', { strength: 0.6 })])
    await ctx.memories.setStrength(group, 'm1', 1)
    expect((await ctx.store.activeMemories(group, 1))[0].id).toBe('m1')
  })
})
