import type { Context } from 'koishi'
import type { Config } from '../config'
import type { Graph } from '../knowledge'
import { personOf } from '../scope'
import { clip } from '../text/clip'
import { parseUser } from './users'

/** Most source messages `memory.entity` quotes. */
const SOURCES_SHOWN = 3

const day = (date: Date) => date.toISOString().slice(0, 10)

/** The graph as an indented tree from its root: each entity once, under the first one that reaches it. */
export function renderGraph(graph: Graph): string[] {
  if (!graph.root) return []
  const names = new Map(graph.nodes.map((node) => [node.entity.id, node.entity.name]))
  const lines = [graph.root.name]
  const placed = new Set([graph.root.id])
  const walk = (id: string, indent: string) => {
    for (const edge of graph.edges) {
      const outgoing = edge.subjectId === id
      const other = outgoing ? edge.objectId : edge.subjectId
      if ((!outgoing && edge.objectId !== id) || placed.has(other)) continue
      placed.add(other)
      lines.push(`${indent}${outgoing ? '→' : '←'} ${edge.predicate} ${names.get(other)}`)
      walk(other, `${indent}  `)
    }
  }
  walk(graph.root.id, '  ')
  return lines
}

/** `memory.profile`, `memory.entity` and `memory.graph` (design §4.7). */
export function registerKnowledgeCommands(ctx: Context, config: Config) {
  const root = ctx.command('memory')

  root
    .subcommand('.profile [user:string]')
    .userFields(['authority'])
    .action(async ({ session }, user) => {
      if (!session?.userId) return
      const owner = user ? parseUser(session, user) : { platform: session.platform, userId: session.userId }
      const self = owner.platform === session.platform && owner.userId === session.userId
      if (!self && (session.user?.authority ?? 0) < config.authority.listOthers) return session.text('.forbidden')
      const profile = await ctx.memory.getUserProfile(personOf({ ...owner, guildId: session.guildId }))
      const current = profile?.preferences.filter((one) => one.validTo === null) ?? []
      if (!profile || (!profile.profileText && !current.length && !profile.traits.length)) return session.text('.empty')
      const lines = [session.text('.header', [profile.userName || owner.userId])]
      if (profile.profileText) lines.push(profile.profileText)
      // what the profile's text already says is not listed again under it
      const unsaid = (value: string) => !profile.profileText.includes(value)
      for (const preference of current.filter((one) => unsaid(one.value)))
        lines.push(session.text('.preference', [preference.key, preference.value]))
      const traits = profile.traits.map((trait) => trait.name).filter(unsaid)
      if (traits.length) lines.push(session.text('.traits', [traits.join(session.text('general.comma'))]))
      return lines.join('\n')
    })

  root.subcommand('.entity <name:text>').action(async ({ session }, name) => {
    if (!session?.userId) return
    if (!name?.trim()) return session.text('.missing-name')
    const details = await ctx.memory.entity(session, name.trim())
    if (!details) return session.text('.not-found', [name.trim()])
    const { entity, relations, others } = details
    const lines = [
      session.text('.header', [
        entity.name,
        session.text(`.type-${entity.type}`),
        entity.mentions,
        day(entity.firstSeen),
        day(entity.lastSeen),
      ]),
    ]
    if (entity.aliases.length) lines.push(session.text('.aliases', [entity.aliases.join(session.text('general.comma'))]))
    if (entity.description) lines.push(entity.description)
    for (const relation of relations) {
      const [subject, object] = [others.get(relation.subjectId)?.name, others.get(relation.objectId)?.name]
      if (!subject || !object) continue
      lines.push(
        relation.validTo
          ? session.text('.relation-past', [subject, relation.predicate, object, day(relation.validTo)])
          : session.text('.relation', [subject, relation.predicate, object]),
      )
    }
    const sources = await ctx.memory.messages.byIds(entity.sourceIds.slice(-SOURCES_SHOWN))
    if (sources.length) {
      lines.push(session.text('.sources', [entity.sourceIds.length]))
      for (const row of sources) lines.push(session.text('.source', [row.userName, clip(row.content, 60)]))
    }
    return lines.join('\n')
  })

  root
    .subcommand('.graph <name:string>')
    .option('depth', '-d <depth:posint>', { fallback: 2 })
    .action(async ({ session, options }, name) => {
      if (!session?.userId) return
      if (!name?.trim()) return session.text('.missing-name')
      const graph = await ctx.memory.queryGraph(session, name.trim(), { maxDepth: Math.min(options!.depth ?? 2, 4) })
      if (!graph.root) return session.text('.not-found', [name.trim()])
      if (!graph.edges.length) return session.text('.alone', [graph.root.name])
      const lines = renderGraph(graph)
      if (graph.truncated) lines.push(session.text('.truncated'))
      return lines.join('\n')
    })
}
