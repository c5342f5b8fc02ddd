import type { App } from 'koishi'
import type { Family } from './family'
import { Tally } from './family'
import { bootApp, log } from '../lib/app'
import type { LLM } from '../../src/providers/types'
import { createGroupMemories } from '../../src/group'
import type { BuiltContext } from '../../src/context'
import {
  botIdOf,
  client,
  otherPlatform,
  echo,
  listen,
  markersIn,
  mulberry32,
  nonsenseWords,
  quiet,
  seedOf,
  send,
  Server,
  sessionFor,
  shuffle,
} from './support'
import { internalsOf } from '../../src/compose'

/**
 * Scope isolation, randomised (seeded): users on two platforms, in two groups each and in private,
 * each state one fact holding a nonsense marker of their own in every scope; then every read path is
 * asked, for every scope, with every marker. A leak is a marker showing up in an answer for a scope
 * it does not belong to; each scope must still find its own marker (the positive control). The same
 * user ids and group ids are used on both platforms, so a filter that forgets the platform leaks too.
 */

const TOKEN = 'isolation-token'
const PLATFORMS = ['mock', 'p2']
const USERS = 3
const GROUPS = 2

/** What each user says: a statement the offline rule judge keeps as a fact, with `$` for the marker. */
const TEMPLATES = ['我喜欢吃$', '我养了一只猫叫$', '我住在$', '我在$工作', '我最近在学$', '我周末经常去$钓鱼']

interface ScopeDef {
  platform: string
  userId: string
  /** '' for the private chat. */
  guildId: string
  marker: string
  statement: string
}

const channelOf = (scope: Pick<ScopeDef, 'userId' | 'guildId'>) => scope.guildId || `private:${scope.userId}`
const nameOf = (scope: Pick<ScopeDef, 'platform' | 'userId' | 'guildId'>) =>
  `${scope.platform}/${scope.userId}/${scope.guildId || 'private'}`

export const run: Family = async () => {
  const tally = new Tally()
  const rng = mulberry32(seedOf(10_001))
  const words = nonsenseWords(rng, USERS + GROUPS + PLATFORMS.length * USERS * (GROUPS + 1))
  const users = words.splice(0, USERS).map((word) => `u${word.slice(1, 6)}`)
  const groups = words.splice(0, GROUPS).map((word) => `g${word.slice(1, 6)}`)
  const scopes: ScopeDef[] = []
  for (const platform of PLATFORMS)
    for (const userId of users)
      for (const guildId of ['', ...groups]) {
        const marker = words.pop()!
        const template = TEMPLATES[Math.floor(rng() * TEMPLATES.length)]
        scopes.push({ platform, userId, guildId, marker, statement: template.replace('$', marker) })
      }
  const all = scopes.map((scope) => scope.marker)
  const owner = new Map(scopes.map((scope) => [scope.marker, nameOf(scope)]))

  // what each read may show
  const said = (platform: string, channel: string) =>
    new Set(scopes.filter((s) => s.platform === platform && channelOf(s) === channel).map((s) => s.marker))
  const factsIn = (platform: string, userId: string, guildId: string) =>
    new Set(scopes.filter((s) => s.platform === platform && s.userId === userId && s.guildId === guildId).map((s) => s.marker))
  const factsOfUser = (platform: string, userId: string) =>
    new Set(scopes.filter((s) => s.platform === platform && s.userId === userId).map((s) => s.marker))
  /** In a group, what was learnt in that group; in private, everything about the user (`sessionScope`). */
  const sessionFacts = (s: ScopeDef) => (s.guildId ? factsIn(s.platform, s.userId, s.guildId) : factsOfUser(s.platform, s.userId))
  const union = (...sets: Set<string>[]) => new Set(sets.flatMap((set) => [...set]))

  let queries = 0
  /** The markers in `text` that `allowed` does not hold, each a leak. */
  const leaked = (text: string, allowed: Set<string>) => markersIn(text, all).filter((marker) => !allowed.has(marker))
  const describe = (query: string, leaks: string[]) => `q=${query} showed ${leaks.map((m) => `${m}(${owner.get(m)})`).join(', ')}`

  /**
   * One trial: `read` answers a query as text; every marker is asked once. `own`: the markers this
   * scope must find (each asked for by itself).
   */
  async function batch(name: string, allowed: Set<string>, own: Set<string>, read: (query: string) => Promise<string>, asked = all) {
    await tally.run(name, async () => {
      let leaks = 0
      const details: string[] = []
      const missing: string[] = []
      for (const query of asked) {
        queries++
        const text = await read(query)
        const bad = leaked(text, allowed)
        leaks += bad.length
        if (bad.length && details.length < 3) details.push(describe(query, bad))
        if (own.has(query) && !text.includes(query)) missing.push(query)
      }
      if (missing.length) details.push(`own markers not found: ${missing.join(', ')}`)
      return { ok: missing.length === 0, harm: { leaks }, detail: details.join('; ') }
    })
  }

  const started = Date.now()
  const platforms = PLATFORMS.filter((platform) => platform !== 'mock').map((platform) => ({
    platform,
    bot: undefined as ReturnType<typeof otherPlatform> | undefined,
  }))
  const b = await bootApp(
    { api: { token: TOKEN }, group: { timer: false } },
    {
      extra: (app) => {
        app.plugin(echo)
        app.plugin(Server, {})
        for (const other of platforms) other.bot = otherPlatform(app, other.platform)
      },
    },
  )
  const app: App = b.app
  for (const other of platforms) other.bot!.ready()
  const server = await listen(app)
  try {
    // every scope states its fact, in a random order; in a group the bot is @-ed so it answers
    for (const scope of shuffle(rng, scopes)) {
      const text = scope.guildId ? `<at id="${botIdOf(scope.platform)}"/> ${scope.statement}` : scope.statement
      await client(app, scope.platform, scope.userId, scope.guildId || undefined).receive(text)
    }
    await app.memory.flush()
    log(`isolation: ${scopes.length} scopes stated their facts (${Date.now() - started} ms)`)

    // group memory from each group's chat, by a model that turns every marker it is shown into a memory
    let shown = ''
    const model: LLM = {
      id: 'marker-model',
      async generate(prompt) {
        const input = JSON.parse(prompt) as { new_discussions: string[] }
        shown = prompt
        return markersIn(input.new_discussions.join('\n'), all)
          .map((marker) => JSON.stringify({ action: 'create', statement: `群里有人常说起${marker}`, change_reason: '多次提到' }))
          .join('\n')
      },
    }
    const evolver = createGroupMemories(app, {
      index: internalsOf(app.memory).index,
      embedder: internalsOf(app.memory).providers.embedder,
      llm: () => model,
      counters: internalsOf(app.memory).counters,
      logger: quiet,
    })
    for (const platform of PLATFORMS)
      for (const guildId of groups) {
        const key = `${platform}:${guildId}`
        shown = ''
        const result = await evolver.evolve({ platform, guildId }, { days: 1 })
        const allowed = said(platform, guildId)
        await tally.run(`evolution-input ${key}`, async () => {
          queries++
          const bad = leaked(shown, allowed)
          return {
            ok: result.status === 'evolved' && result.stats.created === allowed.size,
            harm: { leaks: bad.length },
            detail: `${result.status}, created ${result.stats.created} of ${allowed.size}${bad.length ? `; ${describe('(evolution input)', bad)}` : ''}`,
          }
        })
      }

    for (const scope of scopes) {
      const { platform, userId, guildId, marker } = scope
      const label = nameOf(scope)
      const own = new Set([marker])
      const channel = said(platform, channelOf(scope))
      const groupMemories = guildId ? said(platform, guildId) : new Set<string>()

      await batch(`retrieve ${label}`, factsIn(platform, userId, guildId), own, async (query) =>
        JSON.stringify(await app.memory.retrieve(userId, query, { platform, guildId })),
      )
      if (!guildId)
        await batch(
          `retrieve-all-guilds ${platform}/${userId}`,
          factsOfUser(platform, userId),
          factsOfUser(platform, userId),
          async (query) => JSON.stringify(await app.memory.retrieve(userId, query, { platform })),
        )
      // the context, section by section: long-term facts, group memories, the channel's summary and messages;
      // a marker the context may hold but in another section (another member's fact among this user's) is a leak too
      const inContext = union(channel, sessionFacts(scope), groupMemories)
      let misplaced = 0
      const where: string[] = []
      await batch(`buildContext ${label}`, inContext, own, async (query) => {
        const context: BuiltContext = await app.memory.buildContext(sessionFor(app, { platform, userId, guildId, content: query }))
        const parts: [string, string, Set<string>][] = [
          ['longTerm', JSON.stringify(context.longTerm), sessionFacts(scope)],
          ['group', JSON.stringify(context.group ?? []), groupMemories],
          ['chat', JSON.stringify([context.summary, context.messages]), channel],
        ]
        for (const [section, text, allowed] of parts) {
          const bad = leaked(text, allowed).filter((m) => inContext.has(m))
          misplaced += bad.length
          if (bad.length && where.length < 3) where.push(`${section} showed ${bad.map((m) => `${m}(${owner.get(m)})`).join(', ')}`)
        }
        return parts.map(([, text]) => text).join('\n')
      })
      tally.trial(`buildContext-sections ${label}`, true, { leaks: misplaced }, where.join('; '))
      await batch(`assemblePrompt ${label}`, union(channel, sessionFacts(scope), groupMemories), own, async (query) => {
        const messages = await app.memory.assemblePrompt(sessionFor(app, { platform, userId, guildId, content: query }))
        // the last message is the question itself
        return JSON.stringify(messages.slice(0, -1))
      })
      await batch(`searchTool ${label}`, channel, own, async (query) => {
        const tool = app.memory.searchTool(sessionFor(app, { platform, userId, guildId, content: query }))
        return (await tool.handler({ query })).text
      })
    }

    for (const platform of PLATFORMS)
      for (const guildId of groups) {
        const key = `${platform}:${guildId}`
        const mine = said(platform, guildId)
        await batch(`group-recall ${key}`, mine, mine, async (query) =>
          JSON.stringify(await app.memory.groups.recall({ platform, guildId }, query, { threshold: 0.01 })),
        )
        await batch(`http-search ${key}`, mine, mine, async (query) => {
          const path = `/memory/search/${encodeURIComponent(key)}?q=${encodeURIComponent(query)}&threshold=0.01`
          const answer = await send(server.base, 'GET', path, { token: `Bearer ${TOKEN}` })
          // the answer repeats the query: only its results count
          return answer.status === 200 ? JSON.stringify(answer.json?.results) : `status ${answer.status}`
        })
        await batch(
          `http-list ${key}`,
          mine,
          new Set(['(list)']),
          async () => {
            const answer = await send(server.base, 'GET', `/memory/list/${encodeURIComponent(key)}?status=all`, {
              token: `Bearer ${TOKEN}`,
            })
            const missing = [...mine].filter((marker) => !answer.text.includes(marker))
            return answer.status === 200 && !missing.length ? `${answer.text}(list)` : answer.text
          },
          ['(list)'],
        )
      }

    // the commands last: what they say is captured in the channel like any message
    for (const scope of scopes) {
      const { platform, userId, guildId, marker } = scope
      const label = nameOf(scope)
      const facts = sessionFacts(scope)
      const say = async (text: string) => (await client(app, platform, userId, guildId || undefined).receive(text)).join('\n')
      await batch(`cmd-recall ${label}`, facts, new Set([marker]), (query) => say(`memory.recall ${query}`))
      await batch(
        `cmd-list ${label}`,
        facts,
        new Set(['(list)']),
        async () => {
          const text = await say('memory.list')
          return [...facts].every((m) => text.includes(m)) ? `${text}(list)` : text
        },
        ['(list)'],
      )
      if (guildId) {
        const mine = said(platform, guildId)
        await batch(`cmd-group-search ${label}`, mine, new Set([marker]), (query) => say(`memory.group.search ${query}`))
        // another group named by a member without the authority: refused, nothing shown
        const other = groups.find((g) => g !== guildId)!
        await batch(
          `cmd-group-list-other ${label}`,
          mine,
          new Set(),
          () => say(`memory.group.list -g ${platform === 'mock' ? other : `${platform}:${other}`}`),
          ['(other)'],
        )
      }
    }
  } finally {
    await server.close()
    for (const other of platforms) other.bot!.dispose()
    await b.stop()
  }
  log(`isolation: ${queries} read queries in ${Date.now() - started} ms`)
  return Object.assign(tally.result, { queries })
}
