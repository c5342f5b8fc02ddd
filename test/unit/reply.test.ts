import { describe, expect, it, vi } from 'vitest'
import type { BuiltContext, ContextTarget } from '../../src/context'
import type { ChatOptions, ChatReply, ChatTurn, LLM, ToolDefinition } from '../../src/providers/types'
import { BudgetSpentError } from '../../src/providers/types'
import { generateNode } from '../../src/reply/generate'
import { runReply } from '../../src/reply/pipeline'
import { recallNode } from '../../src/reply/recall'
import { retrieveNode } from '../../src/reply/retrieve'
import { decideRoute, routeNode } from '../../src/reply/route'
import type { ReplyState } from '../../src/reply/state'
import { runToolLoop } from '../../src/reply/tool-loop'
import { Cooldown, shouldAnswer } from '../../src/chat/triggers'
import { personaFor, renderOutcome } from '../../src/reply/render'
import { foundLines } from '../../src/reply/found-lines'

const target = (content: string): ContextTarget => ({
  platform: 'p',
  guildId: '',
  channelId: 'c',
  userId: 'u',
  userName: 'ann',
  content,
  messageId: 'm9',
  time: new Date(0),
})

const state = (content: string, extra: Partial<ReplyState> = {}): ReplyState => ({
  target: target(content),
  language: /[\u4e00-\u9fff]/.test(content) ? 'zh' : 'en',
  system: 'persona',
  retrieved: [],
  prompt: [],
  sent: [],
  trace: [],
  ...extra,
})

const context = (extra: Partial<BuiltContext> = {}): BuiltContext => ({
  longTerm: [],
  summary: '',
  messages: [],
  tokens: 0,
  windowTokens: 0,
  fallback: false,
  buildMs: 0,
  ...extra,
})

const routeOptions = { canCallTools: false, tools: 'auto' as const, profile: true, commandPrefixes: ['/'] }

describe('route', () => {
  it('needs no memory for greetings, laughter, thanks and emoji', () => {
    for (const text of ['哈哈哈哈', '好的', 'thanks!', '👍👍', 'ok'])
      expect(decideRoute(state(text), routeOptions)).toMatchObject({ needsMemory: false, deep: 'none' })
  })

  it('searches directly for a question or a look back, and offers tools too for a look back when the model can call them', () => {
    expect(decideRoute(state('上次我说的那家餐厅叫什么？'), routeOptions).deep).toBe('direct')
    expect(decideRoute(state('I went hiking before, do you remember'), { ...routeOptions, canCallTools: true }).deep).toBe('both')
    expect(decideRoute(state('上次我说的那家餐厅叫什么？'), { ...routeOptions, tools: 'never' }).deep).toBe('none')
    expect(decideRoute(state('今天天气不错'), routeOptions).deep).toBe('none')
  })

  it('offers tools to every message only when told to, and adds the profile for the speaker', () => {
    expect(decideRoute(state('周末去哪里玩比较好？'), { ...routeOptions, canCallTools: true }).deep).toBe('direct')
    expect(decideRoute(state('今天天气不错'), { ...routeOptions, canCallTools: true, tools: 'always' }).deep).toBe('tools')
    expect(decideRoute(state('今天天气不错'), { ...routeOptions, tools: 'always' }).deep).toBe('direct')
    expect(decideRoute(state('我今天好累'), routeOptions).kinds).toEqual(['facts', 'profile', 'episodes', 'context'])
    expect(decideRoute(state('今天天气不错'), routeOptions).kinds).toEqual(['facts', 'episodes', 'context'])
    expect(decideRoute(state('我今天好累'), { ...routeOptions, profile: false }).kinds).not.toContain('profile')
  })

  it('says its choice for the trace', async () => {
    const result = await routeNode(routeOptions)(state('上次说的电影叫什么？'))
    expect(result.chose).toEqual({ code: 'memory', params: { kinds: 'facts,profile,episodes,context', deep: 'direct', why: 'past,asks' } })
  })
})

describe('recall', () => {
  const ports = () => ({
    buildContext: vi.fn(async () => context({ messages: [], longTerm: [], tokens: 120 })),
    recallEpisodes: vi.fn(async () => [
      { id: 'e1', userMessageId: 'm9', userText: 'now', botText: '', reason: 'recent' as const },
      { id: 'e2', userMessageId: 'm1', userText: 'earlier', botText: 'reply', reason: 'similar' as const },
    ]) as never,
    profile: vi.fn(async () => 'likes tea'),
  })

  it('is skipped when the route needs no memory', async () => {
    const p = ports()
    const result = await recallNode(p, { tokenBudget: 1000 })(
      state('ok', { route: { needsMemory: false, kinds: [], deep: 'none', reasons: ['ack'] } }),
    )
    expect(result.chose).toEqual({ code: 'skipped' })
    expect(p.buildContext).not.toHaveBeenCalled()
  })

  it('fetches only the kinds asked for, drops the current exchange, and survives a failing part', async () => {
    const p = ports()
    p.profile.mockRejectedValueOnce(new Error('down'))
    const route = { needsMemory: true, kinds: ['context', 'episodes', 'profile'] as never, deep: 'none' as const, reasons: [] }
    const result = await recallNode(p, { tokenBudget: 800 })(state('hi there friend', { route }))
    expect(p.buildContext).toHaveBeenCalledWith(expect.anything(), { tokenBudget: 800, longTerm: false })
    expect(result.update.recalled?.episodes.map((episode) => episode.id)).toEqual(['e2'])
    expect(result.update.recalled?.profile).toBeUndefined()
    expect(result.tokensOut).toBe(120)
  })
})

describe('retrieve', () => {
  it('runs only when the route says direct, and keeps within its tokens', async () => {
    const ports = {
      searchHistory: vi.fn(async () => 'ann: 我们去了成都吃火锅。'.repeat(200)),
      searchKnowledge: vi.fn(async () => '- ann 住在成都'),
    }
    const node = retrieveNode(ports, { maxTokens: 50 })
    const skipped = await node(state('上次去哪了？', { route: { needsMemory: true, kinds: [], deep: 'tools', reasons: [] } }))
    expect(skipped.chose).toEqual({ code: 'skipped', params: { deep: 'tools' } })
    expect(ports.searchHistory).not.toHaveBeenCalled()
    const found = await node(state('上次去哪了？', { route: { needsMemory: true, kinds: [], deep: 'direct', reasons: [] } }))
    expect(found.update.retrieved?.[0]).toBe('- ann 住在成都')
    expect(found.tokensOut).toBeLessThanOrEqual(50)
  })

  it('finds nothing rather than failing when a search throws', async () => {
    const node = retrieveNode(
      { searchHistory: async () => Promise.reject(new Error('x')), searchKnowledge: async () => '' },
      { maxTokens: 50 },
    )
    const result = await node(state('上次去哪了？', { route: { needsMemory: true, kinds: [], deep: 'direct', reasons: [] } }))
    expect(result.update.retrieved).toEqual([])
  })
})

describe('found lines', () => {
  const message = (id: string, content: string, similarity?: number) => ({
    id,
    messageId: `m-${id}`,
    userName: 'bob',
    content,
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4)),
    hit: similarity !== undefined,
    similarity,
  })
  const result = {
    topics: [],
    summaries: [{ topicId: 't', title: '旅行', summary: 'bob 计划去成都', score: 1 }],
    excerpts: [
      [message('a', '早上好'), message('b', '我去过西安', 0.2)],
      [message('c', '下周去成都', 0.9)],
      [message('d', '现在的问题', 0.95)],
    ],
  }

  it('puts the best hits first with their times, skips what it is told to, then adds summaries within the tokens', () => {
    const text = foundLines(result, (found) => found.messageId === 'm-d', 200)
    expect(text.split('\n')).toEqual([
      '[2026-01-02 03:04] bob: 下周去成都',
      '[2026-01-02 03:04] bob: 早上好',
      '[2026-01-02 03:04] bob: 我去过西安',
      '(旅行) bob 计划去成都',
    ])
    expect(foundLines(result, (found) => found.id === 'c' || found.id === 'd', 200)).not.toContain('下周去成都')
    const tight = foundLines(result, () => false, 22)
    expect(tight.split('\n')[0]).toBe('[2026-01-02 03:04] bob: 现在的问题')
    expect(tight).not.toContain('下周去成都')
  })
})

/** A chat model that plays back replies and records what it was sent. */
function scriptedChat(replies: (ChatReply | ((turns: ChatTurn[], options?: ChatOptions) => ChatReply))[]) {
  const requests: { turns: ChatTurn[]; options?: ChatOptions }[] = []
  const chat = async (turns: ChatTurn[], options?: ChatOptions) => {
    requests.push({ turns: [...turns], options })
    const next = replies.shift()
    if (!next) throw new Error('script exhausted')
    return typeof next === 'function' ? next(turns, options) : next
  }
  return { chat, requests }
}

const tool = (name: string, handler: ToolDefinition['handler']): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: 'object' },
  handler,
})

describe('tool loop', () => {
  it('stops at its bound: every call answered, then one request without tools', async () => {
    const always = (turns: ChatTurn[], options?: ChatOptions): ChatReply =>
      options?.tools
        ? { text: '', toolCalls: [{ id: `c${turns.length}`, name: 'search', arguments: { query: 'x' } }] }
        : { text: 'done', toolCalls: [] }
    const { chat, requests } = scriptedChat([always, always, always, always])
    const search = vi.fn(async () => ({ text: 'found' }))
    const result = await runToolLoop(chat, [{ role: 'user', content: 'q' }], [tool('search', search)], { maxCalls: 2, resultTokens: 100 })
    expect(result.text).toBe('done')
    expect(search).toHaveBeenCalledTimes(2)
    expect(requests.map((request) => Boolean(request.options?.tools))).toEqual([true, true, false])
    const last = requests[2].turns
    const calls = last.flatMap((turn) => (turn.role === 'assistant' ? (turn.toolCalls ?? []) : []))
    const answers = last.filter((turn) => turn.role === 'tool')
    expect(answers.map((turn) => (turn as { toolCallId: string }).toolCallId)).toEqual(calls.map((call) => call.id))
  })

  it('answers unknown tools, failing tools and calls over the limit without running them, and cuts long results', async () => {
    const { chat, requests } = scriptedChat([
      {
        text: '',
        toolCalls: [
          { id: 'a', name: 'nope', arguments: {} },
          { id: 'b', name: 'broken', arguments: {} },
          { id: 'c', name: 'long', arguments: {} },
          { id: 'd', name: 'long', arguments: {} },
        ],
      },
      { text: 'answer', toolCalls: [] },
    ])
    const tools = [
      tool('broken', async () => Promise.reject(new Error('db down'))),
      tool('long', async () => ({ text: 'word '.repeat(500) })),
    ]
    const result = await runToolLoop(chat, [{ role: 'user', content: 'q' }], tools, { maxCalls: 3, resultTokens: 20 })
    expect(result.calls.map((call) => call.error)).toEqual(['unknown tool', 'db down', undefined, 'over the limit'])
    expect(result.calls[2].resultTokens).toBeLessThanOrEqual(20)
    expect(requests[1].turns.filter((turn) => turn.role === 'tool')).toHaveLength(4)
  })

  it('fails when the model gives no text once the tools are spent', async () => {
    const { chat } = scriptedChat([
      { text: '', toolCalls: [{ id: 'a', name: 't', arguments: {} }] },
      { text: '', toolCalls: [] },
    ])
    await expect(runToolLoop(chat, [], [tool('t', async () => ({ text: 'x' }))], { maxCalls: 1, resultTokens: 10 })).rejects.toThrow(
      /without text/,
    )
  })
})

describe('generate', () => {
  const settings = { maxToolCalls: 2, toolResultTokens: 100, maxLength: 20 }
  const recalled = {
    context: context({
      longTerm: [{ id: 'f', content: 'ann 住在成都', score: 1, relevance: 1, createdAt: new Date(0), scope: {} as never }],
      messages: [
        {
          id: 'r1',
          messageId: 'm1',
          userId: 'b',
          userName: 'bob',
          role: 'user',
          content: '成都好玩吗',
          createdAt: new Date(0),
          score: 1,
          tokens: 5,
          sources: [],
          signals: {},
        },
        {
          id: 'r9',
          messageId: 'm9',
          userId: 'u',
          userName: 'ann',
          role: 'user',
          content: '周末去哪？',
          createdAt: new Date(0),
          score: 1,
          tokens: 5,
          sources: [],
          signals: {},
        },
      ],
    }),
    episodes: [],
  }

  it('offline, answers with what the memory holds that bears on the message', async () => {
    const result = await generateNode({ tools: () => [] }, settings)(state('周末在成都去哪玩？', { recalled }))
    expect(result.update.outcome).toEqual({ kind: 'offline', memories: ['ann 住在成都'], related: 1 })
    expect(result.chose).toEqual({ code: 'offline', params: { memories: 1 } })
  })

  it('offline, lists nothing for a message the memory does not bear on', async () => {
    const result = await generateNode({ tools: () => [] }, settings)(state('今天天气不错', { recalled }))
    expect(result.update.outcome).toEqual({ kind: 'offline', memories: [], related: 0 })
  })

  it('sends persona, memories, found text and the message in order, without the message twice, and cuts the reply', async () => {
    const { chat, requests } = scriptedChat([{ text: '去青城山吧，那里很凉快，适合徒步，还能吃到好吃的。', toolCalls: [] }])
    const model: LLM = { id: 'm', generate: async () => '', chat }
    const result = await generateNode(
      { model, tools: () => [tool('t', async () => ({ text: '' }))] },
      settings,
    )(
      state('周末去哪？', {
        recalled,
        retrieved: ['- bob: 青城山很凉快'],
        route: { needsMemory: true, kinds: [], deep: 'direct', reasons: [] },
      }),
    )
    const turns = requests[0].turns
    expect(turns[0]).toEqual({ role: 'system', content: 'persona' })
    expect(turns[1].content).toContain('ann 住在成都')
    expect(turns.at(-2)?.content).toContain('青城山很凉快')
    expect(turns.at(-1)).toEqual({ role: 'user', content: 'ann: 周末去哪？' })
    expect(turns.filter((turn) => turn.content.includes('周末去哪'))).toHaveLength(1)
    expect(requests[0].options?.tools).toBeUndefined()
    expect(result.update.outcome).toMatchObject({ kind: 'model' })
    expect((result.update.outcome as { text: string }).text.length).toBeLessThanOrEqual(20)
  })

  it('answers with what the memory holds when the group’s calls run out within the reply', async () => {
    let rounds = 0
    const chat = async () => {
      if (rounds++) throw new BudgetSpentError('m')
      return { text: '', toolCalls: [{ id: 'c1', name: 't', arguments: {} }] }
    }
    const model: LLM = { id: 'm', generate: async () => '', chat }
    const result = await generateNode(
      { model, tools: () => [tool('t', async () => ({ text: 'found' }))] },
      settings,
    )(state('周末在成都去哪玩？', { recalled, route: { needsMemory: true, kinds: [], deep: 'tools', reasons: [] } }))
    expect(rounds).toBe(2)
    expect(result.update.outcome).toEqual({ kind: 'offline', memories: ['ann 住在成都'], related: 1 })
  })

  it('flattens the prompt for a model that only completes text', async () => {
    const generate = vi.fn(async () => '好')
    await generateNode({ model: { id: 'g', generate }, tools: () => [] }, settings)(state('周末去哪？', { recalled }))
    const [prompt, options] = generate.mock.calls[0] as unknown as [string, { system: string }]
    expect(options.system).toContain('persona')
    expect(options.system).toContain('ann 住在成都')
    expect(prompt.endsWith('ann: 周末去哪？')).toBe(true)
  })
})

describe('pipeline', () => {
  it('traces every node, and turns a generate failure into an apology that is still sent', async () => {
    const deliver = vi.fn(async () => ['s1'])
    let t = 0
    const result = await runReply(
      state('hello there, how are you?'),
      [
        [
          'route',
          async () => ({ update: { route: { needsMemory: true, kinds: [], deep: 'none', reasons: [] } }, chose: { code: 'memory' } }),
        ],
        ['recall', async () => Promise.reject(new Error('database gone'))],
        ['generate', async () => Promise.reject(new Error('HTTP 500 at /srv/x.py'))],
        [
          'persist',
          async (s) => {
            await deliver()
            return { update: { sent: ['s1'] }, chose: { code: 'sent', params: { what: s.outcome!.kind } } }
          },
        ],
      ],
      () => (t += 5),
    )
    expect(result.outcome).toEqual({ kind: 'failed', error: 'HTTP 500 at /srv/x.py' })
    expect(result.trace.map((step) => [step.node, step.chose, step.ms])).toEqual([
      ['route', { code: 'memory' }, 5],
      ['recall', { code: 'failed' }, 5],
      ['generate', { code: 'failed' }, 5],
      ['persist', { code: 'sent', params: { what: 'failed' } }, 5],
    ])
    expect(result.trace[1].error).toBe('database gone')
    expect(result.sent).toEqual(['s1'])
  })
})

describe('chat triggers', () => {
  const rules = { private: true, mention: true, reply: true, keywords: ['小助手'], probability: 0 }
  const message = (extra: Partial<Parameters<typeof shouldAnswer>[0]>) => ({
    isDirect: false,
    atSelf: false,
    repliesToBot: false,
    content: '今天好热',
    ...extra,
  })

  it('answers private messages, mentions, replies and keywords as set, and other group messages by chance', () => {
    expect(shouldAnswer(message({ isDirect: true }), rules)).toBe(true)
    expect(shouldAnswer(message({ isDirect: true }), { ...rules, private: false })).toBe(false)
    expect(shouldAnswer(message({ atSelf: true }), rules)).toBe(true)
    expect(shouldAnswer(message({ atSelf: true }), { ...rules, mention: false })).toBe(false)
    expect(shouldAnswer(message({ repliesToBot: true }), rules)).toBe(true)
    expect(shouldAnswer(message({ content: '小助手在吗' }), rules)).toBe(true)
    expect(shouldAnswer(message({}), rules)).toBe(false)
    expect(shouldAnswer(message({}), { ...rules, probability: 0.3 }, () => 0.2)).toBe(true)
    expect(shouldAnswer(message({}), { ...rules, probability: 0.3 }, () => 0.5)).toBe(false)
    expect(shouldAnswer(message({ atSelf: true, content: '  ' }), rules)).toBe(false)
  })

  it('answers once per channel per cooldown', () => {
    let now = 0
    const cooldown = new Cooldown(10, () => now)
    expect(cooldown.take('a')).toBe(true)
    expect(cooldown.take('a')).toBe(false)
    expect(cooldown.take('b')).toBe(true)
    now = 10_000
    expect(cooldown.take('a')).toBe(true)
  })

  it('renders an apology and the offline answer in the user’s language, and picks the channel’s persona', () => {
    const t = (locale: string, path: string, params?: unknown) => `${locale}:${path}:${JSON.stringify(params ?? [])}`
    expect(renderOutcome({ kind: 'failed', error: 'stack' }, 'en', t)).toBe('en-US:memory.chat.failed:[]')
    expect(renderOutcome({ kind: 'offline', memories: ['a'], related: 0 }, 'zh', t)).toBe('zh-CN:memory.chat.remembered:["- a"]')
    const settings = { system: '', personas: [{ channel: 'p:c', prompt: '你是猫娘' }] }
    expect(personaFor('p:c', 'zh', settings)).toBe('你是猫娘')
    expect(personaFor('p:d', 'en', settings)).toMatch(/friendly member/)
    expect(personaFor('p:d', 'en', { ...settings, system: 'Be terse.' })).toBe('Be terse.')
  })
})
