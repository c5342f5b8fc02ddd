import { describe, expect, it } from 'vitest'
import { GroupMemories } from '../../src/group/memories'
import type { EvolutionMode, GroupRef } from '../../src/group/types'
import { ReviewError } from '../../src/group/types'
import { OfflineEmbedder } from '../../src/providers/offline-embedder'
import { Counters } from '../../src/core/observability'
import type { Logger } from '../../src/core/observability'
import type { EvolutionInput, LlmCall } from '../fakes/llm'
import { FakeLLM } from '../fakes/llm'
import { MemoryOutbox } from '../fakes/outbox'
import { ExactIndex } from '../fakes/exact-index'
import { MemoryGroupStore, memoryRow } from '../fakes/group-store'
import { MemoryReviewStore } from '../fakes/review-store'

const group: GroupRef = { platform: 'qq', guildId: 'g1' }
const other: GroupRef = { platform: 'qq', guildId: 'g2' }
const T0 = new Date('2025-01-15T12:00:00Z')
const HOUR = 3_600_000
const minutes = (n: number) => n * 60_000
const ADMIN = 'qq:admin'

type Answer = string | ((call: LlmCall<EvolutionInput>) => string) | Error

/** A logger that keeps what it was told at info level, formatted. */
function recordingLogger() {
  const lines: string[] = []
  const format = (text: unknown, args: unknown[]) => {
    let i = 0
    return String(text).replace(/%[sd]/g, () => String(args[i++]))
  }
  const logger: Logger = { debug() {}, info: (text, ...args) => void lines.push(format(text, args)), warn() {}, error() {} }
  return { logger, lines }
}

function setup(answers: Answer[] = [], options: { mode?: EvolutionMode } = {}) {
  const store = new MemoryGroupStore()
  const reviews = new MemoryReviewStore()
  const index = new ExactIndex()
  const counters = new Counters()
  const clock = { now: T0 }
  const llm = new FakeLLM<EvolutionInput>(answers)
  const { logger, lines } = recordingLogger()
  let n = 0
  const memories = new GroupMemories({
    store,
    reviews,
    embedder: new OfflineEmbedder({ dims: 64 }),
    llm: () => llm,
    vector: { index, outbox: new MemoryOutbox() },
    counters,
    logger,
    now: () => clock.now,
    newId: () => `i${++n}`,
    instanceId: 'A',
    options: { leaseMs: minutes(10), mode: options.mode ?? 'review', expiryMs: 72 * HOUR },
  })
  return { store, reviews, index, counters, clock, llm, memories, logs: lines }
}

/** Messages `minutesAgo` before the clock, one per line. */
function say(store: MemoryGroupStore, now: Date, lines: string[], minutesAgo = 60, where: GroupRef = group) {
  store.addMessages(
    where,
    lines.map((line, i) => {
      const [name, ...rest] = line.split(': ')
      return { userName: name, content: rest.join(': '), at: new Date(now.getTime() - minutes(minutesAgo) + i * 1000) }
    }),
  )
}

const jsonl = (...ops: object[]) => ops.map((op) => JSON.stringify(op)).join('\n')

/** Three memories, and an answer that keeps one, updates one, deletes one and creates one. */
async function seeded(options: { mode?: EvolutionMode; more?: Answer[] } = {}) {
  const ctx = setup(
    [
      jsonl(
        { action: 'keep', old_id: 1 },
        { action: 'update', old_id: 2, statement: '每周五晚上讨论新番，偏好科幻', change_reason: '明确了偏好', tags: ['习惯'] },
        { action: 'delete', old_id: 3, change_reason: '已经不打游戏了' },
        { action: 'create', statement: '成员多为前端开发者', change_reason: '多人提到', strength: 0.7 },
      ),
      ...(options.more ?? []),
    ],
    options,
  )
  await ctx.store.putMemory(memoryRow(group, 'm1', '群组成员主要是技术背景', { strength: 0.9 }))
  await ctx.store.putMemory(memoryRow(group, 'm2', '每周五晚上讨论新番', { strength: 0.8 }))
  await ctx.store.putMemory(memoryRow(group, 'm3', '喜欢深夜开黑', { strength: 0.7 }))
  say(ctx.store, T0, ['Alice: 这季科幻新番真好看', 'Bob: 我也是做前端的', 'Carol: 好久没开黑了'])
  return ctx
}

/** The proposals of the seeded answer, by action. */
async function proposals(ctx: Awaited<ReturnType<typeof seeded>>) {
  const queue = await ctx.memories.pendingReviews(group)
  const of = (action: string) => queue.reviews.find((review) => review.action === action)!
  return { update: of('update'), delete: of('delete'), create: of('create'), queue }
}

const refusal = (problem: string) => expect.objectContaining({ name: 'GroupMemoryError', problem })

describe('a moderated group: evolution queues its plan', () => {
  it('queues update, create and delete (never keep), changes no memory and moves the watermark', async () => {
    const ctx = await seeded()
    const result = await ctx.memories.evolve(group)
    expect(result).toMatchObject({
      success: true,
      status: 'queued',
      stats: { kept: 1, updated: 0, created: 0, deleted: 0 },
      changes: [],
      review: { queued: 3, duplicates: 0 },
    })

    const { queue, update, create } = await proposals(ctx)
    expect(queue.mode).toBe('review')
    expect(queue.reviews.map((r) => [r.action, r.memory_id, r.statement])).toEqual([
      ['update', 'm2', '每周五晚上讨论新番，偏好科幻'],
      ['delete', 'm3', ''],
      ['create', null, '成员多为前端开发者'],
    ])
    expect(update).toMatchObject({
      group_id: 'qq:g1',
      old_version: 1,
      old_statement: '每周五晚上讨论新番',
      reason: '明确了偏好',
      status: 'pending',
      created_at: T0.toISOString(),
      expires_at: new Date(T0.getTime() + 72 * HOUR).toISOString(),
      decided_by: null,
    })
    expect(create).toMatchObject({ memory_id: null, old_version: null, old_statement: '' })
    expect(result.review!.ids.sort()).toEqual(queue.reviews.map((r) => r.review_id).sort())
    // one run proposed them all
    expect(new Set(queue.reviews.map((r) => r.run_id)).size).toBe(1)

    // nothing applied: the three memories as they were, no change logged, nothing indexed
    expect(ctx.store.heads(group).map((row) => row.id)).toEqual(['m1', 'm2', 'm3'])
    expect(ctx.store.changes.size).toBe(0)
    expect(ctx.index.rows.size).toBe(0)

    // the messages are not proposed again
    expect(await ctx.store.getLease(group)).toMatchObject({
      pending: '',
      owner: '',
      watermark: new Date(T0.getTime() - minutes(60) + 2000),
    })
    expect((await ctx.memories.evolve(group)).status).toBe('no-new-messages')
    expect(ctx.llm.calls).toHaveLength(1)
    expect(ctx.logs.some((line) => line.includes('3 proposals queued'))).toBe(true)
  })

  it('queues nothing when the model keeps every memory', async () => {
    const ctx = setup([jsonl({ action: 'keep', old_id: 1 }, { action: 'update', old_id: 1, statement: '喜欢火锅' })])
    await ctx.store.putMemory(memoryRow(group, 'm1', '喜欢火锅'))
    say(ctx.store, T0, ['Alice: 今晚吃火锅'])
    const result = await ctx.memories.evolve(group)
    expect(result).toMatchObject({ status: 'queued', stats: { kept: 1 }, review: { queued: 0, ids: [] } })
    expect(ctx.reviews.reviews.size).toBe(0)
  })

  it("follows the group's own mode over the configured one, and leaves other groups alone", async () => {
    const ctx = setup([jsonl({ action: 'create', statement: '喜欢火锅' }), jsonl({ action: 'create', statement: '喜欢爬山' })], {
      mode: 'auto',
    })
    say(ctx.store, T0, ['Alice: 今晚吃火锅'])
    say(ctx.store, T0, ['Bob: 周末爬山'], 60, other)
    expect(await ctx.memories.mode(group)).toBe('auto')
    expect(await ctx.memories.setMode(group, 'review', ADMIN)).toBe('review')
    expect(ctx.reviews.settings.get('qq:g1')).toMatchObject({ mode: 'review', updatedBy: ADMIN })
    expect(await ctx.memories.mode('qq:g1')).toBe('review')
    expect(await ctx.memories.mode(other)).toBe('auto')

    expect((await ctx.memories.evolve(group)).status).toBe('queued')
    expect((await ctx.memories.evolve(other)).status).toBe('evolved')
    expect(ctx.store.heads(other).map((row) => row.statement)).toEqual(['喜欢爬山'])
    expect(ctx.store.heads(group)).toEqual([])

    await expect(ctx.memories.setMode(group, 'sometimes' as EvolutionMode)).rejects.toMatchObject({ code: 'bad-request' })
    await expect(ctx.memories.setMode({ platform: 'qq', guildId: 'nowhere' }, 'review')).rejects.toMatchObject({ code: 'unknown-group' })
    expect(ctx.reviews.settings.has('qq:nowhere')).toBe(false)
  })

  it('leaves out a proposal that repeats one still waiting', async () => {
    const ctx = setup([
      jsonl({ action: 'create', statement: '喜欢火锅', change_reason: 'a' }),
      jsonl({ action: 'create', statement: ' 喜欢火锅 ', change_reason: 'b' }, { action: 'create', statement: '喜欢爬山' }),
    ])
    say(ctx.store, T0, ['Alice: 今晚吃火锅'])
    await ctx.memories.evolve(group)
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    say(ctx.store, ctx.clock.now, ['Bob: 明天还吃火锅，然后去爬山'], 10)
    expect((await ctx.memories.evolve(group)).review).toMatchObject({ queued: 1, duplicates: 1 })
    expect((await ctx.memories.pendingReviews(group)).reviews.map((r) => r.statement)).toEqual(['喜欢火锅', '喜欢爬山'])
  })

  it('queues the proposals of a run interrupted half-way once, when the next run finishes it', async () => {
    const ctx = await seeded()
    const add = ctx.reviews.addReviews.bind(ctx.reviews)
    ctx.reviews.addReviews = async () => {
      throw new Error('connection lost')
    }
    expect((await ctx.memories.evolve(group)).status).toBe('failed')
    expect(JSON.parse((await ctx.store.getLease(group))!.pending)).toMatchObject({ review: true })
    // the group is set to auto meanwhile: a plan made for review is still queued, not applied
    await ctx.memories.setMode(group, 'auto')
    ctx.reviews.addReviews = add
    const rerun = await ctx.memories.evolve(group)
    expect(rerun).toMatchObject({ status: 'no-new-messages', repaired: { stats: { updated: 0, created: 0, deleted: 0 } } })
    expect(ctx.reviews.reviews.size).toBe(3)
    expect(ctx.store.changes.size).toBe(0)
    expect(ctx.llm.calls).toHaveLength(1)
  })
})

describe('approving', () => {
  it('applies an update as a new version, with the approver in the change log, and indexes it', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update } = await proposals(ctx)
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    const decision = await ctx.memories.approveReview(update.review_id, { by: ADMIN, group })
    const newId = ctx.reviews.reviews.get(update.review_id)!.newId
    expect(decision).toMatchObject({
      success: true,
      group_id: 'qq:g1',
      review: { status: 'approved', decided_by: ADMIN, applied_statement: '每周五晚上讨论新番，偏好科幻', applied_memory_id: newId },
      change: { action: 'update', old_id: 'm2', new_id: newId, new_statement: '每周五晚上讨论新番，偏好科幻', version: 2 },
    })
    expect(ctx.store.memories.get(newId)).toMatchObject({ version: 2, parentId: 'm2', status: 'active', tags: ['习惯'] })
    expect(ctx.store.memories.get('m2')).toMatchObject({ status: 'deprecated', supersededBy: newId })
    const [log] = [...ctx.store.changes.values()]
    expect(log).toMatchObject({ action: 'update', memoryId: newId, previousId: 'm2', actor: ADMIN, reason: '明确了偏好' })
    expect((await ctx.memories.changes(group)).changes[0]).toMatchObject({ actor: ADMIN, action: 'update' })
    expect(ctx.index.rows.has(newId)).toBe(true)
    expect((await ctx.memories.history(group, newId)).history.map((h) => h.version)).toEqual([1, 2])

    // decided once: a second approval or a rejection is refused, nothing is written twice
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toEqual(refusal('decided'))
    await expect(ctx.memories.rejectReview(update.review_id, { by: ADMIN })).rejects.toEqual(refusal('decided'))
    expect(ctx.store.rowsOf(group)).toHaveLength(4)
    expect((await ctx.memories.pendingReviews(group)).reviews.map((r) => r.action)).toEqual(['delete', 'create'])
    expect(ctx.counters.get('group.review-approved')).toBe(1)
  })

  it('applies a delete and a create', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { delete: remove, create } = await proposals(ctx)
    expect((await ctx.memories.approveReview(remove.review_id, { by: ADMIN })).change).toMatchObject({ action: 'delete', old_id: 'm3' })
    expect(ctx.store.memories.get('m3')).toMatchObject({ status: 'deprecated', deprecatedReason: '已经不打游戏了' })
    const created = await ctx.memories.approveReview(create.review_id, { by: ADMIN })
    expect(created.change).toMatchObject({ action: 'create', statement: '成员多为前端开发者', version: 1 })
    expect(ctx.store.memories.get(created.review.applied_memory_id!)).toMatchObject({ strength: 0.7, status: 'active' })
  })

  it("edits: applies the admin's own text, keeping the proposal as the model wrote it", async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update, create, delete: remove } = await proposals(ctx)
    const decision = await ctx.memories.approveReview(create.review_id, { by: ADMIN, statement: '  成员多为前端和后端开发者 ' })
    expect(decision.review).toMatchObject({ statement: '成员多为前端开发者', applied_statement: '成员多为前端和后端开发者' })
    expect(ctx.store.memories.get(decision.review.applied_memory_id!)).toMatchObject({ statement: '成员多为前端和后端开发者' })
    expect([...ctx.store.changes.values()][0]).toMatchObject({ newStatement: '成员多为前端和后端开发者', actor: ADMIN })

    await expect(ctx.memories.approveReview(remove.review_id, { by: ADMIN, statement: '不删' })).rejects.toEqual(refusal('bad-text'))
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN, statement: '   ' })).rejects.toEqual(refusal('bad-text'))
    await expect(ctx.memories.approveReview(update.review_id, { by: '' })).rejects.toMatchObject({ code: 'bad-request' })
    expect(ctx.reviews.reviews.get(remove.review_id)!.status).toBe('pending')
  })

  it('refuses an unknown id, and a proposal of another group when a group is named', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update } = await proposals(ctx)
    await expect(ctx.memories.approveReview('nope', { by: ADMIN })).rejects.toEqual(refusal('unknown'))
    await expect(ctx.memories.rejectReview('', { by: ADMIN })).rejects.toEqual(refusal('unknown'))
    say(ctx.store, T0, ['Dave: 另一个群'], 10, other)
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN, group: other })).rejects.toMatchObject({
      problem: 'other-group',
      code: 'not-found',
    })
    await expect(ctx.memories.rejectReview(update.review_id, { by: ADMIN, group: 'qq:g2' })).rejects.toEqual(refusal('other-group'))
    await expect(ctx.memories.pendingReviews('qq:nowhere')).rejects.toMatchObject({ code: 'unknown-group' })
    expect(ctx.reviews.reviews.get(update.review_id)!.status).toBe('pending')
  })

  it('finishes an approval interrupted after it changed the memory, without a second version', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update } = await proposals(ctx)
    const decide = ctx.reviews.decideReview.bind(ctx.reviews)
    ctx.reviews.decideReview = async () => {
      throw new Error('connection lost')
    }
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toThrow('connection lost')
    ctx.reviews.decideReview = decide
    const decision = await ctx.memories.approveReview(update.review_id, { by: ADMIN })
    expect(decision.review).toMatchObject({ status: 'approved', applied_statement: '每周五晚上讨论新番，偏好科幻' })
    expect(ctx.store.rowsOf(group)).toHaveLength(4)
    expect(ctx.store.changes.size).toBe(1)
  })

  it('is refused as busy while another instance holds the group', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update } = await proposals(ctx)
    expect(await ctx.store.acquireLease(group, 'B:run', T0, new Date(T0.getTime() + minutes(10)))).toBe(true)
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toEqual(refusal('busy'))
    expect(ctx.reviews.reviews.get(update.review_id)!.status).toBe('pending')
  })
})

describe('approving after a newer evolution', () => {
  it("refuses an update whose memory has a newer version, and applies the admin's text onto that version", async () => {
    const ctx = await seeded({
      more: [
        ({ input }) =>
          jsonl({
            action: 'update',
            old_id: input.existing_memories.find((m) => m.statement.includes('新番'))!.id,
            statement: '每周五晚上讨论新番，偏好治愈系',
            change_reason: '新讨论',
          }),
      ],
    })
    await ctx.memories.evolve(group)
    const { update } = await proposals(ctx)

    // the group goes back to auto and a newer evolution updates the same memory
    await ctx.memories.setMode(group, 'auto')
    ctx.clock.now = new Date(T0.getTime() + 2 * HOUR)
    say(ctx.store, ctx.clock.now, ['Dave: 我更喜欢治愈系的新番'], 10)
    const newer = await ctx.memories.evolve(group)
    expect(newer).toMatchObject({ status: 'evolved', stats: { updated: 1 } })
    const head = (newer.changes[0] as { new_id: string }).new_id

    const refused = await ctx.memories.approveReview(update.review_id, { by: ADMIN }).catch((error: ReviewError) => error)
    expect(refused).toBeInstanceOf(ReviewError)
    expect(refused).toMatchObject({
      problem: 'changed',
      code: 'conflict',
      params: [update.review_id, head, '每周五晚上讨论新番，偏好治愈系'],
    })
    expect(ctx.reviews.reviews.get(update.review_id)!.status).toBe('pending')
    expect(ctx.store.heads(group).find((row) => row.id === head)).toMatchObject({ version: 2 })

    const edited = await ctx.memories.approveReview(update.review_id, { by: ADMIN, statement: '每周五晚上讨论新番，偏好科幻和治愈系' })
    expect(edited.change).toMatchObject({ action: 'update', old_id: head, version: 3, old_statement: '每周五晚上讨论新番，偏好治愈系' })
    const v3 = ctx.store.memories.get(edited.review.applied_memory_id!)!
    expect(v3).toMatchObject({ version: 3, parentId: head, statement: '每周五晚上讨论新番，偏好科幻和治愈系', status: 'active' })
    expect(ctx.store.memories.get(head)).toMatchObject({ status: 'deprecated', supersededBy: v3.id })
    expect((await ctx.memories.history(group, 'm2')).history.map((h) => h.version)).toEqual([1, 2, 3])
  })

  it('closes as stale a proposal whose memory a newer evolution deleted, or whose statement exists already', async () => {
    const ctx = await seeded({
      more: [
        ({ input }) =>
          jsonl(
            { action: 'delete', old_id: input.existing_memories.find((m) => m.statement.includes('新番'))!.id, change_reason: '不看了' },
            { action: 'create', statement: '成员多为前端开发者', change_reason: '又提到了' },
          ),
      ],
    })
    await ctx.memories.evolve(group)
    const { update, create } = await proposals(ctx)
    await ctx.memories.setMode(group, 'auto')
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    say(ctx.store, ctx.clock.now, ['Dave: 新番不看了，我们都是前端'], 10)
    expect((await ctx.memories.evolve(group)).stats).toMatchObject({ deleted: 1, created: 1 })

    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toMatchObject({
      problem: 'stale',
      params: [update.review_id, 'memory m2 was deleted since'],
    })
    await expect(ctx.memories.approveReview(create.review_id, { by: ADMIN })).rejects.toEqual(refusal('stale'))
    expect(ctx.reviews.reviews.get(update.review_id)).toMatchObject({ status: 'stale', note: 'memory m2 was deleted since' })
    expect(ctx.reviews.reviews.get(create.review_id)!.status).toBe('stale')
    await expect(ctx.memories.rejectReview(create.review_id, { by: ADMIN })).rejects.toEqual(refusal('decided'))
    expect(
      ctx.store
        .heads(group)
        .map((row) => row.statement)
        .sort(),
    ).toEqual(['喜欢深夜开黑', '成员多为前端开发者', '群组成员主要是技术背景'])
  })

  it('applies an update approved after another approval of the same memory only with new text', async () => {
    const ctx = await seeded({
      more: [
        ({ input }) =>
          jsonl({
            action: 'update',
            old_id: input.existing_memories.find((m) => m.statement.includes('新番'))!.id,
            statement: '每周五和周六晚上讨论新番',
            change_reason: '多了周六',
          }),
      ],
    })
    await ctx.memories.evolve(group)
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    say(ctx.store, ctx.clock.now, ['Dave: 周六也一起看吧'], 10)
    await ctx.memories.evolve(group)
    const updates = (await ctx.memories.pendingReviews(group)).reviews.filter((r) => r.action === 'update')
    expect(updates.map((r) => r.statement)).toEqual(['每周五晚上讨论新番，偏好科幻', '每周五和周六晚上讨论新番'])
    await ctx.memories.approveReview(updates[1].review_id, { by: ADMIN })
    await expect(ctx.memories.approveReview(updates[0].review_id, { by: ADMIN })).rejects.toEqual(refusal('changed'))
  })
})

describe('rejecting', () => {
  it('records who rejected it and why, and changes nothing else', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { delete: remove } = await proposals(ctx)
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    const decision = await ctx.memories.rejectReview(remove.review_id, { by: ADMIN, reason: '  还在打 ', group: 'qq:g1' })
    expect(decision.review).toMatchObject({
      status: 'rejected',
      decided_by: ADMIN,
      decided_at: ctx.clock.now.toISOString(),
      note: '还在打',
      applied_memory_id: null,
    })
    expect(ctx.store.memories.get('m3')).toMatchObject({ status: 'active' })
    expect(ctx.store.changes.size).toBe(0)
    await expect(ctx.memories.approveReview(remove.review_id, { by: ADMIN })).rejects.toMatchObject({
      problem: 'decided',
      params: [remove.review_id, 'rejected'],
    })
    expect((await ctx.memories.pendingReviews(group)).reviews).toHaveLength(2)
    expect(ctx.counters.get('group.review-rejected')).toBe(1)
  })
})

describe('expiry', () => {
  it('closes proposals older than the expiry on the timer, logging the count per group', async () => {
    const ctx = await seeded({ more: [jsonl({ action: 'create', statement: '喜欢爬山' })] })
    await ctx.memories.evolve(group)
    // a later proposal in another group, one hour younger
    ctx.clock.now = new Date(T0.getTime() + HOUR)
    say(ctx.store, ctx.clock.now, ['Bob: 周末爬山'], 10, other)
    await ctx.memories.evolve(other)

    ctx.clock.now = new Date(T0.getTime() + 71 * HOUR)
    expect(await ctx.memories.expireReviews()).toBe(0)
    expect((await ctx.memories.pendingReviews(group)).reviews).toHaveLength(3)

    ctx.clock.now = new Date(T0.getTime() + 72 * HOUR + 1)
    ctx.logs.length = 0
    expect(await ctx.memories.expireReviews()).toBe(3)
    expect(ctx.logs).toEqual(['group qq:g1: 3 proposals expired unreviewed after 72 hours'])
    expect(ctx.reviews.rowsOf(group).map((row) => [row.status, row.decidedBy])).toEqual([
      ['expired', 'expiry'],
      ['expired', 'expiry'],
      ['expired', 'expiry'],
    ])
    expect((await ctx.memories.pendingReviews(group)).reviews).toEqual([])
    expect((await ctx.memories.pendingReviews(other)).reviews).toHaveLength(1)
    expect(ctx.counters.get('group.review-expired')).toBe(3)

    ctx.clock.now = new Date(T0.getTime() + 74 * HOUR)
    expect(await ctx.memories.expireReviews()).toBe(1)
    expect(await ctx.memories.expireReviews()).toBe(0)
    // nothing was applied
    expect(ctx.store.heads(group).map((row) => row.id)).toEqual(['m1', 'm2', 'm3'])
    expect(ctx.store.heads(other)).toEqual([])
  })

  it('refuses to decide a proposal past its expiry before the timer reached it, and closes it', async () => {
    const ctx = await seeded()
    await ctx.memories.evolve(group)
    const { update, delete: remove } = await proposals(ctx)
    ctx.clock.now = new Date(T0.getTime() + 73 * HOUR)
    expect((await ctx.memories.pendingReviews(group)).reviews).toEqual([])
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toMatchObject({
      problem: 'expired',
      params: [update.review_id, '72'],
    })
    await expect(ctx.memories.rejectReview(remove.review_id, { by: ADMIN })).rejects.toEqual(refusal('expired'))
    expect(ctx.reviews.reviews.get(update.review_id)!.status).toBe('expired')
    expect(ctx.store.changes.size).toBe(0)
    await expect(ctx.memories.approveReview(update.review_id, { by: ADMIN })).rejects.toEqual(refusal('decided'))
    expect(await ctx.memories.expireReviews()).toBe(1)
  })
})
