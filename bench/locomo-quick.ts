/**
 * Quick LoCoMo evidence-recall loop for the context builder, without Koishi: the conversations are
 * loaded into an in-memory message store and a real LanceDB `messages` index (offline embedder), then
 * `ContextBuilder.build` is asked, for every question of categories 1–4, for a context within each
 * budget. Recall = share of the question's evidence turns among the chosen messages. The two
 * baselines of issue 3 are computed with the same tokenizer and the same per-line cost.
 *
 *   npx tsx bench/locomo-quick.ts [--data ../shared/data/locomo] [--budgets 500,1000,2000]
 *     [--asker speaker|other] [--at after|later] [--stats channel|pool] [--summary] [--captions] [--set key=value ...] [--out FILE]
 *
 * `--set` overrides a builder setting (`semanticLimit=80`) or a scorer weight (`w.semantic=0.5`,
 * `threshold=0.2`). `--asker speaker` asks as the first speaker (else as a third person);
 * `--at after` asks one minute after the last turn (else a week later); `--stats pool` scores keywords
 * with the candidate pool's term statistics instead of the channel's; `--summary` gives each
 * conversation an offline rolling summary, which takes its share of every budget. The official benchmark is
 * `bench/locomo.ts`, which replays through the plugin's capture path.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Counters } from '../src/core/observability'
import { OfflineEmbedder } from '../src/providers/offline-embedder'
import { LanceIndex } from '../src/store/lance-index'
import type { MessageRow } from '../src/messages'
import { contentTerms } from '../src/text/keywords'
import { countTokens, ESTIMATED_ENCODING, renderLine } from '../src/text/token-count'
import type { ContextBuilderConfig } from '../src/context'
import { ContextBuilder } from '../src/context'
import { InMemoryMessageStore } from '../test/fakes/message-store'
import { MessageIndex } from '../src/messages'
import type { ScorerWeights } from '../src/context'
import { RelevanceScorer, SIGNALS } from '../src/context'
import { quickSearch } from '../src/context'
import { ExtractiveSummarizer } from '../src/channel-summaries'
import { TermStats } from '../src/context'
import { defaultLexicalShare } from '../src/facts'
import type { ContextTarget } from '../src/context'
import { MemoryOutbox } from '../test/fakes/outbox'
import { turnText } from './locomo'

/** What every count of this script is: the plugin's own estimate, as the builder budgets. */
const TOKENIZER = `${ESTIMATED_ENCODING}, estimated by the plugin`

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : fallback
}

function sets(): Record<string, number> {
  const out: Record<string, number> = {}
  process.argv.forEach((value, i) => {
    if (process.argv[i - 1] !== '--set') return
    const [key, raw] = value.split('=')
    out[key] = raw === 'true' ? 1 : raw === 'false' ? 0 : Number(raw)
  })
  return out
}

interface Turn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}
interface Qa {
  question: string
  evidence: string[]
  category: number
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

/** "1:56 pm on 8 May, 2023" → Date (UTC). */
export function parseLocomoDate(text: string): Date {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text)
  if (!m) throw new Error(`unparsed date: ${text}`)
  let hour = Number(m[1]) % 12
  if (m[3].toLowerCase() === 'pm') hour += 12
  return new Date(Date.UTC(Number(m[6]), MONTHS.indexOf(m[5].toLowerCase()), Number(m[4]), hour, Number(m[2])))
}

/** `--captions`: a turn with an image carries its caption, as the official bench replays it. */
const withCaptions = process.argv.includes('--captions')

function loadConversation(file: string) {
  const data = JSON.parse(readFileSync(file, 'utf8'))
  const id = file.replace(/^.*\//, '').replace(/\.json$/, '')
  const rows: MessageRow[] = []
  const byDia = new Map<string, string>()
  const sessions = Object.keys(data)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
  for (const key of sessions) {
    const start = parseLocomoDate(data[`${key}_date_time`])
    ;(data[key] as Turn[]).forEach((turn, i) => {
      const messageId = `${id}-${turn.dia_id}`
      const row: MessageRow = {
        id: `locomo:${id}:${messageId}`,
        messageId,
        platform: 'locomo',
        guildId: id,
        channelId: id,
        userId: turn.speaker.toLowerCase(),
        userName: turn.speaker,
        content: withCaptions ? turnText(turn) : turn.text,
        role: 'user',
        isMentionBot: false,
        isCommand: false,
        replyMessageId: '',
        rootMessageId: messageId,
        topicId: '',
        createdAt: new Date(start.getTime() + i * 30_000),
      }
      rows.push(row)
      byDia.set(turn.dia_id, row.id)
    })
  }
  const qa = (data.qa as Qa[])
    .filter((q) => q.category >= 1 && q.category <= 4)
    .map((q) => ({
      ...q,
      evidence: q.evidence
        .flatMap((e) => e.split(';'))
        .map((e) => e.trim())
        .flatMap((e) => byDia.get(e) ?? []),
    }))
    .filter((q) => q.evidence.length)
  return { id, rows, qa, speakerA: data.speaker_a as string }
}

/** What a row costs in a context: its rendered line plus a line break. */
const costs = new WeakMap<MessageRow, number>()
function costOf(row: MessageRow): number {
  let value = costs.get(row)
  if (value === undefined) costs.set(row, (value = countTokens(renderLine(row.userName, row.content)) + 1))
  return value
}

/** Newest rows that fit, one line each plus a line break. */
function recentBaseline(rows: MessageRow[], budget: number): Set<string> {
  const out = new Set<string>()
  let used = 0
  for (let i = rows.length - 1; i >= 0; i--) {
    const cost = costOf(rows[i])
    if (used + cost > budget) break
    out.add(rows[i].id)
    used += cost
  }
  return out
}

class Bm25 {
  private docs: Map<string, number>[]
  private df = new Map<string, number>()
  private avg: number
  constructor(
    private rows: MessageRow[],
    private terms: (text: string) => string[],
  ) {
    this.docs = rows.map((row) => {
      const tf = new Map<string, number>()
      for (const t of terms(row.content)) tf.set(t, (tf.get(t) ?? 0) + 1)
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1)
      return tf
    })
    this.avg = this.docs.reduce((s, d) => s + [...d.values()].reduce((a, b) => a + b, 0), 0) / Math.max(1, this.docs.length)
  }
  /** Best-scoring rows that fit the budget (skipping those that do not fit). */
  select(query: string, budget: number): Set<string> {
    const q = new Set(this.terms(query))
    const n = this.docs.length
    const scored = this.docs
      .map((tf, i) => {
        const len = [...tf.values()].reduce((a, b) => a + b, 0)
        let s = 0
        for (const t of q) {
          const f = tf.get(t)
          if (!f) continue
          const df = this.df.get(t) ?? 0
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
          s += (idf * (f * 2.2)) / (f + 1.2 * (0.25 + (0.75 * len) / this.avg))
        }
        return { i, s }
      })
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s)
    const out = new Set<string>()
    let used = 0
    for (const { i } of scored) {
      const row = this.rows[i]
      const cost = costOf(row)
      if (used + cost > budget) continue
      out.add(row.id)
      used += cost
    }
    return out
  }
}

function plainTerms(text: string) {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean)
}

async function main() {
  const dataDir = resolve(arg('data', '../shared/data/locomo'))
  const budgets = arg('budgets', '500,1000,2000').split(',').map(Number)
  const asker = arg('asker', 'other')
  const at = arg('at', 'later')
  const statsMode = arg('stats', 'channel')
  // with --summary, each conversation gets the offline rolling summary of all but its last 20
  // turns (300 tokens at most), as the plugin would hold it; it takes its share of the budget
  const withSummary = process.argv.includes('--summary')
  const overrides = sets()
  const weights: Partial<ScorerWeights> = {}
  // as the service sets it for the offline embedder
  const config: Partial<ContextBuilderConfig> = { lexicalShare: defaultLexicalShare(new OfflineEmbedder()) }
  let threshold: number | undefined
  let halfLifeHours: number | undefined
  for (const [key, value] of Object.entries(overrides)) {
    if (key.startsWith('w.')) weights[key.slice(2) as keyof ScorerWeights] = value
    else if (key === 'threshold') threshold = value
    else if (key === 'halfLifeHours') halfLifeHours = value
    else (config as Record<string, number | boolean>)[key] = key === 'embedCandidates' ? Boolean(value) : value
  }
  const files = readdirSync(dataDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
  const dir = mkdtempSync(join(tmpdir(), 'locomo-quick-'))
  const counters = new Counters()
  const index = new LanceIndex({ dir, logger: quiet, counters, optimizeEveryMs: 0, optimizeEveryWrites: 0, hybrid: 'parallel' })
  await index.open()
  const embedder = new OfflineEmbedder()
  // every conversation's rows, where the index reads rows back from (a rebuild; not used by this bench)
  const allRows = new InMemoryMessageStore()
  const messages = new MessageIndex({ index, embedder, counters, logger: quiet, batchSize: 256, rows: allRows, outbox: new MemoryOutbox() })

  type Tally = { n: number; ours: number; bm25: number; bm25plain: number; recent: number }
  const totals = new Map<string, Tally>()
  const tally = (key: string, ours: number, bm25: number, bm25plain: number, recent: number) => {
    const t = totals.get(key) ?? { n: 0, ours: 0, bm25: 0, bm25plain: 0, recent: 0 }
    t.n++
    t.ours += ours
    t.bm25 += bm25
    t.bm25plain += bm25plain
    t.recent += recent
    totals.set(key, t)
  }
  let fullTokens = 0
  let buildMs = 0
  let builds = 0
  const started = Date.now()
  for (const file of files) {
    const conv = loadConversation(join(dataDir, file))
    const store = new InMemoryMessageStore()
    store.add(...conv.rows)
    allRows.add(...conv.rows)
    await messages.index(conv.rows)
    await index.optimize(messages.table)
    fullTokens += conv.rows.reduce((s, r) => s + costOf(r), 0)
    const summaryText = withSummary
      ? await new ExtractiveSummarizer().summarize({
          previous: '',
          messages: conv.rows.slice(0, -20).map((r) => ({ name: r.userName, content: r.content })),
          maxTokens: 300,
        })
      : ''
    const termStats = new TermStats()
    for (const row of conv.rows) termStats.add(row, row.content)
    const builder = new ContextBuilder(
      {
        store,
        termStats: statsMode === 'channel' ? termStats : undefined,
        summary: withSummary ? async () => summaryText : undefined,
        search: quickSearch(messages),
        embedder,
        counters,
        logger: quiet,
        scorer: new RelevanceScorer({ weights, threshold, halfLifeHours }),
      },
      config,
    )
    const bm25 = new Bm25(conv.rows, contentTerms)
    const bm25plain = new Bm25(conv.rows, plainTerms)
    const last = conv.rows[conv.rows.length - 1].createdAt
    const time = new Date(last.getTime() + (at === 'after' ? 60_000 : 7 * 86_400_000))
    const who = asker === 'speaker' ? conv.speakerA : 'Questioner'
    for (const qa of conv.qa) {
      const target: ContextTarget = {
        platform: 'locomo',
        guildId: conv.id,
        channelId: conv.id,
        userId: who.toLowerCase(),
        userName: who,
        content: qa.question,
        time,
      }
      for (const budget of budgets) {
        const built = await builder.build(target, { tokenBudget: budget })
        if (built.tokens > budget) throw new Error(`budget exceeded: ${built.tokens} > ${budget}`)
        buildMs += built.buildMs
        builds++
        const chosen = new Set(built.messages.map((m) => m.id))
        const recall = (set: Set<string>) => qa.evidence.filter((e) => set.has(e)).length / qa.evidence.length
        const r = [
          recall(chosen),
          recall(bm25.select(qa.question, budget)),
          recall(bm25plain.select(qa.question, budget)),
          recall(recentBaseline(conv.rows, budget)),
        ] as const
        tally(`${budget}`, ...r)
        tally(`${budget}/c${qa.category}`, ...r)
      }
    }
  }
  await index.close()
  rmSync(dir, { recursive: true, force: true })

  const fmt = (x: number) => x.toFixed(3)
  console.log(
    `tokens: ${TOKENIZER}; asker ${asker}; at ${at}; stats ${statsMode}; summary ${withSummary}; overrides ${JSON.stringify(overrides)}; ${builds} builds, avg ${(buildMs / builds).toFixed(1)} ms; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  )
  console.log('budget      n   ours   bm25  bm25w  recent')
  const result: Record<string, unknown> = {}
  for (const budget of budgets) {
    for (const key of [`${budget}`, ...[1, 2, 3, 4].map((c) => `${budget}/c${c}`)]) {
      const t = totals.get(key)
      if (!t) continue
      console.log(
        `${key.padEnd(9)} ${String(t.n).padStart(4)}  ${fmt(t.ours / t.n)}  ${fmt(t.bm25 / t.n)}  ${fmt(t.bm25plain / t.n)}  ${fmt(t.recent / t.n)}`,
      )
      result[key] = { n: t.n, ours: t.ours / t.n, bm25: t.bm25 / t.n, bm25_plain: t.bm25plain / t.n, recent: t.recent / t.n }
    }
  }
  console.log(`full history ${fullTokens} tokens; signals ${SIGNALS.join(', ')}`)
  const out = arg('out', '')
  if (out)
    writeFileSync(
      out,
      JSON.stringify({ tokenizer: TOKENIZER, asker, at, overrides, results: result, full_history_tokens: fullTokens }, null, 2),
    )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
