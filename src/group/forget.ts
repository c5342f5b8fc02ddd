import type { Counters, Logger } from '../core/observability'
import type { GroupEvolver } from './evolution'
import { groupId, sameGroup } from './group-id'
import type { GroupIndex } from './group-index'
import type { KoishiGroupStore, KoishiReviewStore } from './koishi-store'
import type { KoishiGroupSources } from './sources'
import type { GroupChangeRow, GroupLeaseRow, GroupMemoryRow, GroupRef, ReviewRow } from './types'

const EPOCH = new Date(0)

/** A message a forget erases, as group memory needs to know it. */
export interface ErasedGroupLine {
  /** The message's row id. */
  id: string
  /** `''` or left out: a private message. */
  guildId?: string
}

export interface GroupForgetDeps {
  store: Pick<KoishiGroupStore, 'hasMemories' | 'memoriesOf' | 'changesOf' | 'removeMemories' | 'removeChanges' | 'getLease' | 'patchLease'>
  reviews: Pick<KoishiReviewStore, 'hasReviews' | 'reviewsOf' | 'removeReviews'>
  sources: Pick<KoishiGroupSources, 'runsReading' | 'recorded' | 'remove'>
  index?: Pick<GroupIndex, 'table'>
  exclusive: GroupEvolver['exclusive']
  counters: Counters
  logger: Logger
}

/** The rows of one group a forget looks through, read under the group's lease. */
interface GroupRows {
  memories: GroupMemoryRow[]
  changes: GroupChangeRow[]
  reviews: ReviewRow[]
}

/** Why a writer's text counts as drawn from the erased messages: its run read one, or it recorded no sources. */
type Drawn = 'read' | 'legacy' | undefined

/**
 * What a forget does to group memory (docs/reliability.md, "Group memory and forget"). Each evolution
 * run records the messages it read (`memory_group_source`); everything a run wrote is taken as drawn
 * from all of them, since the model is not asked which line taught it what. For the erased messages:
 *
 * - every memory with a version, a deletion or a change-log row written by a run that read one of
 *   them, or by the approval of a proposal of such a run, goes whole: all its versions, its change
 *   log, the proposals about it, its index rows; so do that run's own proposals, whatever their status;
 * - a writer that recorded no sources (a run from before sources were recorded, an imported row) is
 *   taken as drawn from every message of its group: it goes when an erased message was said there;
 * - the group's watermark goes back to just before the oldest message such a run read (to the start
 *   for the writers without sources), so the next evolution makes again, from the messages left,
 *   what the other members said (as far back as the evolution's window reaches); an interrupted plan
 *   drawn from the messages is dropped.
 */
export class GroupForget {
  constructor(private readonly deps: GroupForgetDeps) {}

  /** Removes what group memory drew from `erased` (messages of a platform); returns how many memory versions went. */
  async eraseMessages(platform: string, erased: ErasedGroupLine[]): Promise<number> {
    const ids = erased.map((line) => line.id)
    const groups = new Map<string, GroupRef>()
    const saidIn = new Set<string>()
    for (const { guildId } of erased) {
      if (!guildId) continue
      const group = { platform, guildId }
      groups.set(groupId(group), group)
      saidIn.add(groupId(group))
    }
    const read = new Set<string>()
    for (const run of await this.deps.sources.runsReading(ids)) {
      groups.set(groupId(run), { platform: run.platform, guildId: run.guildId })
      read.add(groupId(run))
    }
    let removed = 0
    for (const [key, group] of groups) {
      // most groups a person spoke in have no group memory: nothing to take, no lease to hold
      if (read.has(key) || (await this.holdsAny(group))) removed += await this.eraseIn(group, ids, saidIn.has(key))
    }
    return removed
  }

  /** Whether the group has a memory, a proposal or an interrupted plan. */
  private async holdsAny(group: GroupRef): Promise<boolean> {
    const { store, reviews } = this.deps
    return (await store.hasMemories(group)) || (await reviews.hasReviews(group)) || Boolean((await store.getLease(group))?.pending)
  }

  /** Holding the group as an evolution does, so a run under way finishes (and records its sources) first. */
  private async eraseIn(group: GroupRef, ids: string[], said: boolean): Promise<number> {
    const result = await this.deps.exclusive(group, (owner) => this.eraseHeld(group, ids, said, owner))
    if (result.held) return result.value
    // another instance is evolving the group: what is there goes now, the watermark stays where it is
    this.deps.logger.warn('group %s: erased without its lease (another instance holds it); the watermark is left as it is', groupId(group))
    return this.eraseHeld(group, ids, said)
  }

  private async eraseHeld(group: GroupRef, ids: string[], said: boolean, owner?: string): Promise<number> {
    const { store, reviews, sources, index, counters, logger } = this.deps
    const read = new Set((await sources.runsReading(ids)).filter((run) => sameGroup(run, group)).map((run) => run.runId))
    const [memories, changes, proposals, lease] = await Promise.all([
      store.memoriesOf(group),
      store.changesOf(group),
      reviews.reviewsOf(group),
      store.getLease(group),
    ])
    const rows: GroupRows = { memories, changes, reviews: proposals }
    const pendingRun = lease?.pending ? runOfPlan(lease.pending) : undefined
    const writers = [
      ...memories.flatMap((row) => [row.runId, row.statusBy]),
      ...changes.map((row) => row.runId),
      ...proposals.map((row) => row.runId),
    ]
    const recorded = await sources.recorded([...writers, ...read, pendingRun ?? ''])
    const proposalRun = new Map(proposals.map((row) => [row.id, row.runId]))
    const drawn = (writer: string): Drawn => {
      if (!writer || writer.startsWith('manual')) return undefined
      if (read.has(writer)) return 'read'
      if (recorded.has(writer)) return undefined
      const run = proposalRun.get(writer)
      if (run !== undefined && run !== writer) return drawn(run)
      return said ? 'legacy' : undefined
    }

    const gone = this.drawnFrom(rows, drawn)
    const dropPlan = Boolean(pendingRun && drawn(pendingRun))
    await index?.table.remove(gone.memories)
    await store.removeMemories(gone.memories)
    await store.removeChanges(gone.changes)
    await reviews.removeReviews(gone.reviews)
    const to = rewindTo(
      gone.legacy,
      [...read].map((run) => recorded.get(run)),
    )
    if (owner && lease && (gone.memories.length || gone.reviews.length || dropPlan)) await this.rewind(group, owner, lease, to, dropPlan)
    // the record of what the runs read goes last: a forget cut off before here finds the same rows again
    await sources.remove([...read])
    if (!gone.memories.length && !gone.changes.length && !gone.reviews.length) return 0
    counters.inc('forget.group-memories', gone.memories.length)
    logger.info(
      'group %s: a forget removed %d memory versions, %d change-log rows and %d proposals drawn from the erased messages',
      groupId(group),
      gone.memories.length,
      gone.changes.length,
      gone.reviews.length,
    )
    return gone.memories.length
  }

  /** The memory versions (whole chains), change-log rows and proposals drawn from the erased messages. */
  private drawnFrom(rows: GroupRows, drawn: (writer: string) => Drawn) {
    let legacy = false
    const hit = (writer: string) => {
      const why = drawn(writer)
      if (why === 'legacy') legacy = true
      return Boolean(why)
    }
    const seeds = [
      ...rows.memories.filter((row) => hit(row.runId) || hit(row.statusBy)).map((row) => row.id),
      ...rows.changes.filter((row) => hit(row.runId)).flatMap((row) => [row.memoryId, row.previousId]),
      ...rows.reviews.filter((row) => hit(row.runId)).flatMap((row) => [row.targetId, row.newId, row.memoryId]),
    ]
    const memories = chainsOf(rows.memories, seeds)
    const changes = rows.changes.filter((row) => memories.has(row.memoryId) || memories.has(row.previousId) || hit(row.runId))
    const reviews = rows.reviews.filter(
      (row) => hit(row.runId) || memories.has(row.targetId) || memories.has(row.newId) || memories.has(row.memoryId),
    )
    return { memories: [...memories], changes: changes.map((row) => row.id), reviews: reviews.map((row) => row.id), legacy }
  }

  /** Sets the watermark back to `to` (when earlier) so the next evolution reads again what is left, and drops a plan drawn from the erased messages. */
  private async rewind(group: GroupRef, owner: string, lease: GroupLeaseRow, to: Date | undefined, dropPlan: boolean) {
    const back = to && to.getTime() < lease.watermark.getTime()
    if (!back && !dropPlan) return
    await this.deps.store.patchLease(group, owner, { ...(back ? { watermark: to } : {}), ...(dropPlan ? { pending: '' } : {}) })
  }
}

/** Just before the oldest message the runs read; the start when a writer without sources was removed. */
function rewindTo(legacy: boolean, oldest: (Date | undefined)[]): Date | undefined {
  if (legacy) return EPOCH
  const times = oldest.filter((time): time is Date => Boolean(time)).map((time) => time.getTime())
  return times.length ? new Date(Math.min(...times) - 1) : undefined
}

/** The run of a stored plan, when it can be read. */
function runOfPlan(text: string): string | undefined {
  try {
    const plan = JSON.parse(text) as { runId?: unknown }
    return typeof plan?.runId === 'string' ? plan.runId : undefined
  } catch {
    return undefined
  }
}

/** Every version of the memories `seeds` belong to (linked by `parentId` and `supersededBy`). */
function chainsOf(rows: GroupMemoryRow[], seeds: string[]): Set<string> {
  const links = new Map<string, string[]>()
  const link = (a: string, b: string) => {
    if (!a || !b) return
    links.set(a, [...(links.get(a) ?? []), b])
    links.set(b, [...(links.get(b) ?? []), a])
  }
  const known = new Set(rows.map((row) => row.id))
  for (const row of rows) {
    link(row.id, row.parentId)
    link(row.id, row.supersededBy)
  }
  const out = new Set<string>()
  const queue = seeds.filter((id) => known.has(id))
  while (queue.length) {
    const id = queue.pop()!
    if (out.has(id) || !known.has(id)) continue
    out.add(id)
    queue.push(...(links.get(id) ?? []))
  }
  return out
}
