import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot } from './harness'
import { chat, json, ScriptedServer } from './scripted-server'

/** What the built-in chat's model is told to answer, per test. */
type Mode = 'answer' | 'search-then-answer' | 'always-tools' | 'fail' | 'empty'

const DAY = 86_400_000

describe('the built-in chat answers with memory', () => {
  let h: Harness
  let mode: Mode = 'answer'
  let calls = 0
  const server: ScriptedServer = new ScriptedServer((path, body, res): void => {
    calls++
    if (path !== '/chat/completions') return json(res, 404, {})
    const toolCall = (name: string, args: object, id: string) =>
      json(res, 200, {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      })
    if (mode === 'fail') return json(res, 400, { error: { message: 'model is overloaded at /srv/model.py:42' } })
    if (mode === 'empty') return json(res, 200, { choices: [] })
    if (mode === 'always-tools' && body.tools) return toolCall('search_chat_history', { query: '蛋糕' }, `c${calls}`)
    const answered = body.messages.some((message: { role: string }) => message.role === 'tool')
    if (mode === 'search-then-answer' && !answered) return toolCall('search_memories', { query: '我的狗叫什么' }, 'c1')
    chat(res, '好的，我记得。')
  })

  beforeAll(async () => {
    const baseURL = await server.start()
    h = await boot({
      chat: {
        enabled: true,
        model: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 2000 },
        keywords: ['小助手'],
        cooldownSeconds: 30,
        maxToolCalls: 2,
      },
      topics: { enabled: false },
    })
  })

  afterAll(async () => {
    await h.stop()
    await server.stop()
  })

  /** The requests the chat model received since `from`. */
  const sent = (from: number) => server.requests.slice(from).filter((request) => request.path === '/chat/completions')
  const text = (request: { body: { messages: { content: string | null }[] } }) =>
    request.body.messages.map((m) => m.content ?? '').join('\n')

  it('answers a greeting without recalling anything', async () => {
    const from = server.requests.length
    const replies = await h.app.mock.client('greeter').receive('哈哈哈哈')
    expect(replies).toEqual(['好的，我记得。'])
    const [request] = sent(from)
    expect(request.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user'])
    expect(request.body.tools).toBeUndefined()
    const trace = await h.app.memory.lastTrace({ platform: 'mock', channelId: 'private:greeter' })
    expect(trace?.recallSkipped).toBe(true)
    expect(trace?.steps.map((step) => step.node)).toEqual(['route', 'recall', 'retrieve', 'generate', 'persist'])
    expect(trace?.steps[1].chose).toEqual({ code: 'skipped' })
  })

  it('finds what a user said weeks ago, in the prompt and through a tool call', async () => {
    const weeksAgo = new Date(Date.now() - 21 * DAY)
    await h.app.memory.remember({
      id: 'dog1',
      platform: 'mock',
      guildId: '',
      channelId: 'private:owner',
      userId: 'owner',
      content: 'owner的狗叫旺财。',
      reason: '',
      version: 1,
      parentId: '',
      sourceIds: [],
      createdAt: weeksAgo,
      updatedAt: weeksAgo,
      validFrom: weeksAgo,
      validTo: null,
    })
    mode = 'search-then-answer'
    const from = server.requests.length
    const replies = await h.app.mock.client('owner').receive('我之前说过我的狗叫什么名字？')
    expect(replies).toEqual(['好的，我记得。'])
    const [first, second] = sent(from)
    expect(text(first)).toContain('旺财')
    expect(first.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('search_memories')
    // the tool's answer went back to the model, paired with its call
    const toolTurn = second.body.messages.find((message: { role: string }) => message.role === 'tool')
    expect(toolTurn).toMatchObject({ tool_call_id: 'c1' })
    expect(toolTurn.content).toContain('旺财')
    const trace = await h.app.memory.lastTrace({ platform: 'mock', channelId: 'private:owner' })
    expect(trace?.toolCalls).toBe(1)
    expect(trace?.steps[0].chose.params?.deep).toBe('both')
  })

  it('stops a model that keeps calling tools at its bound, and still answers', async () => {
    mode = 'always-tools'
    const from = server.requests.length
    const replies = await h.app.mock.client('looper').receive('上次我们聊的蛋糕是什么口味的？')
    expect(replies).toEqual(['好的，我记得。'])
    const requests = sent(from)
    expect(requests).toHaveLength(3)
    expect(requests.map((request) => Boolean(request.body.tools))).toEqual([true, true, false])
    const trace = await h.app.memory.lastTrace({ platform: 'mock', channelId: 'private:looper' })
    expect(trace?.toolCalls).toBe(2)
  })

  it('apologises in the user’s language when the model fails, with no error text', async () => {
    mode = 'fail'
    const zh = await h.app.mock.client('unlucky').receive('今天晚上吃什么好呢？')
    expect(zh).toEqual(['抱歉，我现在答不上来，请稍后再试。'])
    mode = 'empty'
    const en = await h.app.mock.client('unlucky2').receive('What should I cook tonight?')
    expect(en).toEqual(['Sorry, I cannot answer right now. Please try again in a moment.'])
    const trace = await h.app.memory.lastTrace({ platform: 'mock', channelId: 'private:unlucky' })
    expect(trace?.outcome).toBe('failed')
    expect(trace?.steps.find((step) => step.node === 'generate')?.error).toContain('400')
  })

  it('answers in groups only when asked, once per cooldown, and never a command', async () => {
    mode = 'answer'
    const from = server.requests.length
    expect(await h.app.mock.client('ann', 'g1').receive('大家晚上好，今天好热')).toEqual([])
    expect(await h.app.mock.client('ann', 'g1').receive('<at id="514"/> 今天好热啊')).toEqual(['好的，我记得。'])
    expect(await h.app.mock.client('bob', 'g1').receive('<at id="514"/> 你也觉得热吗')).toEqual([])
    expect(await h.app.mock.client('bob', 'g2').receive('小助手 在吗？')).toEqual(['好的，我记得。'])
    expect(sent(from)).toHaveLength(2)
    const list = await h.app.mock.client('ann').receive('memory.list')
    expect(list.join('\n')).not.toContain('好的，我记得。')
    expect(sent(from)).toHaveLength(2)
  })

  it('records each reply once, and memory.stats reports the replies', async () => {
    await h.app.memory.flush()
    const rows = await h.app.database.get('memory_message', { channelId: 'g1', role: 'assistant' })
    expect(rows.map((row) => row.content)).toEqual(['好的，我记得。'])
    await h.app.database.setUser('mock', 'ann', { authority: 4 })
    const [stats] = await h.app.mock.client('ann').receive('memory.stats')
    expect(stats).toMatch(/内置聊天：回答 \d+ 次/)
    const [trace] = await h.app.mock.client('ann', 'g2').receive('memory.trace')
    expect(trace.split('\n')).toEqual([
      expect.stringMatching(/^对 .+ 的回答：模型回答，[\d.]+ 毫秒，提示词 \d+ token，回答 \d+ token，调用工具 0 次$/),
      expect.stringMatching(/^1\. route [\d.]+ 毫秒：查长期记忆、用户画像、往来对话、相关聊天；深度搜索：直接搜索（提问）$/),
      expect.stringMatching(/^2\. recall [\d.]+ 毫秒：/),
      expect.stringMatching(/^3\. retrieve [\d.]+ 毫秒：/),
      expect.stringMatching(
        /^4\. generate [\d.]+ 毫秒：openai-compatible:scripted，提供 0 个工具，调用 0 次（输入 \d+ \/ 输出 \d+ token）$/,
      ),
      expect.stringMatching(/^5\. persist [\d.]+ 毫秒：发送了 7 个字符$/),
    ])
  })
})
