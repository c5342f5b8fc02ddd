/**
 * Concurrency: evolutions of one group started together (one runs, the others find it busy or
 * nothing new), the same fact memorised by many callers at once (one row), many different facts of
 * one user at once (every one stored), and `memory.forget --all` while the user's dialogues are being
 * memorised by a slow model (nothing of what they said before it stays).
 */
import { HTTP } from '@koishijs/plugin-http'
import { chat, ScriptedServer } from '../../test/integration/scripted-server'
import type { Dialogue } from '../../src'
import { bootApp } from '../lib/app'
import { Tally, type Family } from './family'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const run: Family = async () => {
  const tally = new Tally()
  let modelDelayMs = 0
  const server = new ScriptedServer(async (path, body, res) => {
    const prompt: string = body.messages?.map((m: { content: string }) => m.content).join('\n') ?? ''
    await sleep(modelDelayMs)
    if (prompt.includes('周五')) {
      return chat(
        res,
        ['群友每周五晚上一起打羽毛球', '群里有人在学吉他', '大家喜欢去老地方吃火锅']
          .map((statement) => JSON.stringify({ action: 'create', statement, change_reason: '多人提到' }))
          .join('\n'),
      )
    }
    const said = [...(body.messages?.at(-1)?.content ?? '').matchAll(/: (我[^\n]+)/g)].map((match: RegExpMatchArray) => match[1])
    chat(res, JSON.stringify({ facts: said }))
  })
  const baseURL = await server.start()
  const bench = await bootApp(
    {
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 5000 },
      memorize: { privateEvery: 1, quietSeconds: 0, privateQuietSeconds: 0, retrySeconds: 1 },
      topics: { enabled: false },
      group: { minMessages: 1 },
    },
    { extra: (app) => app.plugin(HTTP) },
  )
  const { app } = bench
  try {
    await tally.run('five evolutions of one group at once', async () => {
      modelDelayMs = 300
      await app.mock.client('alice', 'g1').receive('这周五晚上还去打羽毛球吗？')
      await app.mock.client('bob', 'g1').receive('去！周五老地方见，我最近在学吉他')
      await app.memory.flush()
      const results = await Promise.all(Array.from({ length: 5 }, () => app.memory.evolve({ platform: 'mock', guildId: 'g1' })))
      modelDelayMs = 0
      const evolved = results.filter((result) => result.status === 'evolved').length
      const rows = await app.database.get('memory_group', { platform: 'mock', guildId: 'g1' })
      const statements = rows.map((row) => row.statement)
      const duplicates = statements.length - new Set(statements).size
      return {
        ok: evolved === 1 && rows.length === 3,
        harm: { duplicates: duplicates + Math.max(0, rows.length - 3) },
        detail: `${evolved} evolved (${results.map((r) => r.status).join(', ')}), ${rows.length} memories`,
      }
    })

    await tally.run('one fact memorised by 50 callers at once', async () => {
      const dialogue: Dialogue = {
        owner: { platform: 'mock', userId: 'carol', guildId: '', channelId: 'private:carol' },
        turns: [{ role: 'user', name: 'carol', content: '我在杭州读研究生', userId: 'carol', time: new Date() }],
        sourceIds: ['x1'],
      }
      await Promise.all(Array.from({ length: 50 }, () => app.memory.considerMemorizing(dialogue)))
      const rows = await app.database.get('memory_fact', { userId: 'carol' })
      return {
        ok: rows.length === 1,
        harm: { duplicates: Math.max(0, rows.length - 1), lost: rows.length ? 0 : 1 },
        detail: `${rows.length} rows`,
      }
    })

    await tally.run('twenty different facts of one user at once', async () => {
      const foods = ['火锅', '寿司', '拉面', '烧烤', '饺子', '披萨', '咖喱', '煎饼', '米线', '烤鸭']
      const cities = ['成都', '上海', '杭州', '西安', '厦门', '青岛', '长沙', '昆明', '南京', '武汉']
      const statements = [...foods.map((food) => `我喜欢吃${food}`), ...cities.map((city) => `我去年去过${city}`)]
      await Promise.all(
        statements.map((content, i) =>
          app.memory.considerMemorizing({
            owner: { platform: 'mock', userId: 'dave', guildId: '', channelId: 'private:dave' },
            turns: [{ role: 'user', name: 'dave', content, userId: 'dave', time: new Date() }],
            sourceIds: [`d${i}`],
          }),
        ),
      )
      const rows = await app.database.get('memory_fact', { userId: 'dave' })
      const missing = statements.filter((statement) => !rows.some((row) => row.content.includes(statement.slice(-2))))
      return { ok: !missing.length, harm: { lost: missing.length }, detail: `${rows.length} rows for ${statements.length} statements` }
    })

    await tally.run('forget --all while dialogues are being memorised', async () => {
      await app.mock.initUser('erin', 1)
      modelDelayMs = 600
      const client = app.mock.client('erin')
      for (const text of ['我住在青岛', '我养了一只叫年糕的猫', '我在一家医院工作']) await client.receive(text)
      await sleep(100)
      const [answer] = await client.receive('memory.forget --all -y')
      await app.memory.flush()
      modelDelayMs = 0
      await sleep(2500)
      await app.memory.flush()
      const rows = await app.database.get('memory_fact', { userId: 'erin' })
      const found = await app.memory.retrieve('erin', '青岛 猫 医院', { platform: 'mock' })
      const kept = rows.length + found.length
      return {
        ok: kept === 0,
        harm: { leaks: kept },
        detail: `${rows.length} facts stored, ${found.length} found after the forget (answer: ${answer})`,
      }
    })
  } finally {
    await bench.stop()
    await server.stop()
  }
  return tally.result
}
