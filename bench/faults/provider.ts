/**
 * Provider faults: the model times out, rate-limits, fails, drops the connection, or answers with
 * malformed, truncated or fenced JSON while a user says something worth remembering; the embedder
 * fails meanwhile too. Once the providers work again, each statement must be stored exactly once and
 * be found by `retrieve`.
 */
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { HTTP } from '@koishijs/plugin-http'
import { chat, json, ScriptedServer } from '../../test/integration/scripted-server'
import { bootApp } from '../lib/app'
import { Tally, type Family } from './family'

type Mode = 'ok' | 'timeout' | '429' | '500' | 'reset' | 'malformed' | 'truncated' | 'fenced'
const FAULTS: Exclude<Mode, 'ok'>[] = ['timeout', '429', '500', 'reset', 'malformed', 'truncated', 'fenced']
const DIMS = 64

/** A deterministic vector per text: the same words land near each other only by chance, enough here. */
function embed(text: string): number[] {
  const out = new Array<number>(DIMS).fill(0)
  for (const char of text) {
    const digest = createHash('sha1').update(char).digest()
    for (let i = 0; i < DIMS; i++) out[i] += (digest[i % digest.length] - 128) / 128
  }
  const norm = Math.hypot(...out) || 1
  return out.map((x) => x / norm)
}

export const run: Family = async () => {
  const tally = new Tally()
  let mode: Mode = 'ok'
  let embedderDown = false
  const server = new ScriptedServer((path, body, res) => {
    if (path.startsWith('/embeddings')) {
      if (embedderDown) return json(res, 503, { error: { message: 'embedder down' } })
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input]
      return json(res, 200, { data: input.map((text, index) => ({ index, embedding: embed(text) })) })
    }
    const prompt: string = body.messages?.at(-1)?.content ?? ''
    const said = [...prompt.matchAll(/: (我[^\n]+)/g)].map((match) => match[1])
    const answer = JSON.stringify({ facts: said })
    switch (mode) {
      case 'timeout':
        return // never answered: the client's timeout ends it
      case '429':
        return json(res, 429, { error: { message: 'rate limited' } })
      case '500':
        return json(res, 500, { error: { message: 'internal error' } })
      case 'reset':
        return void (res as ServerResponse).socket?.destroy()
      case 'malformed':
        return chat(res, 'facts? {{ yes')
      case 'truncated':
        return chat(res, answer.slice(0, Math.max(8, answer.length - 12)))
      case 'fenced':
        return chat(res, `Here you go:\n\`\`\`json\n${answer.replace(/]}$/, '],}')}\n\`\`\``)
      default:
        return chat(res, answer)
    }
  })
  const baseURL = await server.start()
  const bench = await bootApp(
    {
      llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 800 },
      embedding: { provider: 'openai-compatible', baseURL, model: 'scripted', dims: DIMS, timeout: 800 },
      memorize: { privateEvery: 1, quietSeconds: 0, privateQuietSeconds: 0, retrySeconds: 1 },
      topics: { enabled: false },
      store: { retryIntervalSeconds: 1 },
    },
    { extra: (app) => app.plugin(HTTP) },
  )
  const { app } = bench
  try {
    for (const [i, fault] of FAULTS.entries()) {
      const user = `user-${fault}`
      const name = ['豆豆', '咪咪', '花花', '球球', '团子', '年糕', '可乐'][i]
      const statement = `我养了一只叫${name}的猫`
      await tally.run(`model ${fault}, embedder down`, async () => {
        mode = fault
        embedderDown = true
        await app.mock.client(user).receive(statement)
        await app.memory.flush()
        mode = 'ok'
        embedderDown = false
        // eventually: the retry after the failure, the outbox drain and the embedder's breaker take seconds
        const deadline = Date.now() + 20_000
        const stored = async () => (await app.database.get('memory_fact', { userId: user })).filter((fact) => fact.content.includes(name))
        const findable = async () => {
          const [fact] = await stored()
          if (!fact) return false
          await app.memory.flushOutbox()
          return (await app.memory.retrieve(user, statement, { platform: 'mock' })).some((memory) => memory.id === fact.id)
        }
        let found = false
        while (Date.now() < deadline && !(found = await findable())) await new Promise((resolve) => setTimeout(resolve, 250))
        await app.memory.flush()
        const facts = await stored()
        return {
          ok: facts.length === 1 && found,
          harm: { lost: facts.length ? 0 : 1, duplicates: Math.max(0, facts.length - 1) },
          detail: `${facts.length} facts, ${found ? '' : 'not '}found by retrieve`,
        }
      })
    }
  } finally {
    await bench.stop()
    await server.stop()
  }
  return tally.result
}
