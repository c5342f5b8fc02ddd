import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as adapter from './chatluna-adapter'
import type { Harness } from './harness'
import { boot } from './harness'
import { json, ScriptedServer } from './scripted-server'

/**
 * The memory with the real koishi-plugin-chatluna: ChatLuna's conversations see the memory's context
 * and call its tools, the memory's own model and embedder are ChatLuna's, and ChatLuna's replies are
 * captured once. ChatLuna's model is the `scripted` platform (`chatluna-adapter.ts`) talking to the
 * scripted server on loopback; every other request is refused (ChatLuna would fetch tokenizer files).
 */

// CommonJS, as Koishi loads it (the ES build would bring a second Koishi)
const chatluna = require('koishi-plugin-chatluna')
const undici = createRequire(require.resolve('koishi-plugin-chatluna'))('undici')

const FACT = 'alice最喜欢的饮料是乌龙茶。'
const QUESTION = '我最喜欢喝什么？'
const CAT = 'alice养了一只叫团子的猫。'
const CAT_QUESTION = '我的猫叫什么？'
const TOOLS = ['search_memories', 'search_chat_history', 'search_entities', 'get_user_profile', 'query_knowledge_graph']
const DIMS = 64

/** A bag of characters and character pairs hashed into `DIMS` buckets: texts that share words are near. */
function embed(text: string): number[] {
  const vector = new Array<number>(DIMS).fill(0)
  const chars = [...text.replace(/\s+/g, '')]
  const grams = [...chars, ...chars.slice(1).map((char, i) => chars[i] + char)]
  for (const gram of grams) {
    let hash = 0
    for (const unit of gram) hash = (hash * 31 + unit.codePointAt(0)!) >>> 0
    vector[hash % DIMS] += 1
  }
  return vector
}

const contentOf = (message: any): string =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '')

interface Request {
  path: string
  body: any
}

describe('ChatLuna bridge', () => {
  let h: Harness
  let previousDispatcher: unknown
  const baseDir = mkdtempSync(join(tmpdir(), 'memory-chatluna-'))
  /** Requests of ChatLuna's conversations (they carry tools), and the memory's own model calls. */
  const conversation = (): Request[] => server.requests.filter((request) => request.path === '/chat/completions' && request.body.tools)
  const memoryCalls = (): Request[] => server.requests.filter((request) => request.path === '/chat/completions' && !request.body.tools)

  const server = new ScriptedServer((path, body, res) => {
    if (path === '/embeddings') {
      return json(res, 200, { data: body.input.map((text: string, index: number) => ({ index, embedding: embed(text) })) })
    }
    const messages: any[] = body.messages ?? []
    if (!body.tools) {
      // the memory's model: an extraction gets what alice said about her drink, anything else a line
      const prompt = contentOf(messages.at(-1))
      const extraction = prompt.includes('{"facts"')
      const facts = prompt.includes('我最喜欢的饮料是乌龙茶') ? [FACT] : prompt.includes('我养了一只猫') ? [CAT] : []
      return json(res, 200, {
        choices: [{ index: 0, message: { role: 'assistant', content: extraction ? JSON.stringify({ facts }) : '（无）' } }],
      })
    }
    const last = [...messages].reverse().find((message) => message.role === 'tool')
    if (last) {
      // the memory's lines end in the day they became true: left out, so replies compare across days
      const said = String(last.content).replace(/ \(\d{4}-\d{2}-\d{2}[^)]*\)$/gm, '')
      return json(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: `据记忆：${said}` } }] })
    }
    const asking = [QUESTION, CAT_QUESTION].find((question) => messages.some((message) => contentOf(message).includes(question)))
    if (asking) {
      const query = asking === QUESTION ? '喜欢的饮料' : '猫的名字'
      const call = { id: 'call_1', type: 'function', function: { name: 'search_memories', arguments: JSON.stringify({ query }) } }
      return json(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: '', tool_calls: [call] } }] })
    }
    json(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: '好的，记住了。' } }] })
  })

  const previousTmp = process.env.TMPDIR
  let adapterFork: { dispose(): void } | undefined

  beforeAll(async () => {
    // ChatLuna makes a tokenizer cache folder in the system's temp folder: here, in this test's
    process.env.TMPDIR = baseDir
    // nothing leaves this machine: ChatLuna's fetches go through undici's global dispatcher
    previousDispatcher = undici.getGlobalDispatcher()
    const agent = new undici.MockAgent()
    agent.disableNetConnect()
    agent.enableNetConnect(/^127\.0\.0\.1(:\d+)?$/)
    undici.setGlobalDispatcher(agent)

    const baseURL = await server.start()
    h = await boot(
      {
        llm: { provider: 'chatluna' },
        embedding: { provider: 'chatluna', dims: DIMS },
        chatluna: { model: 'scripted/chat-model', embeddings: 'scripted/embed-model' },
        topics: { enabled: false },
      },
      (app) => {
        // ChatLuna keeps its presets and temp files under the base dir
        ;(app as any).baseDir = baseDir
        app.plugin(chatluna, {
          defaultModel: 'scripted/chat-model',
          defaultChatMode: 'plugin',
          allowPrivate: true,
          privateChatWithoutCommand: true,
          sendThinkingMessage: false,
          botNames: ['bot'],
        })
        adapterFork = app.plugin(adapter, { baseURL, models: ['chat-model'], embeddings: ['embed-model'] })
      },
    )
    const service = (h.app as any).chatluna
    await service.awaitLoadPlatform('scripted', 10_000)
    await vi.waitFor(() => expect(Object.keys(service.platform.getToolRegistry())).toEqual(expect.arrayContaining(TOOLS)), {
      timeout: 5000,
    })
  })

  afterAll(async () => {
    // the adapter leaves ChatLuna before the app stops (ChatLuna logs its leaving through a logger the stop takes away)
    adapterFork?.dispose()
    await h?.stop()
    await server.stop()
    undici.setGlobalDispatcher(previousDispatcher)
    if (previousTmp === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previousTmp
    rmSync(baseDir, { recursive: true, force: true })
  })

  it('memorises a dialogue with ChatLuna through ChatLuna’s own model', async () => {
    const replies = await h.app.mock.client('alice').receive('我最喜欢的饮料是乌龙茶')
    expect(replies).toEqual(['好的，记住了。'])
    await h.app.memory.flush()
    const facts = await h.app.database.get('memory_fact', { userId: 'alice' })
    expect(facts.map((fact) => fact.content)).toEqual([FACT])
    // the extraction went to the scripted server through ChatLuna, and so did the vectors
    expect(memoryCalls().some((request) => contentOf(request.body.messages.at(-1)).includes('{"facts"'))).toBe(true)
    expect(server.requests.some((request) => request.path === '/embeddings')).toBe(true)
    const status = await h.app.memory.status()
    expect(status.choices.llm).toEqual({ configured: 'chatluna', used: 'chatluna' })
    expect(status.llm).toBe('chatluna:scripted/chat-model')
    expect(status.embedder).toBe('chatluna:scripted/embed-model')
  })

  it('puts the memory into ChatLuna’s prompt and answers a tool call through ChatLuna’s tool registry', async () => {
    const before = conversation().length
    const replies = await h.app.mock.client('alice').receive(QUESTION)
    const asked = conversation().slice(before)
    expect(asked).toHaveLength(2)

    // the first request: the memory's context rendered by ChatLuna's long-memory template, and the memory's tools
    const first = asked[0].body
    const memoryDoc = first.messages.map(contentOf).find((content: string) => content.includes('"source":"memory"'))
    expect(memoryDoc).toContain(FACT)
    expect(first.tools.map((tool: any) => tool.function.name)).toEqual(expect.arrayContaining(TOOLS))

    // the model's call ran our handler for alice; its result went back to the model
    const toolTurn = asked[1].body.messages.find((message: any) => message.role === 'tool')
    expect(toolTurn.tool_call_id).toBe('call_1')
    expect(toolTurn.content).toContain(FACT)
    expect(replies).toEqual([`据记忆：- ${FACT}`])
  })

  it('keeps alice’s memories from bob, in the prompt and in the tools', async () => {
    const before = conversation().length
    const replies = await h.app.mock.client('bob').receive(QUESTION)
    const asked = conversation().slice(before)
    expect(asked).toHaveLength(2)
    for (const request of asked) expect(JSON.stringify(request.body.messages)).not.toContain('乌龙茶')
    expect(replies).toEqual(['据记忆：Nothing is remembered about that.'])
  })

  it('keeps a group’s memories in that group', async () => {
    const inGroup = (guild: string) => h.app.mock.client('alice', guild)
    expect(await inGroup('g1').receive('<at id="514"/>我养了一只猫，叫团子')).toEqual(['好的，记住了。'])
    await h.app.memory.flush()
    expect((await h.app.database.get('memory_fact', { userId: 'alice', guildId: 'g1' })).map((fact) => fact.content)).toEqual([CAT])

    // another group sees neither the group's memory nor alice's private one
    let before = conversation().length
    expect(await inGroup('g2').receive(`<at id="514"/>${CAT_QUESTION}`)).toEqual(['据记忆：Nothing is remembered about that.'])
    for (const request of conversation().slice(before)) {
      expect(JSON.stringify(request.body.messages)).not.toContain('团子')
      expect(JSON.stringify(request.body.messages)).not.toContain('乌龙茶')
    }

    before = conversation().length
    expect(await inGroup('g1').receive(`<at id="514"/>${CAT_QUESTION}`)).toEqual([`据记忆：- ${CAT}`])
    expect(JSON.stringify(conversation()[before].body.messages)).toContain(CAT)
  })

  it('captures each of ChatLuna’s replies once', async () => {
    await h.app.memory.flush()
    const rows = await h.app.database.get('memory_message', {}, { sort: { createdAt: 'asc' } })
    const said = (role: 'user' | 'assistant') => {
      const byChannel: Record<string, string[]> = {}
      for (const row of rows.filter((one) => one.role === role)) (byChannel[row.channelId] ??= []).push(row.content)
      return byChannel
    }
    const nothing = '据记忆：Nothing is remembered about that.'
    expect(said('assistant')).toEqual({
      'private:alice': ['好的，记住了。', `据记忆：- ${FACT}`],
      'private:bob': [nothing],
      g1: ['好的，记住了。', `据记忆：- ${CAT}`],
      g2: [nothing],
    })
    expect(said('user')['private:alice']).toEqual(['我最喜欢的饮料是乌龙茶', QUESTION])
    expect(said('user')['private:bob']).toEqual([QUESTION])
  })
})
