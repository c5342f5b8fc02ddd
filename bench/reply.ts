/**
 * The reply pipeline on LoCoMo: what a chat model is sent when it answers a question about a long
 * conversation, beside sending the whole history and sending the last 50 messages.
 *
 *   npm run bench:reply -- [--data DIR] [--out FILE] [--limit-questions N] [--tools auto|always|never] [--config JSON]
 *
 * 1. Boots Koishi (mock adapter, SQLite, the memory plugin on its offline defaults, the built-in chat
 *    on with its defaults) and replays every conversation into a group channel (bench/locomo.ts).
 * 2. Every question of categories 1–4 with evidence goes through `ctx.memory.reply` as a message of a
 *    third user one minute after the last turn. The chat model is a scripted OpenAI-compatible server
 *    on loopback that records every request: when it is offered the chat-history search tool it calls
 *    it once with the question (what a model does with a question about the past), then answers
 *    "ok". Nothing it answers is scored; only what it was sent.
 * 3. Evidence recall of a reply: the share of the question's evidence turns whose line
 *    (`speaker: text`) appears in any request of that reply. Prompt tokens: the tokens of every
 *    message of every request of the reply (tool calls and results included; the tool schemas and
 *    per-message overheads are not counted, for ours or the baselines).
 *    Baselines, scored the same way: `whole_history` (persona, every turn, the question) and
 *    `last_50` (persona, the newest 50 turns, the question).
 *    `prompt_token_share` is mean prompt tokens ÷ mean whole-history prompt tokens.
 *    `context_evidence_recall`: the evidence among the chat lines recall chose (by message id), so
 *    the rest of `evidence_recall` is what the deep search added.
 */
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { HTTP } from '@koishijs/plugin-http'
import { chat, json, ScriptedServer } from '../test/integration/scripted-server'
import type { ContextTarget } from '../src/context'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { mean, percentile, round4 } from './lib/metrics'
import { countTokens, renderLine, TOKENIZER } from './lib/tokenizer'
import type { Conversation } from './locomo'
import { loadConversations, messageIdOf, replay } from './locomo'

const ROOT = path.resolve(__dirname, '..')
const ASKER = { userId: 'locomo-asker', userName: 'asker' }
const LAST = 50

interface Request {
  messages: { role: string; content: string | null; tool_calls?: { function: { arguments: string } }[] }[]
  tools?: { function: { name: string } }[]
}

/** What one reply sent: every request's messages, as text. */
const requestText = (request: Request) =>
  request.messages.map((message) =>
    [message.content ?? '', ...(message.tool_calls ?? []).map((call) => call.function.arguments)].join('\n'),
  )

const tokensOf = (texts: string[]) => texts.reduce((sum, text) => sum + countTokens(text), 0)

/** Share of evidence turns whose `speaker: text` line is somewhere in `sent`. */
function evidenceIn(conv: Conversation, evidence: string[], sent: string): number {
  const lines = new Map(conv.turns.map((turn) => [turn.diaId, renderLine(turn.speaker, turn.content)]))
  const found = evidence.filter((id) => sent.includes(lines.get(id)!))
  return found.length / evidence.length
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataDir = path.resolve(ROOT, options.data ?? '../shared/data/locomo')
  const out = options.out ? path.resolve(options.out) : undefined
  const limitQuestions = options['limit-questions'] ? intOption(options, 'limit-questions', 1) : Infinity
  const tools = (options.tools ?? 'auto') as 'auto' | 'always' | 'never'
  const started = new Date()
  const rev = revision(ROOT)

  // the scripted model: one search with the question when offered the tool, then "ok"
  let current: Request[] = []
  const server = new ScriptedServer((route, body: Request, res) => {
    if (route !== '/chat/completions') return json(res, 404, {})
    current.push(structuredClone(body))
    const searched = body.messages.some((message) => message.role === 'tool')
    const offered = body.tools?.some((tool) => tool.function.name === 'search_chat_history')
    if (offered && !searched) {
      const question = String(body.messages.at(-1)?.content ?? '').replace(/^asker: /, '')
      return json(res, 200, {
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'search',
                  type: 'function',
                  function: { name: 'search_chat_history', arguments: JSON.stringify({ query: question }) },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      })
    }
    chat(res, 'ok')
  })
  const baseURL = await server.start()
  const pluginConfig = options.config ? JSON.parse(options.config) : {}
  const config = {
    ...pluginConfig,
    chat: {
      enabled: true,
      tools,
      ...pluginConfig.chat,
      model: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 60_000 },
    },
  }
  const bench = await bootApp(config, { extra: (app) => app.plugin(HTTP) })
  const { app } = bench
  const conversations = loadConversations(dataDir)

  const ours = {
    contextRecall: [] as number[],
    recall: [] as number[],
    tokens: [] as number[],
    firstTokens: [] as number[],
    ms: [] as number[],
    toolCalls: 0,
    failed: 0,
  }
  const whole = { recall: [] as number[], tokens: [] as number[] }
  const last = { recall: [] as number[], tokens: [] as number[] }
  const perConversation: Record<string, { questions: number; ours_recall: number; ours_tokens: number; whole_tokens: number }> = {}
  try {
    for (const conv of conversations) {
      const t0 = performance.now()
      await replay(app, conv, 1)
      const channel = `locomo-${conv.id}`
      const lines = conv.turns.map((turn) => renderLine(turn.speaker, turn.content))
      const messageIds = new Map(conv.turns.map((turn, i) => [turn.diaId, messageIdOf(conv, i)]))
      const askAt = new Date(conv.turns.at(-1)!.time.getTime() + 60_000)
      log(`${conv.id}: replayed ${conv.turns.length} turns in ${Math.round(performance.now() - t0)} ms`)
      const mine = { recall: [] as number[], tokens: [] as number[], whole: [] as number[] }
      for (const q of conv.questions.slice(0, limitQuestions)) {
        const evidence = q.evidence
        const target: ContextTarget = { platform: 'mock', guildId: channel, channelId: channel, ...ASKER, content: q.question, time: askAt }
        current = []
        const start = performance.now()
        const state = await app.memory.reply(target, { deliver: async () => [] })
        ours.ms.push(performance.now() - start)
        if (state.outcome?.kind !== 'model') ours.failed++
        ours.toolCalls += state.trace.find((step) => step.node === 'generate')?.toolCalls?.length ?? 0
        const texts = current.flatMap(requestText)
        const tokens = tokensOf(texts)
        ours.tokens.push(tokens)
        ours.firstTokens.push(current[0] ? tokensOf(requestText(current[0])) : 0)
        const recall = evidenceIn(conv, evidence, texts.join('\n'))
        ours.recall.push(recall)
        // what recall alone chose, by message id: the deep search's share is the rest
        const chosen = new Set(state.recalled?.context?.messages.map((message) => message.messageId))
        ours.contextRecall.push(evidence.filter((id) => chosen.has(messageIds.get(id)!)).length / evidence.length)
        // the baselines send the same persona and question around their history
        const frame = [state.prompt[0]?.role === 'system' ? state.prompt[0].content : '', renderLine(ASKER.userName, q.question)]
        const wholeText = [...frame, ...lines]
        const lastText = [...frame, ...lines.slice(-LAST)]
        whole.tokens.push(tokensOf(wholeText))
        whole.recall.push(evidenceIn(conv, evidence, wholeText.join('\n')))
        last.tokens.push(tokensOf(lastText))
        last.recall.push(evidenceIn(conv, evidence, lastText.join('\n')))
        mine.recall.push(recall)
        mine.tokens.push(tokens)
        mine.whole.push(whole.tokens.at(-1)!)
      }
      perConversation[conv.id] = {
        questions: mine.recall.length,
        ours_recall: round4(mean(mine.recall)),
        ours_tokens: round4(mean(mine.tokens)),
        whole_tokens: round4(mean(mine.whole)),
      }
      log(
        `${conv.id}: ${mine.recall.length} questions, recall ${round4(mean(mine.recall))}, ${Math.round(mean(mine.tokens))} tokens a reply`,
      )
    }
  } finally {
    await bench.stop()
    await server.stop()
  }

  const wholeMean = mean(whole.tokens)
  writeResult(
    {
      tokenizer: TOKENIZER,
      questions: ours.recall.length,
      evidence_recall: round4(mean(ours.recall)),
      context_evidence_recall: round4(mean(ours.contextRecall)),
      prompt_token_share: round4(mean(ours.tokens) / wholeMean),
      prompt_tokens_mean: round4(mean(ours.tokens)),
      first_request_tokens_mean: round4(mean(ours.firstTokens)),
      tool_calls_per_reply: round4(ours.toolCalls / Math.max(1, ours.recall.length)),
      failed_replies: ours.failed,
      reply_ms_p50: round4(percentile(ours.ms, 50)),
      reply_ms_p95: round4(percentile(ours.ms, 95)),
      baselines: {
        whole_history: { evidence_recall: round4(mean(whole.recall)), prompt_token_share: 1, prompt_tokens_mean: round4(wholeMean) },
        last_50: {
          evidence_recall: round4(mean(last.recall)),
          prompt_token_share: round4(mean(last.tokens) / wholeMean),
          prompt_tokens_mean: round4(mean(last.tokens)),
        },
      },
      per_conversation: perConversation,
      chat_tools: tools,
      plugin_config: pluginConfig,
      ...runInfo(dataDir, started, rev),
    },
    out,
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
