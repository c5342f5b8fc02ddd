import type { Context, Session } from 'koishi'
import { channelOf } from '../scope'
import type { TopicRow } from '../topics'

/** A topic the caller may see: one of the caller's channel, or any with authority ≥ 3. */
async function visibleTopic(ctx: Context, session: Session, id: string | undefined): Promise<TopicRow | string> {
  const channel = channelOf({ platform: session.platform, guildId: session.guildId, channelId: session.channelId! })
  const topic = id ? await ctx.memory.topics.get(id) : (await ctx.memory.topics.active(channel, 1))[0]
  if (!topic) return session.text(id ? 'commands.memory.messages.topic-not-found' : 'commands.memory.messages.no-topic')
  const own = topic.platform === session.platform && topic.channelId === session.channelId
  if (!own && ((session.user as { authority?: number } | undefined)?.authority ?? 0) < 3)
    return session.text('commands.memory.messages.topic-not-found')
  return topic
}

const score = (value?: number) => (value === undefined ? '—' : value.toFixed(2))

export function registerTopicCommands(ctx: Context) {
  ctx
    .command('memory.summarize [topic:string]', { authority: 2 })
    .userFields(['authority'])
    .action(async ({ session }, id) => {
      if (!session?.channelId) return
      const topic = await visibleTopic(ctx, session, id)
      if (typeof topic === 'string') return topic
      const result = await ctx.memory.topics.summarizeNow(topic.id)
      if (result.status !== 'created') return session.text(`.${result.status}`)
      const { row } = result
      return session.text(row.fallback ? '.created-offline' : '.created', [row.title, row.version, row.summary])
    })

  ctx
    .command('memory.topic <id:string>')
    .userFields(['authority'])
    .action(async ({ session }, id) => {
      if (!session?.channelId) return
      const topic = await visibleTopic(ctx, session, id)
      if (typeof topic === 'string') return topic
      const versions = await ctx.memory.topics.versions(topic.id)
      const latest = versions.reduce<(typeof versions)[number] | undefined>((a, b) => (!a || b.version > a.version ? b : a), undefined)
      const head = session.text('.head', [topic.title, session.text(topic.active ? '.active' : '.closed'), topic.messageCount])
      if (!latest) return head + '\n' + session.text('.no-summary')
      const q = latest.quality
      return [
        head,
        session.text('.summary', [
          latest.version,
          versions.length,
          latest.fallback ? session.text('.offline') : latest.model,
          latest.summary,
        ]),
        session.text('.meta', [
          latest.participants.join(', '),
          latest.firstMessageAt.toLocaleString(),
          latest.lastMessageAt.toLocaleString(),
          latest.messageCount,
        ]),
        session.text('.keywords', [
          Object.entries(latest.keywords)
            .slice(0, 8)
            .map(([word, weight]) => `${word}(${weight.toFixed(2)})`)
            .join(' '),
        ]),
        session.text('.quality', [score(q.coverage), score(q.coherence), score(q.relevance), score(q.llmScore), score(q.overall)]),
      ].join('\n')
    })
}
