import type { Context } from 'koishi'
import type { Config } from '../config'
import { Lru } from '../core/lru'
import type { FactRow } from '../facts'
import type { ReviewView } from '../group'
import { GroupMemoryError, ReviewError } from '../group'
import type { EntityRow, ProfileRow } from '../knowledge'
import type { MessageRow } from '../messages'
import { cleanId } from '../scope'
import type { ExportSelection, ImportResult } from '../transfer'
import { diffWords } from './diff'
import type { MetricsSeries } from './series'
import type {
  Authorities,
  EntityView,
  EvolutionState,
  ExportChoice,
  ExportView,
  FactView,
  GroupChangeView,
  GroupHit,
  GroupRef,
  GroupVersionView,
  HealthView,
  ImportView,
  MessageView,
  PendingView,
  ProfileView,
  TopicView,
  UserDetails,
  UserHit,
  UserRef,
} from './types'

/** Who calls, as `@koishijs/plugin-auth` knows them (nothing without it). */
export interface Caller {
  id?: number
  name?: string
}

/** An error the page words in its language: `errors.<code>`. */
export class ConsoleError extends Error {
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code)
  }
}

export interface Route {
  /** The least authority a console user needs (`@koishijs/plugin-auth` checks it before the call). */
  authority: number
  run(caller: Caller, args: unknown[]): Promise<unknown>
}

/** The authorities of the page's parts: the page's own, and for each part at least its command's. */
export function consoleAuthorities(config: Config): Authorities {
  const page = config.authority.console
  return {
    page,
    people: Math.max(page, config.authority.listOthers),
    groups: Math.max(page, config.group.authority),
    health: Math.max(page, config.authority.stats),
    transfer: Math.max(page, config.authority.transfer),
  }
}

// ── arguments: the page is a client like any other, so everything it sends is checked ─────────────

const ID_MAX = 255
/** Longest search. */
const QUERY_MAX = 200
/** Longest statement of an edit or an approval, and longest reason. */
const TEXT_MAX = 1000
/** Largest file the page may import, in characters (the command reads up to 64 MB). */
export const IMPORT_MAX_CHARS = 32 * 1024 * 1024
/** Facts shown of one user; sources quoted at most. */
const FACTS_SHOWN = 200
const SOURCES_SHOWN = 400
/** Topics shown of a group, raw messages of a topic. */
const TOPICS_SHOWN = 30
const TOPIC_MESSAGES = 200
/** Evolutions remembered for the page (running or done). */
const EVOLUTIONS_KEPT = 100

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string') throw new ConsoleError('bad-request', `${name} must be text`)
  if (value.length > max) throw new ConsoleError('bad-request', `${name} is longer than ${max} characters`)
  return value
}

/** An id as the stores keep it: no control characters or lone surrogates (`cleanId`). */
function id(value: unknown, name: string): string {
  const given = text(value, name, ID_MAX)
  if (!given || cleanId(given) !== given) throw new ConsoleError('bad-request', `${name} is not an id`)
  return given
}

function userArg(value: unknown): UserRef {
  if (typeof value !== 'object' || !value) throw new ConsoleError('bad-request', 'a user is { platform, userId }')
  const { platform, userId } = value as Record<string, unknown>
  return { platform: id(platform, 'platform'), userId: id(userId, 'userId') }
}

function groupArg(value: unknown): GroupRef {
  if (typeof value !== 'object' || !value) throw new ConsoleError('bad-request', 'a group is { platform, guildId }')
  const { platform, guildId } = value as Record<string, unknown>
  return { platform: id(platform, 'platform'), guildId: id(guildId, 'guildId') }
}

function optionalText(value: unknown, name: string, max: number): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : text(value, name, max)
}

const groupKey = (group: GroupRef) => JSON.stringify([group.platform, group.guildId])

/** Who did it, as a change's reason or a review's `by` keeps it. */
export function callerName(caller: Caller): string {
  return caller.name ? `console:${caller.name}` : caller.id !== undefined ? `console:#${caller.id}` : 'console'
}

// ── views ─────────────────────────────────────────────────────────────────────

const ms = (date: Date | null | undefined) => (date ? new Date(date).getTime() : 0)

function factView(row: FactRow, parent?: FactRow): FactView {
  return {
    id: row.id,
    guildId: row.guildId,
    channelId: row.channelId,
    content: row.content,
    reason: row.reason,
    version: row.version,
    parentId: row.parentId,
    supersededBy: row.supersededBy ?? '',
    current: !row.validTo,
    createdAt: ms(row.createdAt),
    updatedAt: ms(row.updatedAt),
    validFrom: ms(row.validFrom ?? row.createdAt),
    validTo: row.validTo ? ms(row.validTo) : null,
    sourceIds: row.sourceIds,
    ...(parent && { diff: diffWords(parent.content, row.content) }),
  }
}

function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    guildId: row.guildId,
    channelId: row.channelId,
    userId: row.userId,
    userName: row.userName,
    role: row.role,
    content: row.content,
    createdAt: ms(row.createdAt),
  }
}

function profileView(row: ProfileRow): ProfileView {
  return {
    guildId: row.guildId,
    userName: row.userName,
    profileText: row.profileText,
    preferences: row.preferences.map((one) => ({ key: one.key, value: one.value, current: one.validTo === null })),
    traits: row.traits.map((trait) => trait.name),
    updatedAt: ms(row.updatedAt),
  }
}

function entityView(row: EntityRow): EntityView {
  return {
    id: row.id,
    guildId: row.guildId,
    userId: row.userId,
    name: row.name,
    type: row.type,
    aliases: row.aliases,
    description: row.description,
    mentions: row.mentions,
    lastSeen: ms(row.lastSeen),
  }
}

const topKeywords = (keywords: Record<string, number>, n = 10): [string, number][] =>
  Object.entries(keywords)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)

function importView(result: ImportResult): ImportView {
  return {
    formats: result.formats,
    counts: result.counts,
    renamed: result.renamed,
    bad: result.bad.slice(0, 50),
    layout: result.layout,
  }
}

/** `memory-group-sandbox-123-20260301-093005.jsonl`: letters, digits, `.`, `_` and `-` only. */
function exportName(label: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, '')
  return `memory-${label.replace(/[^\w.-]+/g, '_').slice(0, 80)}-${stamp}.jsonl`
}

// ── evolutions under way ──────────────────────────────────────────────────────

/** Evolutions the page started, by group: running, or how they ended. */
export class Evolutions {
  private readonly states = new Lru<EvolutionState>(EVOLUTIONS_KEPT)

  get(group: GroupRef): EvolutionState | undefined {
    return this.states.get(groupKey(group))
  }

  /** Starts `run` for the group unless one is under way; returns the state either way. */
  start(group: GroupRef, run: () => Promise<EvolutionState['result']>): EvolutionState {
    const key = groupKey(group)
    const known = this.states.get(key)
    if (known?.running) return known
    const state: EvolutionState = { running: true, startedAt: Date.now() }
    this.states.set(key, state)
    run().then(
      (result) => Object.assign(state, { running: false, finishedAt: Date.now(), result }),
      (error: unknown) =>
        Object.assign(state, {
          running: false,
          finishedAt: Date.now(),
          error: error instanceof GroupMemoryError ? `group-${error.code}` : (error as Error).message,
        }),
    )
    return state
  }
}

// ── the routes ───────────────────────────────────────────────────────────────

export interface RouteDeps {
  series: MetricsSeries
  evolutions: Evolutions
  /** When the series started (the plugin's start), epoch ms. */
  since: number
  sampleSeconds: number
}

/**
 * The page's operations, by listener name. Each reaches the memory as the commands do — through
 * `ctx.memory` and the same service methods, which keep every scope (a fact of another user, a memory
 * of another group is not found) — and needs the authority of its part of the page.
 */
export function consoleRoutes(ctx: Context, config: Config, deps: RouteDeps): Record<string, Route> {
  const authority = consoleAuthorities(config)
  const memory = () => ctx.memory
  const route = (level: number, run: Route['run']): Route => ({ authority: level, run })

  return {
    // ── people
    'memory/users': route(authority.people, async (_caller, [query]) => {
      const q = text(query, 'query', QUERY_MAX).trim()
      if (!q) return []
      const speakers = await memory().messages.speakers(q, 20)
      const hits: UserHit[] = []
      for (const speaker of speakers) {
        const owner = { platform: speaker.platform, userId: speaker.userId }
        hits.push({
          ...owner,
          name: speaker.userName,
          messages: speaker.messages,
          lastSeen: ms(speaker.newest),
          guilds: speaker.guilds,
          facts: await memory().facts.count(owner),
        })
      }
      return hits
    }),

    'memory/user': route(authority.people, async (_caller, [user]): Promise<UserDetails> => {
      const owner = userArg(user)
      const [rows, total, knowledge] = await Promise.all([
        memory().list(owner, FACTS_SHOWN, 0, { history: true }),
        memory().facts.count(owner, { history: true }),
        memory().userKnowledge(owner),
      ])
      const byId = new Map(rows.map((row) => [row.id, row]))
      const wanted = [...new Set(rows.flatMap((row) => row.sourceIds))].slice(0, SOURCES_SHOWN)
      const sources = await memory().messages.byIds(wanted)
      const said = sources.filter((row) => row.userId === owner.userId).sort((a, b) => ms(b.createdAt) - ms(a.createdAt))
      const name = said[0]?.userName || knowledge.profiles.find((profile) => profile.userName)?.userName || owner.userId
      return {
        user: owner,
        name,
        facts: rows.map((row) => factView(row, row.parentId ? byId.get(row.parentId) : undefined)),
        total,
        sources: Object.fromEntries(sources.map((row) => [row.id, messageView(row)])),
        profiles: knowledge.profiles.map(profileView),
        entities: knowledge.entities
          .sort((a, b) => b.mentions - a.mentions || ms(b.lastSeen) - ms(a.lastSeen))
          .slice(0, 100)
          .map(entityView),
      }
    }),

    'memory/fact/edit': route(authority.people, async (caller, [user, factId, statement]) => {
      const owner = userArg(user)
      const result = await memory().editFact(owner, id(factId, 'id'), text(statement, 'statement', TEXT_MAX), { by: callerName(caller) })
      if (result.status === 'revised') return factView(result.fact, result.previous)
      if (result.status === 'unchanged') return factView(result.fact)
      throw new ConsoleError(`fact-${result.status}`)
    }),

    'memory/fact/forget': route(authority.people, async (_caller, [user, factId]) => {
      const owner = userArg(user)
      const target = id(factId, 'id')
      // the fact with the versions an edit left behind it: what it said goes whole
      const ids = (await memory().facts.versions(target)).map((row) => row.id)
      const erased = await memory().forget(owner, ids)
      if (!erased.includes(target)) throw new ConsoleError('fact-not-found')
      return erased
    }),

    'memory/user/forget-all': route(authority.people, async (_caller, [user]) => {
      // the cascade of `memory.forget --all`: facts, messages, the bot's answers, knowledge, summaries
      return memory().forgetAll(userArg(user))
    }),

    // ── groups
    'memory/groups': route(authority.groups, async () => {
      const guilds = await memory().messages.activeGuilds(new Date(0))
      const hits: GroupHit[] = []
      for (const one of guilds.sort((a, b) => ms(b.newest) - ms(a.newest)).slice(0, 200)) {
        const group = { platform: one.platform, guildId: one.guildId }
        const page = await memory().groups.list(group, { status: 'active', limit: 1 })
        hits.push({
          ...group,
          newest: ms(one.newest),
          memories: page.total,
          mode: await memory().reviewMode(group),
        })
      }
      return hits
    }),

    'memory/group/memories': route(authority.groups, async (_caller, [group, status]) => {
      const chosen = status === 'deprecated' || status === 'all' ? status : 'active'
      const page = await memory().groups.list(groupArg(group), { status: chosen, limit: 100 })
      return { total: page.total, memories: page.memories }
    }),

    'memory/group/history': route(authority.groups, async (_caller, [group, memoryId]) => {
      const history = await memory().groups.history(groupArg(group), id(memoryId, 'id'))
      return history.history.map((row, i): GroupVersionView => ({
        version: row.version,
        memory_id: row.memory_id,
        statement: row.statement,
        status: row.status,
        change_summary: row.change_summary,
        created_at: row.created_at,
        diff: i ? diffWords(history.history[i - 1].statement, row.statement) : [],
      }))
    }),

    'memory/group/changes': route(authority.groups, async (_caller, [group, days]) => {
      const span = typeof days === 'number' && Number.isInteger(days) && days >= 1 && days <= 90 ? days : 7
      const { changes } = await memory().groups.changes(groupArg(group), { days: span })
      return changes.map((change): GroupChangeView =>
        change.action === 'update' ? { ...change, diff: diffWords(change.old_statement, change.new_statement) } : change,
      )
    }),

    'memory/group/restore': route(authority.groups, async (_caller, [group, memoryId]) => {
      return (await memory().groups.restore(groupArg(group), id(memoryId, 'id'))).memory
    }),

    'memory/group/evolve': route(authority.groups, async (_caller, [group]) => {
      const target = groupArg(group)
      return deps.evolutions.start(target, async () => {
        const result = await memory().evolve(target)
        return {
          status: result.status,
          message: result.message,
          stats: result.stats,
          input: result.input,
          issues: result.issues.invalid_lines + result.issues.rejected_ops,
        }
      })
    }),

    'memory/group/evolution': route(authority.groups, async (_caller, [group]) => deps.evolutions.get(groupArg(group)) ?? null),

    'memory/group/topics': route(authority.groups, async (_caller, [group]) => {
      const target = groupArg(group)
      const topics = (await memory().topics.inGuild(target))
        .sort((a, b) => ms(b.lastMessageAt) - ms(a.lastMessageAt))
        .slice(0, TOPICS_SHOWN)
      const views: TopicView[] = []
      for (const topic of topics) {
        const versions = await memory().topics.versions(topic.id)
        const latest = versions.reduce<(typeof versions)[number] | undefined>((a, b) => (!a || b.version > a.version ? b : a), undefined)
        views.push({
          id: topic.id,
          channelId: topic.channelId,
          title: topic.title,
          active: topic.active,
          messageCount: topic.messageCount,
          lastMessageAt: ms(topic.lastMessageAt),
          keywords: topKeywords(topic.keywords),
          ...(latest && {
            summary: {
              version: latest.version,
              versions: versions.length,
              summary: latest.summary,
              keywords: topKeywords(latest.keywords),
              quality: latest.quality,
              participants: latest.participants,
              fallback: latest.fallback,
              model: latest.model,
              createdAt: ms(latest.createdAt),
            },
          }),
        })
      }
      return views
    }),

    'memory/topic/messages': route(authority.groups, async (_caller, [group, topicId]) => {
      const target = groupArg(group)
      const topic = await memory().topics.get(id(topicId, 'topic'))
      // a topic of another group is not found, as a memory of another group is not
      if (!topic || topic.platform !== target.platform || topic.guildId !== target.guildId) throw new ConsoleError('topic-not-found')
      return (await memory().topicMessages(topic.id, { limit: TOPIC_MESSAGES })).map(messageView)
    }),

    // ── moderation (with the review queue)
    'memory/review/mode': route(authority.groups, async (caller, [group, mode]) => {
      const target = groupArg(group)
      if (mode !== undefined && mode !== null) {
        if (mode !== 'auto' && mode !== 'review') throw new ConsoleError('bad-request', 'mode is auto or review')
        await memory().setReviewMode(target, mode, { by: callerName(caller) })
      }
      return memory().reviewMode(target)
    }),

    'memory/review/queue': route(authority.groups, async (_caller, [group]) =>
      (await memory().reviewQueue(groupArg(group))).reviews.map(pendingView),
    ),

    // a decision names its group: the proposal must be that group's
    'memory/review/approve': route(authority.groups, async (caller, [group, opId, statement]) =>
      pendingView(
        (
          await memory().approveReview(id(opId, 'id'), {
            by: callerName(caller),
            group: groupArg(group),
            ...(optionalText(statement, 'statement', TEXT_MAX) !== undefined && { statement: statement as string }),
          })
        ).review,
      ),
    ),

    'memory/review/reject': route(authority.groups, async (caller, [group, opId, reason]) =>
      pendingView(
        (
          await memory().rejectReview(id(opId, 'id'), {
            by: callerName(caller),
            group: groupArg(group),
            ...(optionalText(reason, 'reason', TEXT_MAX) !== undefined && { reason: reason as string }),
          })
        ).review,
      ),
    ),

    // ── health
    'memory/health': route(authority.health, async (): Promise<HealthView> => {
      const status = await memory().status()
      const tables = (await memory().indexHealth()).map(({ table, name, rows, optimizedAt }) => ({
        table,
        name,
        rows,
        optimizedAt: optimizedAt ? optimizedAt.getTime() : null,
      }))
      return {
        embedder: { ...status.choices.embedder, id: status.embedder },
        llm: { ...status.choices.llm, id: status.llm },
        index: { used: status.index.used, ...(status.index.lanceFailure && { lanceFailure: status.index.lanceFailure }) },
        breakers: Object.entries(status.breakers).map(([part, state]) => ({ part, state })),
        queue: status.queue,
        captureBuffer: status.captureBuffer,
        outbox: status.outbox,
        dialogues: status.dialogues,
        facts: status.facts,
        tables,
        series: await deps.series.read(),
        sampleSeconds: deps.sampleSeconds,
        since: deps.since,
      }
    }),

    // ── transfer
    'memory/export': route(authority.transfer, async (_caller, [choice]): Promise<ExportView> => {
      const given = (choice ?? {}) as ExportChoice
      let selection: ExportSelection
      let label: string
      if (given.kind === 'user') {
        const owner = userArg(given.user)
        selection = { user: owner }
        label = `user-${owner.platform}-${owner.userId}`
      } else if (given.kind === 'group') {
        const group = groupArg(given.group)
        selection = { group }
        label = `group-${group.platform}-${group.guildId}`
      } else if (given.kind === 'all') {
        selection = { all: true }
        label = 'all'
      } else throw new ConsoleError('bad-request', 'export all, a user or a group')
      const result = await memory().exportMemory(selection)
      return { fileName: exportName(label, new Date()), text: result.text, total: result.total, counts: result.counts }
    }),

    'memory/import': route(authority.transfer, async (_caller, [file, options]) => {
      const body = text(file, 'file', IMPORT_MAX_CHARS)
      if (!body.replace(/^\uFEFF/, '').trim()) throw new ConsoleError('import-empty')
      const given = (typeof options === 'object' && options ? options : {}) as Record<string, unknown>
      // mem0's memories name no platform: the one given (their user_id, or the user given, is the owner)
      const platform = given.platform === undefined || given.platform === '' ? undefined : id(given.platform, 'platform')
      const userId = given.userId === undefined || given.userId === '' ? undefined : id(given.userId, 'userId')
      const result = await memory().importMemory(body, { platform, userId })
      if (!result.formats.ours && !result.formats.mem0) throw new ConsoleError('import-format', result.bad[0]?.problem)
      return importView(result)
    }),
  }
}

/** Runs a route: its value, or an error the page can word (`ConsoleError`, the group API's errors, else `internal`). */
export async function runRoute(
  route: Route,
  caller: Caller,
  args: unknown[],
  log: (error: Error) => void,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string; detail?: string }> {
  try {
    return { ok: true, value: await route.run(caller, args) }
  } catch (error) {
    if (error instanceof ConsoleError) return { ok: false, error: error.code, ...(error.detail && { detail: error.detail }) }
    if (error instanceof ReviewError) return { ok: false, error: `review-${error.problem}`, detail: error.params.join(' · ') }
    if (error instanceof GroupMemoryError) return { ok: false, error: `group-${error.code}`, detail: error.message }
    log(error as Error)
    return { ok: false, error: 'internal', detail: (error as Error).message }
  }
}

/** A proposal of the review queue as the page shows it. */
function pendingView(review: ReviewView): PendingView {
  return {
    id: review.review_id,
    action: review.action,
    statement: review.statement,
    oldStatement: review.old_statement,
    reason: review.reason,
    status: review.status,
    createdAt: Date.parse(review.created_at),
    expiresAt: Date.parse(review.expires_at),
  }
}
