import type { Context } from 'koishi'
import type { FactRow } from '../../facts'
import type { EntityRow, ProfileRow } from '../../knowledge'
import { diffWords } from '../diff'
import type { Authorities, EntityView, FactView, ProfileView, UserDetails, UserHit } from '../types'
import type { Routes } from './route'
import { callerName, ConsoleError, id, route, text, TEXT_MAX, userArg } from './route'
import { messageView, ms } from './views'

/** Longest search. */
const QUERY_MAX = 200
/** Facts shown of one user; sources quoted at most. */
const FACTS_SHOWN = 200
const SOURCES_SHOWN = 400

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

/** People: who spoke, what the memory holds of one of them, and editing or forgetting it. */
export function peopleRoutes(ctx: Context, authority: Authorities): Routes {
  const memory = () => ctx.memory
  return {
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
      const waiting = memory().waiting(owner)
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
        waiting: { messages: waiting.messages, dueAt: waiting.dueAt ? ms(waiting.dueAt) : null, memorising: waiting.memorising },
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
      const report = await memory().erase(owner, ids)
      if (!report.facts.includes(target)) throw new ConsoleError('fact-not-found')
      return report
    }),

    'memory/user/forget-all': route(authority.people, async (_caller, [user]) => {
      // the cascade of `memory.forget --all`: facts, messages, the bot's answers, knowledge, summaries
      return memory().erase(userArg(user), 'all')
    }),
  }
}
