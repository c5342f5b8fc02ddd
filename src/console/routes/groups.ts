import type { Context } from 'koishi'
import { Lru } from '../../core/lru'
import { GroupMemoryError } from '../../group'
import type { TopicSummaryRow } from '../../topic-summaries'
import type { TopicRow } from '../../topics'
import { diffWords } from '../diff'
import type { Authorities, EvolutionState, GroupChangeView, GroupHit, GroupRef, GroupVersionView, TopicView } from '../types'
import type { Routes } from './route'
import { ConsoleError, groupArg, id, route } from './route'
import { messageView, ms } from './views'

/** Topics shown of a group, raw messages of a topic. */
const TOPICS_SHOWN = 30
const TOPIC_MESSAGES = 200
/** Evolutions remembered for the page (running or done). */
const EVOLUTIONS_KEPT = 100

const groupKey = (group: GroupRef) => JSON.stringify([group.platform, group.guildId])

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

const topKeywords = (keywords: Record<string, number>, n = 10): [string, number][] =>
  Object.entries(keywords)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)

/** A topic with its latest summary (of `versions`, every version of it). */
function topicView(topic: TopicRow, versions: TopicSummaryRow[]): TopicView {
  const latest = versions.reduce<TopicSummaryRow | undefined>((a, b) => (!a || b.version > a.version ? b : a), undefined)
  return {
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
  }
}

/** Groups: their memories with history and change log, evolution, topics and a topic's messages. */
export function groupRoutes(ctx: Context, authority: Authorities, evolutions: Evolutions): Routes {
  const memory = () => ctx.memory
  return {
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
      return evolutions.start(target, async () => {
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

    'memory/group/evolution': route(authority.groups, async (_caller, [group]) => evolutions.get(groupArg(group)) ?? null),

    'memory/group/topics': route(authority.groups, async (_caller, [group]) => {
      const target = groupArg(group)
      const topics = (await memory().topics.inGuild(target))
        .sort((a, b) => ms(b.lastMessageAt) - ms(a.lastMessageAt))
        .slice(0, TOPICS_SHOWN)
      const views: TopicView[] = []
      for (const topic of topics) views.push(topicView(topic, await memory().topics.versions(topic.id)))
      return views
    }),

    'memory/topic/messages': route(authority.groups, async (_caller, [group, topicId]) => {
      const target = groupArg(group)
      const topic = await memory().topics.get(id(topicId, 'topic'))
      // a topic of another group is not found, as a memory of another group is not
      if (!topic || topic.platform !== target.platform || topic.guildId !== target.guildId) throw new ConsoleError('topic-not-found')
      return (await memory().topicMessages(topic.id, { limit: TOPIC_MESSAGES })).map(messageView)
    }),
  }
}
