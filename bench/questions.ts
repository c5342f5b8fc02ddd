/**
 * Questions a person asks about what they told the bot, in their own words: does `retrieve` find the
 * line that answers, and does asking leave memory as it was?
 *
 *   npm run bench:questions -- [--data FILE] [--out FILE] [--limit N] [--verbose]
 *
 * FILE (default bench/data/questions.json) holds scenarios written for this bench: in a private chat
 * with the bot or in a group (other members talking too), a person states facts among small talk;
 * later they — or another member, about them — ask questions, each naming the statement line(s) that
 * answer it and its kinds (name, place, time, word form, …). Beside them, a pool of everyday lines per
 * language with nothing to remember.
 *
 * 1. Boots Koishi (mock adapter, SQLite, the memory plugin with its defaults: offline embedder, rules)
 *    and replays each scenario through the real capture path, one channel per scenario: a day of small
 *    talk from the pool, the scenario's lines the next day, small talk again the day after; each day's
 *    dialogue ends as the plugin's timer would end it once the speakers are quiet.
 * 2. Two days later each question is sent as a message too (captured like any line, its dialogue then
 *    ended the same way), and `ctx.memory.retrieve(user, question, { platform, guildId, topK: 3 })` is
 *    asked for the user the question is about.
 * 3. Scores `recall@1` / `recall@3` (a result among the top k carries a statement line's message row id:
 *    its `sources`, or the `sourceIds` of its fact row), against `baseline_recall@1/@3`: BM25
 *    (bench/lib/bm25.ts) over every line that user had said in the chat, the question itself left out.
 *    `questions_stored`: facts, entities, relations, preferences and traits drawn from a question's
 *    message; `facts_closed_by_questions` (and `relations_closed_by_questions`): rows that memorising a
 *    question's dialogue closed.
 */
import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { h } from 'koishi'
import type { App } from 'koishi'
import { internalsOf } from '../src/compose'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { Bm25 } from './lib/bm25'
import type { Closable, Outcome, SourcedItem } from './lib/questions-score'
import { breakdown, firstHit, newlyClosed, storedFrom, summarise } from './lib/questions-score'

const ROOT = path.resolve(__dirname, '..')
const PLATFORM = 'mock'
const BOT = 'bot'
/** How long speakers stay quiet before the dialogue ends (the plugin's default `memorize.quietSeconds`). */
const QUIET_MS = 600_000
const LINE_GAP_MS = 40_000
/** Questions come two days after the statements, an hour apart. */
const DAY_MS = 86_400_000
const ASK_AFTER_MS = 2 * DAY_MS
const ASK_GAP_MS = 3_600_000
const START = Date.UTC(2026, 2, 2, 9)
/** Lines of small talk around each scenario's statements, half the day before and half the day after. */
const CHATTER_LINES = 12

/** `[speaker key, text, evidence key?]`. */
type Line = [string, string, string?]

interface Question {
  /** Who asks (a key of `people`); default `me`. */
  by?: string
  /** Whose memory answers (a key of `people`); default the asker. */
  about?: string
  text: string
  /** Evidence keys of the lines that answer it. */
  expect: string[]
  kinds: string[]
  /** The question @-s the bot (a group). */
  at?: boolean
}

interface Scenario {
  id: string
  lang: 'zh' | 'en'
  chat: 'private' | 'group'
  /** Speaker keys to display names; `me` is the person the scenario is about. */
  people: Record<string, string>
  lines: Line[]
  questions: Question[]
}

interface Said {
  rowId: string
  userId: string
  text: string
}

interface QuestionData {
  /** Everyday lines with nothing to remember, per language: the chatter around each scenario's statements. */
  smallTalk: Record<Scenario['lang'], string[]>
  scenarios: Scenario[]
}

function loadData(file: string): QuestionData {
  const data = JSON.parse(readFileSync(file, 'utf8')) as QuestionData
  const ids = new Set<string>()
  for (const s of data.scenarios) {
    if (ids.has(s.id)) throw new Error(`duplicate scenario ${s.id}`)
    ids.add(s.id)
    if (s.chat === 'private' && Object.keys(s.people).length !== 1) throw new Error(`${s.id}: a private chat has one person`)
    const keys = new Set(s.lines.flatMap((line) => (line[2] ? [line[2]] : [])))
    for (const line of s.lines) if (!(line[0] in s.people)) throw new Error(`${s.id}: unknown speaker ${line[0]}`)
    for (const q of s.questions) {
      for (const who of [q.by ?? 'me', q.about ?? q.by ?? 'me']) if (!(who in s.people)) throw new Error(`${s.id}: unknown person ${who}`)
      for (const key of q.expect) if (!keys.has(key)) throw new Error(`${s.id}: no line ${key} for "${q.text}"`)
    }
  }
  return data
}

/**
 * The chatter of scenario `index`: `CHATTER_LINES` lines of the pool from an offset that moves with
 * the scenario; in a group they go round its members, the person first.
 */
function chatterOf(pool: string[], index: number, people: string[]): Line[] {
  const offset = (index * 7) % pool.length
  const others = people.slice(1)
  return Array.from({ length: Math.min(CHATTER_LINES, pool.length) }, (_, i): Line => {
    const who = i % 2 === 0 || !others.length ? people[0] : others[((i - 1) / 2) % others.length]
    return [who, pool[(offset + i) % pool.length]]
  })
}

class ScenarioRun {
  readonly channelId: string
  readonly guildId: string
  readonly said: Said[] = []

  constructor(
    private readonly app: App,
    readonly scenario: Scenario,
  ) {
    this.guildId = scenario.chat === 'group' ? `q-${scenario.id}` : ''
    this.channelId = scenario.chat === 'group' ? this.guildId : `private:${this.userId('me')}`
  }

  userId(key: string) {
    return `q-${this.scenario.id}-${key}`
  }

  rowId(messageId: string) {
    return `${PLATFORM}:${this.channelId}:${messageId}`
  }

  /** Emits one incoming message, as an adapter does. */
  emit(who: string, text: string, messageId: string, time: number, atBot = false) {
    const userId = this.userId(who)
    const elements = atBot ? [h.at(BOT), h.text(' ' + text)] : [h.text(text)]
    const session = this.app.mock.bots[0].session({
      type: 'message',
      user: { id: userId, name: this.scenario.people[who] },
      channel: { id: this.channelId, type: this.guildId ? 0 : 1 },
      ...(this.guildId && { guild: { id: this.guildId } }),
      message: { id: messageId, content: elements.join(''), elements },
      timestamp: time,
    })
    this.app.emit(session, 'message', session)
    this.said.push({ rowId: this.rowId(messageId), userId, text })
  }

  /** Ends the channel's dialogue as the quiet timer would, after `last`, and waits for memorising. */
  async endDialogue(last: number) {
    await this.app.memory.flush()
    internalsOf(this.app.memory).capture.sweep(new Date(last + QUIET_MS + 1), QUIET_MS)
    await this.app.memory.flush()
  }

  /** Says `lines` from `start`, 40 s apart, then ends the dialogue; returns the row id of each evidence key and the last time. */
  async replay(lines: Line[], start: number, tag: string) {
    const evidence = new Map<string, string>()
    const spoken = new Set(this.said.map((line) => line.userId))
    let time = start
    for (const [i, [who, text, key]] of lines.entries()) {
      time = start + i * LINE_GAP_MS
      const messageId = `${this.scenario.id}-${tag}${i}`
      this.emit(who, text, messageId, time)
      if (key) evidence.set(key, this.rowId(messageId))
      // Koishi creates a user's and a channel's rows on their first message: let that finish before the next
      if (!spoken.has(this.userId(who))) await this.app.memory.flush()
      spoken.add(this.userId(who))
    }
    await this.endDialogue(time)
    return { evidence, last: time }
  }
}

/** Every memory item with the messages it was drawn from: facts and the knowledge tables. */
async function sourcedItems(app: App): Promise<SourcedItem[]> {
  const items: SourcedItem[] = []
  for (const fact of await app.database.get('memory_fact', {}))
    items.push({ kind: 'fact', id: fact.id, sourceIds: fact.sourceIds, text: fact.content })
  for (const entity of await app.database.get('memory_entity', {}))
    items.push({ kind: 'entity', id: entity.id, sourceIds: entity.sourceIds })
  for (const relation of await app.database.get('memory_relation', {}))
    items.push({ kind: 'relation', id: relation.id, sourceIds: relation.sourceIds })
  for (const profile of await app.database.get('memory_profile', {})) {
    profile.preferences.forEach((p, i) => items.push({ kind: 'preference', id: `${profile.id}/p${i}`, sourceIds: p.sourceIds }))
    profile.traits.forEach((t, i) => items.push({ kind: 'trait', id: `${profile.id}/t${i}`, sourceIds: t.sourceIds }))
  }
  return items
}

/** The facts of a scenario's people and the relations of its chat's knowledge, as far as closing goes. */
async function closables(app: App, run: ScenarioRun): Promise<{ facts: Closable[]; relations: Closable[] }> {
  const people = Object.keys(run.scenario.people).map((key) => run.userId(key))
  const knowledge = run.guildId ? { guildId: run.guildId } : { guildId: '', userId: run.userId('me') }
  return {
    facts: await app.database.get('memory_fact', { userId: people }, ['id', 'validTo', 'supersededBy']),
    relations: await app.database.get('memory_relation', knowledge, ['id', 'validTo']),
  }
}

interface Asked {
  scenario: string
  question: string
  rank: number
  baselineRank: number
  closed: string[]
  top: string[]
}

/** Asks every question of a replayed scenario: sent as a message, its dialogue ended, then `retrieve`. */
async function askAll(app: App, run: ScenarioRun, evidence: Map<string, string>, last: number, questionIds: Set<string>) {
  const { scenario } = run
  const outcomes: (Outcome & Asked & { closedRelations: string[] })[] = []
  for (const [j, q] of scenario.questions.entries()) {
    const by = q.by ?? 'me'
    const about = q.about ?? by
    const time = last + ASK_AFTER_MS + j * ASK_GAP_MS
    const messageId = `${scenario.id}-q${j}`
    const before = await closables(app, run)
    // the lines the user had said before asking: what "keep every line" would search
    const theirs = run.said.filter((line) => line.userId === run.userId(about))
    run.emit(by, q.text, messageId, time, q.at)
    questionIds.add(run.rowId(messageId))
    await run.endDialogue(time)
    const after = await closables(app, run)

    const found = await app.memory.retrieve(run.userId(about), q.text, { platform: PLATFORM, guildId: run.guildId, topK: 3 })
    const facts = await app.database.get('memory_fact', { id: found.map((item) => item.id) }, ['id', 'sourceIds'])
    const factSources = new Map(facts.map((fact) => [fact.id, fact.sourceIds]))
    const expected = q.expect.map((key) => evidence.get(key)!)
    const ranked = new Bm25(theirs.map((line) => line.text)).rank(q.text)
    const baselineHit = ranked.findIndex((i) => expected.includes(theirs[i].rowId)) + 1
    outcomes.push({
      scenario: scenario.id,
      question: q.text,
      language: scenario.lang,
      kinds: [...q.kinds, scenario.chat, by === about ? 'asked-by-self' : 'asked-by-other'],
      rank: firstHit(found, expected, factSources),
      baselineRank: baselineHit,
      closed: newlyClosed(before.facts, after.facts),
      closedRelations: newlyClosed(before.relations, after.relations),
      top: found.map((item) => item.content),
    })
  }
  return outcomes
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataFile = path.resolve(options.data ?? path.join(ROOT, 'bench/data/questions.json'))
  const limit = intOption(options, 'limit', Number.MAX_SAFE_INTEGER)
  const verbose = options.verbose === 'true'
  const started = new Date()
  const rev = revision(ROOT)
  const t0 = performance.now()
  const data = loadData(dataFile)
  const scenarios = data.scenarios.slice(0, limit)

  // the timers run on the wall clock; the replay ends quiet dialogues on its own clock
  const bench = await bootApp({ memorize: { quietSeconds: 0 }, topics: { closeIntervalMinutes: 30_000 } })
  const { app } = bench
  try {
    const asked: Awaited<ReturnType<typeof askAll>> = []
    const questionIds = new Set<string>()
    for (const [i, scenario] of scenarios.entries()) {
      const run = new ScenarioRun(app, scenario)
      const chatter = chatterOf(data.smallTalk[scenario.lang], i, Object.keys(scenario.people))
      const half = Math.ceil(chatter.length / 2)
      // a day of chatter, the day of the statements, a day of chatter
      const start = START + i * 7 * DAY_MS
      await run.replay(chatter.slice(0, half), start, 'a')
      const { evidence } = await run.replay(scenario.lines, start + DAY_MS, 'l')
      const { last } = await run.replay(chatter.slice(half), start + 2 * DAY_MS, 'b')
      const outcomes = await askAll(app, run, evidence, last, questionIds)
      asked.push(...outcomes)
      if (verbose) {
        for (const o of outcomes) log(`${o.rank ? '✓' : '✗'} ${o.scenario} ${o.question} → ${o.top.join(' | ') || '(nothing)'}`)
      }
    }
    const stored = storedFrom(await sourcedItems(app), questionIds)
    const all = summarise(asked)
    const result = {
      'recall@1': all['recall@1'],
      'recall@3': all['recall@3'],
      'baseline_recall@1': all['baseline_recall@1'],
      'baseline_recall@3': all['baseline_recall@3'],
      questions_stored: stored.total,
      questions_stored_by_kind: stored.byKind,
      questions_stored_examples: stored.examples,
      facts_closed_by_questions: asked.reduce((sum, o) => sum + o.closed.length, 0),
      relations_closed_by_questions: asked.reduce((sum, o) => sum + o.closedRelations.length, 0),
      cases: asked.length,
      scenarios: scenarios.length,
      by_language: breakdown(asked, (o) => [o.language]),
      by_kind: breakdown(asked, (o) => o.kinds),
      missed_at_3: asked.filter((o) => !(o.rank > 0 && o.rank <= 3)).map((o) => `${o.scenario}: ${o.question}`),
      setup: {
        replay:
          'one channel per scenario (a private chat, or a group with other members): 6 lines of small talk from the pool, the scenario’s lines the next day, 6 more the day after, 40 s apart, each day’s dialogue ended after 10 quiet minutes as the timer would; each question two days later, sent as a message and its dialogue ended the same way; offline embedder and rules',
        retrieve: 'ctx.memory.retrieve(user the question is about, question, { platform, guildId, topK: 3 })',
        hit: 'a top-k result whose sources (or its fact row’s sourceIds) include a statement line that answers the question',
        baseline: 'store every turn: BM25 (bench/lib/bm25.ts) over that user’s lines said in the chat before the question',
      },
      total_ms: Math.round(performance.now() - t0),
      ...runInfo(dataFile, started, rev),
    }
    writeResult(result, options.out)
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
