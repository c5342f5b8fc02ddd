/**
 * MADial-Bench (Chinese) memory recall through the real product path.
 *
 *   npm run bench:madial -- [--data DIR] [--out FILE] [--topk 20]
 *
 * DIR (default ../shared/data/madial-zh from the repo root) holds `memory.jsonl`, `dialogues.jsonl`
 * and `baseline-<model>-top20.jsonl` (format: ../shared/data/README.md).
 *
 * 1. Boots Koishi (mock adapter, SQLite, the memory plugin with its defaults: offline embedder,
 *    LanceDB hybrid search) and stores every memory as a private-chat fact of its user with
 *    `ctx.memory.remember`: the Koishi row, then the index row (embed → LanceDB upsert) — the same two
 *    writes `memorize()` makes after its judge has produced a statement.
 * 2. For each dialogue the query is `dialogue[0:test-turn[0]]` joined with '' (as MADial-Bench does;
 *    each line ends with a line break), and `ctx.memory.retrieve(user, query, { platform, guildId: '',
 *    topK, minScore: 0 })` ranks that user's memories: LanceDB's hybrid search gives the candidates,
 *    the reranker (src/long-term/rerank.ts) orders them.
 * 3. Recall@1/3/5/10 and nDCG@5 with MADial-Bench's definitions (bench/lib/metrics.ts), and the same
 *    code over the published top-20 rankings in DIR.
 *
 * `prototypes` in the JSON are bench-only experiments on the query text (see `prototypeQueries`); they
 * go through the same `retrieve` but are NOT the product's number.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { FactRow } from '../src/facts'
import type { MemoryService } from '../src/service'
import { bootApp, log, revision, runInfo, writeResult } from './lib/app'
import { intOption, parseArgs } from './lib/args'
import { Bm25 } from './lib/bm25'
import type { RankingMetrics } from './lib/metrics'
import { rankingMetrics, round4 } from './lib/metrics'
import { words } from '../src/text/tokens'
import { internalsOf } from '../src/compose'

const ROOT = path.resolve(__dirname, '..')
const PLATFORM = 'madial'

export interface MadialMemory {
  id: string
  userId: string
  time: string
  event: string
}

export interface MadialDialogue {
  id: string
  userId: string
  dialogue: string[]
  testTurn: number
  relevant: string[]
}

/** One line of the data set's JSON Lines: an object of fields (shape checked where read). */
type JsonRecord = Record<string, unknown>

function readJsonl(file: string): JsonRecord[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as JsonRecord)
}

export function loadMemories(dir: string): MadialMemory[] {
  return readJsonl(path.join(dir, 'memory.jsonl')).flatMap((line) =>
    Object.entries(line as Record<string, JsonRecord>).map(([key, value]) => ({
      id: String(value.id ?? key),
      userId: String(value['user-id']),
      time: String(value.time ?? ''),
      event: String(value.event ?? ''),
    })),
  )
}

export function loadDialogues(dir: string): MadialDialogue[] {
  return readJsonl(path.join(dir, 'dialogues.jsonl')).map((d) => ({
    id: String(d.id),
    userId: String(d['user-id']),
    dialogue: d.dialogue as string[],
    testTurn: Number((d['test-turn'] as unknown[])[0]),
    relevant: (d['relevant-id'] as unknown[]).map(String),
  }))
}

/** The query MADial-Bench embeds: the dialogue lines before the test turn, joined as they are. */
export function madialQuery(d: MadialDialogue): string {
  return d.dialogue.slice(0, d.testTurn).join('')
}

function userKey(userId: string) {
  return `madial-user-${userId}`
}

/** Published rankings: `baseline-<model>-top20.jsonl` → model → dialogue id → ranked ids. */
function loadBaselines(dir: string) {
  const out: Record<string, Map<string, { ranked: string[]; relevant: string[] }>> = {}
  for (const file of fs.readdirSync(dir).sort()) {
    const match = /^baseline-(.+)-top20\.jsonl$/.exec(file)
    if (!match) continue
    const rows = new Map<string, { ranked: string[]; relevant: string[] }>()
    for (const row of readJsonl(path.join(dir, file))) {
      rows.set(String(row.id), { ranked: (row.top_20_ids as unknown[]).map(String), relevant: (row.relevant_id as unknown[]).map(String) })
    }
    out[match[1]] = rows
  }
  return out
}

// ---------------------------------------------------------------------------------------------------
// PROTOTYPES (bench-only, not the product): other query texts sent through the same `retrieve`.
// ---------------------------------------------------------------------------------------------------

/** A dialogue line `<Speaker>:"text"\n` → speaker and text; `<BOD>` and similar markers → null. */
function parseLine(line: string): { speaker: string; text: string } | null {
  const m = /^<([^>]+)>:\s*"?([\s\S]*?)"?\s*$/.exec(line.trim())
  return m ? { speaker: m[1], text: m[2] } : null
}

/** Query variants measured as prototypes. Each is a general rule, nothing specific to this data. */
export function prototypeQueries(d: MadialDialogue): Record<string, string> {
  const lines = d.dialogue
    .slice(0, d.testTurn)
    .map(parseLine)
    .filter((x): x is { speaker: string; text: string } => !!x)
  const texts = lines.map((l) => l.text)
  return {
    // the dialogue without the `<BOD>` marker and the `<Speaker>:"…"` markup
    plain_text: texts.join('\n'),
    // only the last two lines (what a reply generator would pass as "the current message")
    last_2_lines: texts.slice(-2).join('\n'),
    // the same text on one line, so the reranker weighs every line alike (no LINE_DECAY)
    one_line: texts.join(' '),
    // only the user's lines (the assistant's lines are not the user's memories)
    user_lines: lines
      .filter((l) => l.speaker.toLowerCase() !== 'assistant')
      .map((l) => l.text)
      .join('\n'),
  }
}

/** Character bigrams of the text's words run together ("我喜欢猫" → 我喜, 喜欢, 欢猫). */
export function charBigrams(text: string): string[] {
  const joined = words(text).join('')
  const out: string[] = []
  for (let i = 0; i + 2 <= joined.length; i++) out.push(joined.slice(i, i + 2))
  return out
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const dataDir = path.resolve(ROOT, options.data ?? '../shared/data/madial-zh')
  const out = options.out ? path.resolve(options.out) : undefined
  const topK = intOption(options, 'topk', 20)
  const started = new Date()
  // taken before the run: the working tree can change while a bench runs
  const rev = revision(ROOT)

  const memories = loadMemories(dataDir)
  const dialogues = loadDialogues(dataDir)
  const baselineFiles = loadBaselines(dataDir)
  log(`MADial: ${memories.length} memories, ${dialogues.length} dialogues, baselines: ${Object.keys(baselineFiles).join(', ') || 'none'}`)

  const bench = await bootApp()
  const memory: MemoryService = bench.app.memory
  try {
    // prepares the LanceDB table for the configured embedder (what start() also does)
    await memory.flushOutbox()

    // Storage path: the same two writes memorize() makes for a new fact (src/facts/memorize.ts): the
    // Koishi row, then the index row (embed + LanceDB upsert, outbox on failure), through `remember`.
    const t0 = performance.now()
    for (const m of memories) {
      const created = new Date(m.time)
      const at = Number.isNaN(created.getTime()) ? new Date(0) : created
      const fact: FactRow = {
        id: `m${m.id}`,
        platform: PLATFORM,
        guildId: '',
        channelId: `private:${userKey(m.userId)}`,
        userId: userKey(m.userId),
        content: m.event,
        reason: 'MADial-Bench memory',
        version: 1,
        parentId: '',
        sourceIds: [],
        createdAt: at,
        updatedAt: at,
      }
      if (!(await memory.remember(fact))) throw new Error(`fact ${fact.id} could not be indexed`)
    }
    const insertMs = performance.now() - t0
    // Steady state: the product optimizes every N writes or minutes; do it now so the FTS index is built.
    await internalsOf(memory).index.optimize()
    log(`stored ${memories.length} facts in ${Math.round(insertMs)} ms`)

    const rank = async (d: MadialDialogue, query: string) => {
      const hits = await memory.retrieve(userKey(d.userId), query, { platform: PLATFORM, guildId: '', topK, minScore: 0 })
      return hits.map((hit) => hit.id.replace(/^m/, ''))
    }

    const times: number[] = []
    const ours: { id: string; relevant: string[]; ranked: string[] }[] = []
    for (const d of dialogues) {
      const start = performance.now()
      const ranked = await rank(d, madialQuery(d))
      times.push(performance.now() - start)
      ours.push({ id: d.id, relevant: d.relevant, ranked })
    }
    const short = ours.filter(
      (x) => x.ranked.length < Math.min(10, memories.filter((m) => m.userId === dialogues.find((d) => d.id === x.id)!.userId).length),
    )
    if (short.length) log(`warning: ${short.length} queries returned fewer than 10 memories`)

    // Baselines: the published rankings, scored by the same code over the same dialogues.
    const baselines: Record<string, RankingMetrics & { dialogues: number }> = {}
    for (const [model, rows] of Object.entries(baselineFiles)) {
      const items = dialogues.filter((d) => rows.has(d.id)).map((d) => ({ relevant: d.relevant, ranked: rows.get(d.id)!.ranked }))
      const mismatched = dialogues.filter((d) => rows.has(d.id) && rows.get(d.id)!.relevant.join() !== d.relevant.join()).length
      if (mismatched) log(`warning: ${model}: ${mismatched} dialogues carry other relevant ids than dialogues.jsonl (dialogues.jsonl used)`)
      baselines[model] = { ...roundAll(rankingMetrics(items)), dialogues: items.length }
    }

    // In-run lexical reference: BM25 over the user's memories with `words()`, same query.
    const bm25Rank = (tokenize?: (text: string) => string[]) =>
      dialogues.map((d) => {
        const mine = memories.filter((m) => m.userId === d.userId)
        const index = new Bm25(
          mine.map((m) => m.event),
          { tokenize },
        )
        return {
          relevant: d.relevant,
          ranked: index
            .rank(madialQuery(d))
            .slice(0, topK)
            .map((i) => mine[i].id),
        }
      })
    const bm25Items = bm25Rank()

    // Prototypes (bench-only): other query texts through the same retrieve.
    const prototypes: Record<string, RankingMetrics> = {}
    const variants = dialogues.map((d) => prototypeQueries(d))
    for (const name of Object.keys(variants[0] ?? {})) {
      const items = []
      for (let i = 0; i < dialogues.length; i++) {
        items.push({ relevant: dialogues[i].relevant, ranked: await rank(dialogues[i], variants[i][name]) })
      }
      prototypes[name] = roundAll(rankingMetrics(items))
    }
    // PROTOTYPES: each leg of the product's hybrid search alone, same query and scope — the full-text
    // leg (BM25 over LanceDB's ngram tokens; a zero vector switches the vector leg off) and the vector
    // leg (offline embedder, cosine; an empty text switches the full-text leg off).
    for (const leg of ['text', 'vector'] as const) {
      const items = []
      const zero = new Float32Array(internalsOf(memory).providers.embedder.dims)
      for (const d of dialogues) {
        const query = madialQuery(d)
        const [vector] = leg === 'vector' ? await internalsOf(memory).providers.embedder.embed([query]) : [zero]
        const hits = await internalsOf(memory).index.search(memory.config.store.factsTable, {
          vector,
          text: leg === 'text' ? query : '',
          scope: { platform: PLATFORM, userId: userKey(d.userId), guildId: '' },
          limit: topK,
        })
        items.push({ relevant: d.relevant, ranked: hits.map((hit) => hit.id.replace(/^m/, '')) })
      }
      prototypes[`lance_${leg}_leg_only`] = roundAll(rankingMetrics(items))
    }
    // PROTOTYPE: BM25 (idf from the user's memories) over CJK character bigrams, in JS.
    prototypes.bm25_char_bigrams = roundAll(rankingMetrics(bm25Rank(charBigrams)))

    times.sort((a, b) => a - b)
    const result = {
      summary: roundAll(rankingMetrics(ours)),
      baselines,
      reference: { bm25_words: roundAll(rankingMetrics(bm25Items)) },
      prototypes,
      prototypes_note:
        'bench-only experiments, NOT the product number: plain_text / last_2_lines / one_line / user_lines are other query texts through the same ctx.memory.retrieve; lance_text_leg_only / lance_vector_leg_only are the two legs of the hybrid search of the index alone; bm25_char_bigrams is BM25 over CJK character bigrams in JS',
      dialogues: dialogues.length,
      memories: memories.length,
      embedder: internalsOf(memory).providers.embedder.id,
      retrieve: `ctx.memory.retrieve(user, query, { topK: ${topK}, minScore: 0 }) — LanceDB hybrid (vector + ngram FTS, RRF) candidates, reranked by BM25 among them (lexical share ${memory.config.retrieval.lexicalShare ?? 'auto'})`,
      query: "dialogue[0:test-turn[0]] joined with ''",
      definitions:
        'MADial-Bench embedding_score_new.py: recall@k = |top k ∩ relevant| / |relevant|; ndcg@5 = binary-gain DCG@5 / DCG of the same top-5 gains re-sorted (ideal from the retrieved hits, as published); ndcg@5_standard = ideal with min(|relevant|, 5) hits',
      retrieve_ms: { p50: round4(times[Math.floor(times.length / 2)] ?? 0), max: round4(times[times.length - 1] ?? 0) },
      insert_ms: Math.round(insertMs),
      ...runInfo(dataDir, started, rev),
    }
    writeResult(result, out)
  } finally {
    await bench.stop()
  }
}

function roundAll<T extends Record<string, number>>(metrics: T): T {
  return Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, round4(v)])) as T
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
