import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ServerResponse } from 'node:http'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot } from './harness'
import { chat, json, ScriptedServer } from './scripted-server'
import { internalsOf } from '../../src/compose'

type Mode = 'fenced' | 'malformed' | 'empty' | 'slow' | '429' | 'recovered'

describe('a misbehaving model never breaks or delays a reply', () => {
  let h: Harness
  let mode: Mode = 'fenced'
  const held: ServerResponse[] = []
  const server = new ScriptedServer((path, body, res) => {
    const prompt: string = body.messages?.at(-1)?.content ?? ''
    const extraction = prompt.includes('{"facts": [')
    if (mode === 'slow') return void held.push(res)
    if (mode === '429') return json(res, 429, { error: { message: 'rate limited' } })
    if (mode === 'empty') return chat(res, '')
    if (mode === 'malformed') return chat(res, extraction ? 'facts? yes!! {{' : 'x')
    if (mode === 'recovered') {
      // a working model: what alice said, as her facts
      const said = [...prompt.matchAll(/alice: (我[^\n]+)/g)].map((match) => match[1])
      return chat(res, extraction ? JSON.stringify({ facts: said }) : '')
    }
    chat(
      res,
      extraction ? '<think>preference</think>\n```json\n{"facts": ["alice喜欢吃四川火锅。",], "reason": "a food preference",}\n```' : '',
    )
  })

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot(
      {
        llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 1500 },
        // only the memorising chain talks to the scripted model here
        topics: { enabled: false },
        memorize: { retrySeconds: 1 },
      },
      (app) => app.plugin(echo),
    )
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  async function dialogue(text: string) {
    const replies = await h.app.mock.client('alice').receive(text)
    await h.app.memory.flush()
    return replies
  }

  const count = (name: string) => internalsOf(h.app.memory).counters.get(name)

  /** The model works again: the failed dialogue is tried again and its fact stored. */
  async function recovers(words: string) {
    mode = 'recovered'
    await vi.waitFor(
      async () => {
        const facts = await h.app.database.get('memory_fact', { userId: 'alice' })
        expect(facts.filter((fact) => fact.content.includes(words))).toHaveLength(1)
      },
      { timeout: 8000, interval: 200 },
    )
  }

  it('stores what a fenced, commented, trailing-comma answer says', async () => {
    mode = 'fenced'
    await dialogue('我喜欢吃四川火锅')
    const facts = await h.app.database.get('memory_fact', { userId: 'alice' })
    expect(facts.map((f) => f.content)).toEqual(['alice喜欢吃四川火锅。'])
    expect(facts[0].reason).toBe('a food preference')
  })

  it('counts malformed JSON after one corrective retry and stores nothing', async () => {
    mode = 'malformed'
    const asked = server.requests.length
    const failed = count('memorize.failed.extract')
    await dialogue('我下周要去北京出差')
    expect(server.requests.length - asked).toBe(2)
    expect(count('llm.invalid')).toBeGreaterThanOrEqual(1)
    expect(count('memorize.failed.extract')).toBe(failed + 1)
    expect(await h.app.database.get('memory_fact', { content: { $regex: '北京' } })).toHaveLength(0)
    expect(count('memorize.retry')).toBeGreaterThanOrEqual(1)
    await recovers('要去北京出差')
  })

  it('counts an empty answer', async () => {
    mode = 'empty'
    const failed = count('memorize.failed.extract')
    await dialogue('我的生日是10月25日')
    expect(count('memorize.failed.extract')).toBe(failed + 1)
    await recovers('我的生日是10月25日')
  })

  it('answers the user at once while the model hangs past its timeout', async () => {
    mode = 'slow'
    const started = held.length
    const failed = count('memorize.failed.extract')
    const replies = await h.app.mock.client('alice').receive('我住在成都')
    expect(replies).toEqual(['ok: 我住在成都'])
    // the reply is out while the model has not answered anything
    expect(held.every((res) => !res.writableEnded)).toBe(true)
    await h.app.memory.flush()
    expect(held.length).toBeGreaterThan(started)
    expect(count('llm.timeout')).toBeGreaterThanOrEqual(1)
    expect(count('memorize.failed.extract')).toBe(failed + 1)
    await recovers('我住在成都')
  })

  it('retries 429 with backoff, then gives up and counts it', async () => {
    mode = '429'
    const asked = server.requests.length
    const failed = count('memorize.failed.extract')
    const replies = await dialogue('我养了一只猫叫咪咪')
    expect(replies).toEqual(['ok: 我养了一只猫叫咪咪'])
    expect(server.requests.length - asked).toBeGreaterThan(1)
    expect(count('llm.retry')).toBeGreaterThanOrEqual(1)
    expect(count('memorize.failed.extract')).toBe(failed + 1)
    await recovers('我养了一只猫叫咪咪')
    // each dialogue stored once, whatever it took
    expect(await h.app.database.get('memory_fact', {})).toHaveLength(5)
  })
})
