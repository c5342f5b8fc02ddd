/**
 * LoCoMo turn-level evidence recall of the context builder, beside a recent-window and a BM25 baseline.
 *
 *   npm run bench:locomo -- [--data DIR] [--out FILE] [--budgets 500,1000,2000] [--limit-questions N]
 *
 * DIR (default ../shared/data/locomo from the repo root) holds `conv-*.json` (format:
 * ../shared/data/README.md).
 *
 * 1. Boots Koishi (mock adapter, SQLite, the memory plugin with its defaults: offline embedder, rules).
 * 2. Replays every conversation through the real capture path: one group channel per conversation, each
 *    turn a mock `message` session emitted on the app (`app.emit(session, 'message', session)`, what the
 *    adapter does), the speaker as the user, the session's date and time as the timestamp of its first
 *    turn and TURN_GAP_MS more for each next turn. A turn with an image carries its BLIP caption as
 *    text ("… [shares a photo of …]"), as LoCoMo's text-only evaluations do.
 * 3. For every question of categories 1–4 with at least one evidence id naming a turn, builds a context
 *    with the question as the current message (a third user, one minute after the last turn) at each
 *    budget, and scores the fraction of the evidence turns among the chosen messages. The same run,
 *    with the same tokenizer and the same `name: content` line per turn, scores:
 *      - recent: the newest turns that fit the budget (a contiguous window);
 *      - bm25:   the turns ranked by plain BM25 (bench/lib/bm25.ts, `words()` tokens, no stopwords, no
 *                stemming) against the question, taken best first while they fit.
 *    A turn costs the tokens of its line `speaker: text` plus one for the line break, the cost the
 *    context builder charges for a message.
 *    `ours` is `oursContext()`: `ctx.memory.buildContext(target, { tokenBudget })`.
 *
 * Other options: `--asker third|a` (who asks: a third user, default, or the conversation's first
 * speaker), `--ask-after-minutes N` (default 1), `--flush-every N` (turns between waits for the
 * plugin's background work, default 1), `--config JSON` (plugin settings over the defaults, for an
 * ablation; kept in the result as `plugin_config`).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { App } from 'koishi'
import { h } from 'koishi'
import type { BuiltContext, ContextOptions, ContextTarget } from '../src/context'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { Bm25 } from './lib/bm25'
import { packGreedy, packRecent } from './lib/budget'
import { evidenceRecall, mean, parseEvidence, percentile, round4 } from './lib/metrics'
import { countTokens, renderLine, TOKENIZER } from './lib/tokenizer'

const ROOT = path.resolve(__dirname, '..')
/** Time between two turns of a session (LoCoMo only dates the session). */
export const TURN_GAP_MS = 30_000
/** By default the question comes this long after the last turn of its conversation (`--ask-after-minutes`). */
const QUESTION_DELAY_MINUTES = 1
const ASKER = 'locomo-asker'
const CATEGORIES = ['1', '2', '3', '4']
const CATEGORY_NAMES: Record<string, string> = { '1': 'multi-hop', '2': 'temporal', '3': 'open-domain', '4': 'single-hop' }

export interface Turn {
  diaId: string
  speaker: string
  content: string
  time: Date
}

export interface Question {
  question: string
  category: string
  evidence: string[]
}

export interface Conversation {
  id: string
  speakers: [string, string]
  turns: Turn[]
  questions: Question[]
  /** Questions of categories 1–4 left out because none of their evidence ids names a turn. */
  noEvidence: number
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

/** "1:56 pm on 8 May, 2023" → that minute, read as UTC. */
export function parseLocomoTime(text: string): Date {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text)
  if (!m) throw new Error(`unreadable LoCoMo session time: ${text}`)
  const month = MONTHS.indexOf(m[5].toLowerCase())
  if (month < 0) throw new Error(`unreadable month in LoCoMo session time: ${text}`)
  let hour = Number(m[1]) % 12
  if (m[3].toLowerCase() === 'pm') hour += 12
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])))
}

/** A turn's text as a chat message: the text, and the image caption when the speaker shared one. */
export function turnText(turn: { text?: string; blip_caption?: string }): string {
  const text = String(turn.text ?? '').trim()
  return turn.blip_caption ? `${text} [shares ${turn.blip_caption}]`.trim() : text
}

export function loadConversation(file: string): Conversation {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  const sessions = Object.keys(raw)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => !!m && Array.isArray(raw[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
  const turns: Turn[] = []
  for (const k of sessions) {
    const start = parseLocomoTime(raw[`session_${k}_date_time`])
    raw[`session_${k}`].forEach((turn: { dia_id: unknown; speaker: unknown; text?: string; blip_caption?: string }, i: number) => {
      turns.push({
        diaId: String(turn.dia_id).trim(),
        speaker: String(turn.speaker),
        content: turnText(turn),
        time: new Date(start.getTime() + i * TURN_GAP_MS),
      })
    })
  }
  const known = new Set(turns.map((t) => t.diaId))
  const questions: Question[] = []
  let noEvidence = 0
  for (const qa of raw.qa ?? []) {
    const category = String(qa.category)
    if (!CATEGORIES.includes(category)) continue
    const evidence = parseEvidence(qa.evidence ?? [], (id) => known.has(id))
    if (!evidence.length) {
      noEvidence++
      continue
    }
    questions.push({ question: String(qa.question), category, evidence })
  }
  return { id: path.basename(file, '.json'), speakers: [raw.speaker_a, raw.speaker_b], turns, questions, noEvidence }
}

export function loadConversations(dir: string): Conversation[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.json$/.test(f))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((f) => loadConversation(path.join(dir, f)))
}

/** Platform message id of a turn; the reverse map turns chosen messages back into `dia_id`s. */
export function messageIdOf(conv: Conversation, index: number) {
  return `${conv.id}-t${index}`
}

export function userIdOf(speaker: string) {
  return `locomo-${speaker.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
}

/** Emits turn `i` of a conversation as an incoming message of `channel` (a group), as an adapter does. */
export function emitTurn(app: App, conv: Conversation, i: number, channel: string) {
  const turn = conv.turns[i]
  const session = app.mock.bots[0].session({
    type: 'message',
    user: { id: userIdOf(turn.speaker), name: turn.speaker },
    channel: { id: channel, type: 0 },
    guild: { id: channel },
    message: { id: messageIdOf(conv, i), content: h.escape(turn.content), elements: [h.text(turn.content)] },
    timestamp: turn.time.getTime(),
  })
  app.emit(session, 'message', session)
}

/** Emits every turn of a conversation as an incoming group message through Koishi's event system. */
export async function replay(app: App, conv: Conversation, flushEvery: number) {
  const channel = `locomo-${conv.id}`
  for (let i = 0; i < conv.turns.length; i++) {
    emitTurn(app, conv, i, channel)
    // a real chat gives background work (topic attribution, indexing) time between messages
    if ((i + 1) % flushEvery === 0) await app.memory.flush()
  }
  // written, indexed, and the background work done
  await app.memory.flush()
  // the capture path must have stored every turn, with its time
  const rows = await app.database.get('memory_message', { channelId: channel }, ['messageId', 'createdAt'])
  const times = new Map(rows.map((row) => [row.messageId, row.createdAt.getTime()]))
  const missing = conv.turns.filter((turn, i) => times.get(messageIdOf(conv, i)) !== turn.time.getTime())
  if (missing.length) throw new Error(`${conv.id}: ${missing.length} of ${conv.turns.length} turns were not captured with their time`)
}

type BuildContext = (target: ContextTarget, options: ContextOptions) => Promise<BuiltContext>

/** Ours: the product's context builder, `ctx.memory.buildContext`. */
export function oursContext(app: App): BuildContext | undefined {
  const service = app.memory as unknown as { buildContext?: BuildContext }
  return typeof service.buildContext === 'function' ? (target, options) => service.buildContext!(target, options) : undefined
}

interface Score {
  ours: number[]
  bm25: number[]
  recent: number[]
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataDir = path.resolve(ROOT, options.data ?? '../shared/data/locomo')
  const out = options.out ? path.resolve(options.out) : undefined
  const budgets = (options.budgets ?? '500,1000,2000').split(',').map(Number)
  const limitQuestions = options['limit-questions'] ? intOption(options, 'limit-questions', 1) : Infinity
  const flushEvery = intOption(options, 'flush-every', 1)
  const askerIsA = (options.asker ?? 'third') === 'a'
  const askAfterMinutes = intOption(options, 'ask-after-minutes', QUESTION_DELAY_MINUTES)
  const started = new Date()
  // taken before the run: the working tree can change while a bench runs
  const rev = revision(ROOT)
  const runStart = performance.now()

  const conversations = loadConversations(dataDir)
  log(
    `LoCoMo: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.turns.length, 0)} turns, ${conversations.reduce((n, c) => n + c.questions.length, 0)} questions of categories 1–4`,
  )

  // `--config '{"topics":{"enabled":false}}'`: plugin settings for an ablation, recorded in the JSON
  const pluginConfig = options.config ? JSON.parse(options.config) : {}
  const bench = await bootApp(pluginConfig)
  const { app } = bench
  try {
    const build = oursContext(app)
    if (!build) log('ctx.memory.buildContext does not exist yet: "ours" is left null')

    const scores = new Map<string, Map<string, Score>>() // budget → category → scores
    for (const b of budgets) scores.set(String(b), new Map(CATEGORIES.map((c) => [c, { ours: [], bm25: [], recent: [] }])))
    const oursStats = new Map<
      string,
      { tokens: number[]; recount: number[]; over: number; fallback: number; ms: number[]; unknown: number }
    >()
    for (const b of budgets) oursStats.set(String(b), { tokens: [], recount: [], over: 0, fallback: 0, ms: [], unknown: 0 })
    const historyTokens: Record<string, number> = {}
    let replayMs = 0
    let questionsScored = 0
    let noEvidence = 0

    for (const conv of conversations) {
      const t0 = performance.now()
      await replay(app, conv, flushEvery)
      replayMs += performance.now() - t0
      const channel = `locomo-${conv.id}`
      const lines = conv.turns.map((t) => renderLine(t.speaker, t.content))
      const cost = (i: number) => countTokens(lines[i]) + 1
      historyTokens[conv.id] = lines.reduce((n, _, i) => n + cost(i), 0)
      const byMessageId = new Map(conv.turns.map((t, i) => [messageIdOf(conv, i), t.diaId]))
      const bm25 = new Bm25(conv.turns.map((t) => t.content))
      const askAt = new Date(conv.turns[conv.turns.length - 1].time.getTime() + askAfterMinutes * 60_000)
      const asker = askerIsA ? { userId: userIdOf(conv.speakers[0]), userName: conv.speakers[0] } : { userId: ASKER, userName: 'asker' }
      noEvidence += conv.noEvidence
      log(
        `${conv.id}: replayed ${conv.turns.length} turns in ${Math.round(performance.now() - t0)} ms; ${historyTokens[conv.id]} tokens; ${conv.questions.length} questions`,
      )

      for (const q of conv.questions.slice(0, limitQuestions)) {
        questionsScored++
        const ranked = bm25.rank(q.question)
        for (const budget of budgets) {
          const s = scores.get(String(budget))!.get(q.category)!
          const recent = packRecent(conv.turns.length, cost, budget).map((i) => conv.turns[i].diaId)
          const best = packGreedy(ranked, cost, budget).map((i) => conv.turns[i].diaId)
          s.recent.push(evidenceRecall(q.evidence, recent)!)
          s.bm25.push(evidenceRecall(q.evidence, best)!)
        }
        if (!build) continue
        const target: ContextTarget = {
          platform: 'mock',
          guildId: channel,
          channelId: channel,
          ...asker,
          content: q.question,
          time: askAt,
        }
        // the three budgets of one question are built concurrently (the machine has two cores)
        const contexts = await Promise.all(
          budgets.map(async (budget) => {
            const start = performance.now()
            const context = await build(target, { tokenBudget: budget })
            return { budget, context, ms: performance.now() - start }
          }),
        )
        for (const { budget, context, ms } of contexts) {
          const s = scores.get(String(budget))!.get(q.category)!
          const stats = oursStats.get(String(budget))!
          stats.ms.push(ms)
          const chosen: string[] = []
          let recount = 0
          for (const m of context.messages) {
            const dia = byMessageId.get(m.messageId)
            if (dia) chosen.push(dia)
            else stats.unknown++
            recount += countTokens(renderLine(m.userName, m.content)) + 1
          }
          stats.tokens.push(context.tokens)
          stats.recount.push(recount)
          if (recount > budget || context.tokens > budget) stats.over++
          if (context.fallback) stats.fallback++
          s.ours.push(evidenceRecall(q.evidence, chosen)!)
        }
      }
      log(`${conv.id}: questions done`)
    }

    const result: Record<string, unknown> = {
      tokenizer: TOKENIZER,
      budgets: Object.fromEntries(
        budgets.map((budget) => {
          const byCategory = scores.get(String(budget))!
          const all = (key: keyof Score) => [...byCategory.values()].flatMap((s) => s[key])
          const value = (xs: number[]) => (build ? round4(mean(xs)) : null)
          const stats = oursStats.get(String(budget))!
          return [
            String(budget),
            {
              ours: value(all('ours')),
              bm25: round4(mean(all('bm25'))),
              recent: round4(mean(all('recent'))),
              per_category: Object.fromEntries(
                CATEGORIES.map((c) => {
                  const s = byCategory.get(c)!
                  return [
                    c,
                    {
                      name: CATEGORY_NAMES[c],
                      questions: s.bm25.length,
                      ours: value(s.ours),
                      bm25: round4(mean(s.bm25)),
                      recent: round4(mean(s.recent)),
                    },
                  ]
                }),
              ),
              ours_context: build
                ? {
                    mean_tokens_reported: round4(mean(stats.tokens)),
                    mean_message_tokens_recounted: round4(mean(stats.recount)),
                    over_budget: stats.over,
                    fallbacks: stats.fallback,
                    messages_not_from_the_conversation: stats.unknown,
                    // the three budgets of a question are built concurrently, so these include contention
                    build_ms_p50: round4(percentile(stats.ms, 50)),
                    build_ms_p95: round4(percentile(stats.ms, 95)),
                  }
                : null,
            },
          ]
        }),
      ),
      full_history_tokens: Object.values(historyTokens).reduce((a, b) => a + b, 0),
      full_history_tokens_per_conversation: historyTokens,
      questions: questionsScored,
      questions_without_valid_evidence: noEvidence,
      conversations: conversations.length,
      turns: conversations.reduce((n, c) => n + c.turns.length, 0),
      ours_note: build
        ? 'ctx.memory.buildContext(target, { tokenBudget })'
        : 'null: ctx.memory.buildContext does not exist yet in this build',
      setup: {
        turn_line:
          "'speaker: text' (image turns: text + ' [shares <blip caption>]'); a turn costs its line's tokens + 1 (line break), for the baselines, the full history and the recount of ours",
        turn_gap_ms: TURN_GAP_MS,
        question: `asked by ${askerIsA ? 'the first speaker' : `a third user ('${ASKER}')`} in the conversation's channel, ${askAfterMinutes} min after its last turn; not captured`,
        recent: 'newest turns while they fit (contiguous window)',
        bm25: 'plain Okapi BM25 (k1 1.2, b 0.75, words() tokens, no stopwords/stemming) over the turn texts; best first while they fit, skipping a turn that does not',
        flush_every: flushEvery,
      },
      replay_ms: Math.round(replayMs),
      total_ms: Math.round(performance.now() - runStart),
      counters: (await app.memory.status()).counters,
      plugin_config: pluginConfig,
      ...runInfo(dataDir, started, rev),
    }
    writeResult(result, out)
  } finally {
    await bench.stop()
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
