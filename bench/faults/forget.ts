/**
 * Forget reaches every place a person's words go. Alice and Bob talk in private and in a group (facts,
 * messages, the bot's replies, episodes, topics and their summaries, the rolling summary, contexts,
 * knowledge, an export file); a scripted model then evolves the group's memory from what they said
 * (one memory per speaker and one of both). Alice forgets one fact, then everything. After each, and
 * again after a restart, every table, the LanceDB files, the SQLite file and the store folder are
 * scanned for her words, and what she and Bob can reach (commands, the context of a reply) is read.
 * A positive control before the forget shows her words were there; Bob's words after it show the
 * forget took nothing of his. A dialogue still waiting when she is forgotten stores nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HTTP } from '@koishijs/plugin-http'
import type { App } from 'koishi'
import type { ConfigInput } from '../../src'
import { internalsOf } from '../../src/compose'
import { chat, ScriptedServer } from '../../test/integration/scripted-server'
import { filesUnder, koishiTexts } from '../../test/integration/stored-text'
import { bootApp, log, type BenchApp } from '../lib/app'
import { Tally, type Family } from './family'
import { echo, mulberry32, nonsenseWords, seedOf } from './support'

const EVOLUTION = /群组长期记忆管理专家|managing a group's long-term memory/

/** Where each word is: tables and files. */
async function placesOf(app: App, dir: string, words: string[]): Promise<Map<string, string[]>> {
  const texts = await koishiTexts(app)
  const out = new Map<string, string[]>()
  for (const word of words) {
    const tables = [...texts].filter(([, text]) => text.includes(word)).map(([table]) => table)
    out.set(word, [...tables, ...filesUnder(dir, '', word).map((file) => `file:${file}`)])
  }
  return out
}

/** What a user reaches of the memory: the commands' answers and the context a reply in the group is built with. */
async function reachable(app: App, userId: string, query: string): Promise<string> {
  const said: string[] = []
  for (const command of ['memory.list -a', `memory.recall ${query}`, 'memory.profile', 'memory.group.list'])
    said.push(...(await app.mock.client(userId, command === 'memory.group.list' ? 'g1' : undefined).receive(command)))
  const context = await app.memory.buildContext({
    platform: 'mock',
    guildId: 'g1',
    channelId: 'g1',
    userId,
    content: query,
    time: new Date(),
  })
  return [...said, JSON.stringify(context)].join('\n')
}

interface Words {
  /** Alice's fact forgotten on its own. */
  single: string
  /** Her other fact, kept by that forget. */
  kept: string
  /** What she said in the group. */
  group: string
  /** Bob's words in the group and in private. */
  bob: string[]
}

/** The conversation, on the offline rules. */
async function converse(app: App, w: Words): Promise<void> {
  const say = async (user: string, text: string, channel?: string) => {
    await app.mock.client(user, channel).receive(text)
    await app.memory.flush()
  }
  await say('alice', `我养了一只蜥蜴，叫${w.single}`)
  await say('alice', `我住在${w.kept}小区`)
  await say('alice', `<at id="bot"/> 周末去${w.group}湖划船吧`, 'g1')
  await say('bob', `${w.bob[0]}也不错，周末一起`, 'g1')
  await say('alice', `${w.group}湖边的蛋糕最好吃`, 'g1')
  await say('bob', `我喜欢${w.bob[1]}`)
  await app.memory.buildContext({
    platform: 'mock',
    guildId: 'g1',
    channelId: 'g1',
    userId: 'alice',
    content: `${w.group}怎么去`,
    time: new Date(),
  })
  for (const topic of await app.memory.topics.list({ platform: 'mock', guildId: 'g1', channelId: 'g1' }, 10))
    await app.memory.topics.summarizeNow(topic.id)
  await app.database.setUser('mock', 'alice', { authority: 4 })
  await app.mock.client('alice').receive('memory.export -a')
  await app.memory.flushOutbox()
}

export const run: Family = async () => {
  const tally = new Tally()
  const rng = mulberry32(seedOf(24))
  const [single, kept, group, bob0, bob1] = nonsenseWords(rng, 5, 6).map((word) => `Zq${word}`)
  const w: Words = { single, kept, group, bob: [bob0, bob1] }
  const alice = [single, kept, group]
  const dir = mkdtempSync(join(tmpdir(), 'memory-forget-'))
  const server = new ScriptedServer((_path, body, res) => {
    const messages: { role: string; content: string }[] = body.messages ?? []
    if (!EVOLUTION.test(messages.find((m) => m.role === 'system')?.content ?? '')) return chat(res, '')
    // one memory per speaker's word, and one of both: what the group said, in its words
    const words = [...new Set(String(messages.at(-1)?.content ?? '').match(/Zq[a-z]+/g) ?? [])]
    const ops = [
      ...words.map((word) => ({ action: 'create', statement: `群里说起过${word}`, change_reason: 'said' })),
      { action: 'create', statement: `大家都聊过${words.join('和')}`, change_reason: 'said' },
    ]
    chat(res, ops.map((op) => JSON.stringify(op)).join('\n'))
  })
  const baseURL = await server.start()
  const offline: ConfigInput = {
    memorize: { privateEvery: 1, groupEvery: 2, quietSeconds: 0, privateQuietSeconds: 0 },
    summaries: { countThreshold: 3, minMessages: 2 },
    store: { retryIntervalSeconds: 1 },
  }
  const modelled: ConfigInput = {
    ...offline,
    llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 10_000 },
    memorize: { enabled: false },
    group: { timer: false },
  }
  const boot = (config: ConfigInput) =>
    bootApp(config, {
      dir,
      keep: true,
      extra: (app) => {
        // memory.export writes under Koishi's base folder: the store folder, scanned with the rest
        app.baseDir = dir
        app.plugin(HTTP)
        app.plugin(echo)
      },
    })
  let b: BenchApp | undefined
  try {
    b = await boot(offline)
    await converse(b.app, w)
    await b.stop()
    b = await boot(modelled)
    const evolved = await b.app.memory.evolve({ platform: 'mock', guildId: 'g1' }, { days: 1 })
    const before = await placesOf(b.app, dir, [...alice, ...w.bob])
    await tally.run('control: her words are stored before the forget', async () => {
      const missing = alice.filter((word) => !before.get(word)?.length)
      const inGroup = (before.get(group) ?? []).includes('memory_group')
      const exported = (before.get(kept) ?? []).some((place) => place.startsWith('file:/data/memory/exports/'))
      return {
        ok: !missing.length && inGroup && exported,
        detail: `missing ${missing.join(',')}; group memory ${evolved.status}, holds her word: ${inGroup}; exported: ${exported}`,
      }
    })

    const [fact] = (await b.app.database.get('memory_fact', { userId: 'alice' })).filter((row) => row.content.includes(single))
    await tally.run('forget <id>: the fact is gone everywhere, her other fact stays', async () => {
      if (!fact) return { ok: false, detail: 'no fact held the word' }
      const [reply] = await b!.app.mock.client('alice').receive(`memory.forget ${fact.id}`)
      const places = (await placesOf(b!.app, dir, [single, kept])).get(single)!
      const keptAt = (await placesOf(b!.app, dir, [kept])).get(kept)!
      return {
        ok: Boolean(reply?.includes(fact.id)) && keptAt.includes('memory_fact'),
        harm: { leaks: places.length, lost: keptAt.includes('memory_fact') ? 0 : 1 },
        detail: `still at ${places.join(', ')}; reply ${reply}`,
      }
    })

    const [report] = await b.app.mock.client('alice').receive('memory.forget --all -y')
    await b.stop()
    b = await boot(modelled)
    const after = await placesOf(b.app, dir, [...alice, ...w.bob])
    for (const word of alice) {
      await tally.run(`forget --all, restarted: "${word}" nowhere in the tables or the files`, async () => {
        const places = after.get(word)!
        return { ok: true, harm: { leaks: places.length }, detail: `at ${places.join(', ')}` }
      })
    }
    await tally.run('forget --all: her words reach nobody (commands, the context of a reply)', async () => {
      const seen = [await reachable(b!.app, 'alice', group), await reachable(b!.app, 'bob', group)].join('\n')
      const leaked = alice.filter((word) => seen.includes(word))
      return { ok: true, harm: { leaks: leaked.length }, detail: `seen ${leaked.join(',')}` }
    })
    await tally.run("forget --all: Bob's words stay, and the reply says what went", async () => {
      const lost = w.bob.filter((word) => !after.get(word)?.includes('memory_message'))
      return { ok: /删除了|Removed/.test(report ?? ''), harm: { lost: lost.length }, detail: `lost ${lost.join(',')}; reply ${report}` }
    })
    await b.stop()
    b = undefined

    await tally.run('a dialogue waiting when she is forgotten stores nothing of her', async () => {
      const waiting = await bootApp({ memorize: { quietSeconds: 3600, privateQuietSeconds: 3600 } })
      try {
        await waiting.app.mock.client('carol', 'g9').receive(`我养了一只仓鼠，叫${single}`)
        await waiting.app.memory.flush()
        await waiting.app.mock.client('carol').receive('memory.forget --all -y')
        await waiting.app.memory.closeIdleTopics()
        internalsOf(waiting.app.memory).capture.sweep(new Date(Date.now() + 7_200_000), 1)
        await waiting.app.memory.flush()
        const stored = await waiting.app.database.get('memory_fact', { userId: 'carol' })
        return { ok: true, harm: { leaks: stored.length } }
      } finally {
        await waiting.stop()
      }
    })
  } finally {
    if (b) await b.stop().catch((error) => log('stop failed', error))
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  return tally.result
}
