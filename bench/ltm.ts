/**
 * Long-term memory end to end: what the product remembers of LoCoMo conversations replayed as a group
 * chat of their two speakers with no bot reply, offline providers.
 *
 *   npm run bench:ltm -- [--data DIR] [--out FILE] [--quiet-minutes N] [--limit N] [--budget N]
 *
 * DIR (default ../shared/data/locomo) holds `conv-*.json` (format: ../shared/data/README.md).
 *
 * 1. Boots Koishi (mock adapter, SQLite, the memory plugin with its defaults: offline embedder, rules)
 *    and replays every turn through the real capture path into one group channel per conversation.
 *    Idle topics are closed (and summarised) every 5 minutes of the conversation's time, as the timer does.
 *    Dialogues end as they do without a reply plugin: after `memorize.groupEvery` messages of the user,
 *    or once the user has been quiet for `--quiet-minutes` (default: the plugin's default) of the
 *    conversation's own time — the replay sweeps with the turn's time, as the plugin's timer does with
 *    the wall clock (the timer itself is off: its clock is not the replay's).
 * 2. Scores, for the QA questions of categories 1–4 whose evidence is a single turn:
 *    - `evidence_kept`: the evidence turn is among the sources of a stored fact of its speaker;
 *    - `recall@5`: the evidence turn is among the `sources` of a memory in `ctx.memory.retrieve(speaker,
 *      question)`'s top 5 within the group (a fact drawn from it, or the line itself), also by category;
 *    - `baseline_recall@5`: store every turn: BM25 over that speaker's raw turns, the evidence turn in the top 5.
 * 3. Counts the calls a configured model would receive, by kind, per 100 user messages: extraction
 *    (one per finished dialogue that passes the prefilter), topic judge (attributions in the uncertain
 *    band; only with `topics.useLlm`), topic titles (new topics; likewise), rolling summaries, topic
 *    summaries and group evolution (the daily timer: a group with `group.minMessages` new messages).
 * 4. With `--budget N` (model calls a day per group; 0: the offline rules only), a stand-in model on
 *    loopback (`lib/stand-in-model.ts`) receives the calls the budget lets through, each day of the
 *    conversation's own time; the facts stay the offline rules', so `evidence_kept` is the offline
 *    run's. `model_calls_per_100_messages` is then what the model received, `budget` says how many
 *    calls were refused and the most one group spent in one day (never above N). Group evolution,
 *    the daily timer, is not replayed under a budget (it would take one more call on a day with calls left).
 */
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { App } from 'koishi'
import { HTTP } from '@koishijs/plugin-http'
import { internalsOf } from '../src/compose'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { Bm25 } from './lib/bm25'
import { mean, round4 } from './lib/metrics'
import type { Conversation } from './locomo'
import { emitTurn, loadConversations, messageIdOf, userIdOf } from './locomo'
import { judgeAsRules, StandInModel } from './lib/stand-in-model'

const ROOT = path.resolve(__dirname, '..')
export const DEFAULT_QUIET_MINUTES = 10

/** How often the plugin's timer closes idle topics (its default `topics.closeIntervalMinutes`). */
const CLOSE_EVERY_MS = 5 * 60_000

/** Replays a conversation into the group channel `ltm-<id>`, driving the quiet sweep and topic closing on its clock. */
export async function replay(app: App, conv: Conversation, quietMs: number) {
  const channel = `ltm-${conv.id}`
  const { capture, maintenance, budgets } = internalsOf(app.memory)
  let closedAt = 0
  let now = conv.turns[0]?.time ?? new Date()
  // a budget's day is the conversation's own
  budgets.countDaysBy(() => now)
  for (let i = 0; i < conv.turns.length; i++) {
    const turn = conv.turns[i]
    now = turn.time
    // what the timers would have done by the time this turn is said: end quiet dialogues, close idle topics
    capture.sweep(turn.time, quietMs)
    if (turn.time.getTime() - closedAt >= CLOSE_EVERY_MS) {
      closedAt = turn.time.getTime()
      await maintenance.closeIdleTopics(turn.time)
    }
    emitTurn(app, conv, i, channel)
    await app.memory.flush()
  }
  const last = conv.turns[conv.turns.length - 1].time
  now = new Date(last.getTime() + quietMs + 1)
  capture.sweep(new Date(last.getTime() + quietMs + 1), quietMs)
  await maintenance.closeIdleTopics(new Date(last.getTime() + 24 * 3_600_000))
  await app.memory.flush()
}

/**
 * Evolutions the daily timer would run: once a day (UTC) for a group whose members said at least
 * `minMessages` messages since its last evolution.
 */
function evolutionsOf(conv: Conversation, minMessages: number): number {
  const perDay = new Map<string, number>()
  for (const turn of conv.turns) {
    const day = turn.time.toISOString().slice(0, 10)
    perDay.set(day, (perDay.get(day) ?? 0) + 1)
  }
  let runs = 0
  let waiting = 0
  for (const day of [...perDay.keys()].sort()) {
    waiting += perDay.get(day)!
    if (waiting < minMessages) continue
    runs++
    waiting = 0
  }
  return runs
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataDir = path.resolve(options.data ?? path.join(ROOT, '../shared/data/locomo'))
  const quietMs = intOption(options, 'quiet-minutes', DEFAULT_QUIET_MINUTES) * 60_000
  const limit = intOption(options, 'limit', Number.MAX_SAFE_INTEGER)
  const started = new Date()
  const rev = revision(ROOT)
  const t0 = performance.now()
  const conversations = loadConversations(dataDir).slice(0, limit)
  const budget = budgetOption(options)
  const model = budget === undefined ? undefined : new StandInModel()
  const baseURL = await model?.start()

  // the timers run on the wall clock; the replay ends quiet dialogues and closes idle topics on its own
  const bench = await bootApp(
    {
      memorize: { quietSeconds: 0 },
      topics: { closeIntervalMinutes: 30_000 },
      ...(baseURL && { llm: { provider: 'openai-compatible', baseURL, model: 'stand-in' }, budget: { calls: budget } }),
    },
    { extra: (app) => baseURL && app.plugin(HTTP) },
  )
  const { app } = bench
  if (model) judgeAsRules(app)
  try {
    let userTurns = 0
    let evolutions = 0
    const factLengths: number[] = []
    const kept: number[] = []
    const recall: number[] = []
    const baseline: number[] = []
    const perConversation: Record<string, object> = {}
    const byCategory: Record<string, { recall: number[]; baseline: number[] }> = {}

    for (const conv of conversations) {
      const c0 = performance.now()
      await replay(app, conv, quietMs)
      const channel = `ltm-${conv.id}`
      userTurns += conv.turns.length
      evolutions += evolutionsOf(conv, app.memory.config.group.minMessages)
      const facts = await app.database.get('memory_fact', { platform: 'mock', guildId: channel })
      for (const fact of facts) factLengths.push([...fact.content].length)
      const rowId = (i: number) => `mock:${channel}:${messageIdOf(conv, i)}`
      const turnIndex = new Map(conv.turns.map((turn, i) => [turn.diaId, i]))
      const single = conv.questions.filter((q) => q.evidence.length === 1 && turnIndex.has(q.evidence[0]))
      let convKept = 0
      let convRecall = 0
      let convBaseline = 0
      for (const q of single) {
        const i = turnIndex.get(q.evidence[0])!
        const speaker = userIdOf(conv.turns[i].speaker)
        const source = rowId(i)
        const own = facts.filter((fact) => fact.userId === speaker)
        const hit = own.some((fact) => fact.sourceIds.includes(source))
        kept.push(hit ? 1 : 0)
        convKept += hit ? 1 : 0
        const found = await app.memory.retrieve(speaker, q.question, { platform: 'mock', guildId: channel, topK: 5, minScore: 0 })
        const retrieved = found.some((memory) => memory.sources.some((line) => line.id === source))
        recall.push(retrieved ? 1 : 0)
        ;(byCategory[q.category] ??= { recall: [], baseline: [] }).recall.push(retrieved ? 1 : 0)
        convRecall += retrieved ? 1 : 0
        const theirs = conv.turns.map((turn, j) => ({ turn, j })).filter(({ turn }) => userIdOf(turn.speaker) === speaker)
        const ranked = new Bm25(theirs.map(({ turn }) => turn.content)).rank(q.question).slice(0, 5)
        const inTop = ranked.some((k) => theirs[k].j === i)
        baseline.push(inTop ? 1 : 0)
        byCategory[q.category].baseline.push(inTop ? 1 : 0)
        convBaseline += inTop ? 1 : 0
      }
      perConversation[conv.id] = {
        turns: conv.turns.length,
        facts: facts.length,
        questions: single.length,
        evidence_kept: round4(convKept / Math.max(1, single.length)),
        'recall@5': round4(convRecall / Math.max(1, single.length)),
        'baseline_recall@5': round4(convBaseline / Math.max(1, single.length)),
      }
      log(
        `${conv.id}: ${conv.turns.length} turns → ${facts.length} facts in ${Math.round(performance.now() - c0)} ms; kept ${convKept}/${single.length}, recall@5 ${convRecall}, baseline ${convBaseline}`,
      )
    }

    const counters = internalsOf(app.memory).counters.snapshot()
    const per100 = (n: number) => round4((n * 100) / Math.max(1, userTurns))
    const topicModel = app.memory.config.topics.useLlm
    const byKind = {
      extraction: per100(counters['memorize.extractions'] ?? 0),
      topic_judge: topicModel ? per100(counters['topic.uncertain'] ?? 0) : 0,
      topic_titles: topicModel ? per100(counters['topic.new'] ?? 0) : 0,
      rolling_summaries: per100(counters['summary.refreshed'] ?? 0),
      topic_summaries: per100(counters['summary.created'] ?? 0),
      evolution: per100(evolutions),
    }
    const facts = factLengths.length
    const spent = budget === undefined ? undefined : await spendOf(app, budget, userTurns, model!)
    const result = {
      evidence_kept: round4(mean(kept)),
      'recall@5': round4(mean(recall)),
      'baseline_recall@5': round4(mean(baseline)),
      'recall@5_by_category': Object.fromEntries(
        Object.entries(byCategory)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([category, { recall, baseline }]) => [
            category,
            { questions: recall.length, 'recall@5': round4(mean(recall)), 'baseline_recall@5': round4(mean(baseline)) },
          ]),
      ),
      facts_per_100_turns: per100(facts),
      mean_chars_per_fact: round4(mean(factLengths)),
      model_calls_per_100_messages: spent ? spent.per100 : round4(Object.values(byKind).reduce((sum, n) => sum + n, 0)),
      model_calls_by_kind: byKind,
      ...(spent && { budget: spent.report }),
      questions: kept.length,
      user_turns: userTurns,
      facts,
      conversations: perConversation,
      setup: {
        replay: 'one group channel per conversation, its two speakers, no bot reply; offline embedder and rules',
        quiet_minutes: quietMs / 60_000,
        group_every: app.memory.config.memorize.groupEvery,
        topics_use_llm: app.memory.config.topics.useLlm,
        evolution_min_messages: app.memory.config.group.minMessages,
        questions: 'categories 1–4 whose evidence is a single turn',
        baseline: 'store every turn: BM25 (bench/lib/bm25.ts) over the speaker’s raw turns of the conversation, top 5',
        model_calls:
          'what a configured model would receive: extraction per finished dialogue past the prefilter, topic judge per uncertain attribution and a title per new topic (with topics.useLlm), rolling and topic summaries, evolution by the daily timer (a group with group.minMessages new messages)',
      },
      counters,
      total_ms: Math.round(performance.now() - t0),
      ...runInfo(dataDir, started, rev),
    }
    writeResult(result, options.out)
  } finally {
    await bench.stop()
    await model?.stop()
  }
}

/** `--budget N`: model calls a day per group, 0 or more; absent: no model, the offline run. */
function budgetOption(options: Record<string, string>): number | undefined {
  const raw = options.budget
  if (raw === undefined) return undefined
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`--budget must be a whole number of calls a day, 0 or more, got ${raw}`)
  return value
}

/** What the budgets let through and refused, each group's day by day, as the memory counted it. */
async function spendOf(app: App, budget: number, userTurns: number, model: StandInModel) {
  await internalsOf(app.memory).budgets.flush()
  const rows = await app.database.get('memory_budget_spend', {})
  const calls = rows.reduce((sum, row) => sum + row.calls, 0)
  const refused = rows.reduce((sum, row) => sum + row.offline, 0)
  const maxDay = rows.reduce((most, row) => Math.max(most, row.calls), 0)
  return {
    per100: round4((calls * 100) / Math.max(1, userTurns)),
    report: {
      calls_per_day_per_group: budget,
      calls,
      requests_received: model.requests,
      refused_or_offline: refused,
      group_days: rows.length,
      most_calls_in_a_group_day: maxDay,
      within_budget: maxDay <= budget,
      prompt_tokens: rows.reduce((sum, row) => sum + row.tokens, 0),
    },
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
