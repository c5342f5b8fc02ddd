/**
 * How close each consumer of the memory budget (`core/memory-budget.ts`) estimates the memory it holds:
 * each is filled with realistic entries (mixed Chinese/English chat lines, the offline embedder's 512
 * dimensions), and the V8 heap it grew by (after a full collection, with nothing else holding the
 * entries) is set beside the bytes it reports.
 *
 *   npx tsx --expose-gc bench/memory-estimates.ts [--entries 20000] [--out FILE]
 *
 * Writes, per consumer: `entries`, `estimated_mb`, `measured_mb` (heapUsed + arrayBuffers growth) and
 * `ratio` (estimated / measured: above 1 the estimate is on the safe side).
 */
import { writeFileSync } from 'node:fs'
import { ChannelRows } from '../src/messages/channel-rows'
import { RowCache } from '../src/messages/row-cache'
import type { MessageRow } from '../src/messages'
import { TermStats } from '../src/context/term-stats'
import { TextFeatureCache } from '../src/context/text-features'
import { CandidateSimilarity } from '../src/context/candidate-similarity'
import { Reranker } from '../src/facts/rerank'
import { ScopeTable } from '../src/store/scope-table'
import type { IndexRow } from '../src/store/vector-index'
import { OfflineEmbedder } from '../src/providers/offline-embedder'
import { Counters } from '../src/core/observability'
import { intOption, parseArgs } from './lib/args'

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc (npx tsx --expose-gc bench/memory-estimates.ts)')

const options = parseArgs(process.argv.slice(2))
const ENTRIES = intOption(options, 'entries', 20_000)
const BIG = 1 << 30
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

const ZH = ['周末去杭州玩了两天', '我家的猫叫咪咪，三岁了', '最近在学吉他，手指好疼', '明天要加班到很晚', '这家火锅店味道不错']
const EN = [
  'I moved to Chengdu last spring',
  'my sister works as a nurse',
  'the build is green again',
  'we should try that pizza place',
  'rain all week, no bike rides',
]

/** Flat strings, as a database driver hands them over (a template literal's result may be a rope of its parts). */
const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string

function line(i: number): string {
  const base = i % 2 ? ZH[i % ZH.length] : EN[i % EN.length]
  return flat(`${base} ${i % 97} ${(i * 7919).toString(36)}`)
}

function row(i: number): MessageRow {
  const channel = flat(`g${i % 20}`)
  return {
    id: flat(`qq:${channel}:m${i}`),
    messageId: flat(`m${i}`),
    platform: 'qq',
    guildId: channel,
    channelId: channel,
    userId: flat(`u${i % 50}`),
    userName: flat(`user ${i % 50}`),
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: flat(`m${i}`),
    topicId: '',
    content: line(i),
    createdAt: new Date(1_700_000_000_000 + i * 1000),
  }
}

const heap = () => {
  gc!()
  gc!()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/** Builds a consumer (the entries made inside, so only it holds them) and sets its estimate beside the heap it took. */
async function measure(name: string, fill: () => Promise<{ held: () => { bytes: number; entries: number } }>) {
  const before = heap()
  const consumer = await fill()
  const after = heap()
  const { bytes, entries } = consumer.held()
  const measured = after - before
  const result = {
    consumer: name,
    entries,
    estimated_mb: Math.round((bytes / 2 ** 20) * 100) / 100,
    measured_mb: Math.round((measured / 2 ** 20) * 100) / 100,
    ratio: Math.round((bytes / measured) * 100) / 100,
  }
  console.error(JSON.stringify(result))
  return result
}

/** `ENTRIES` index rows of chat lines with their vectors, each of the user `userOf` gives it. */
async function indexRows(embedder: OfflineEmbedder, userOf: (i: number) => string): Promise<IndexRow[]> {
  const texts = Array.from({ length: ENTRIES }, (_, i) => line(i))
  const vectors = await embedder.embed(texts)
  return texts.map((text, i) => ({
    id: flat(`f${i}`),
    text,
    vector: vectors[i],
    platform: 'qq',
    user_id: userOf(i),
    guild_id: '',
    channel_id: '',
    created_at: i,
  }))
}

async function main() {
  const embedder = new OfflineEmbedder()
  // what the embedder and the text tools load once (dictionaries, tables) is no part of any consumer
  await embedder.embed(Array.from({ length: 100 }, (_, i) => line(i)))
  new TextFeatureCache(BIG).of(row(0))
  const results = []
  results.push(
    await measure('scopes', async () => {
      const rows = await indexRows(embedder, () => 'u1')
      const table = new ScopeTable(embedder.dims, rows)
      return { held: () => ({ bytes: table.bytes, entries: table.size }) }
    }),
  )
  results.push(
    await measure('scopes of 20 rows', async () => {
      // a bot's cache is mostly many small scopes (a user, a group): most dimensions of each are unused
      const rows = await indexRows(embedder, (i) => `u${Math.floor(i / 20)}`)
      const tables: ScopeTable[] = []
      for (let start = 0; start < ENTRIES; start += 20) tables.push(new ScopeTable(embedder.dims, rows.slice(start, start + 20)))
      return { held: () => ({ bytes: tables.reduce((sum, table) => sum + table.bytes, 0), entries: ENTRIES }) }
    }),
  )
  results.push(
    await measure('channels', async () => {
      const rows = new ChannelRows(Array.from({ length: ENTRIES }, (_, i) => row(i)))
      return { held: () => ({ bytes: rows.bytes, entries: rows.size }) }
    }),
  )
  results.push(
    await measure('rows', async () => {
      const cache = new RowCache(BIG)
      cache.keep(Array.from({ length: ENTRIES }, (_, i) => row(i)))
      return cache
    }),
  )
  results.push(
    await measure('terms', async () => {
      const stats = new TermStats({ capBytes: BIG })
      for (let i = 0; i < ENTRIES; i++) stats.add({ platform: 'qq', channelId: `g${i % 20}` }, line(i))
      return stats
    }),
  )
  results.push(
    await measure('features', async () => {
      const features = new TextFeatureCache(BIG)
      for (let i = 0; i < ENTRIES; i++) features.of(row(i))
      return features
    }),
  )
  results.push(
    await measure('vectors', async () => {
      const vectorEmbedder = new OfflineEmbedder()
      const similarity = new CandidateSimilarity({ embedder: vectorEmbedder, counters: new Counters(), logger: quiet }, BIG)
      const channel = { platform: 'qq', guildId: 'g0', channelId: 'g0' }
      const [target] = await vectorEmbedder.embed(['周末去哪吃火锅'])
      const count = Math.min(ENTRIES, 4096)
      for (let from = 0; from < count; from += 256) {
        const pool = Array.from({ length: 256 }, (_, i) => ({ row: row(from + i) })) as unknown as Parameters<
          CandidateSimilarity['fill']
        >[1]
        await similarity.fill(channel, pool, target, { embedCandidates: true })
      }
      return similarity
    }),
  )
  results.push(
    await measure('rerank', async () => {
      const reranker = new Reranker(BIG)
      for (let from = 0; from < ENTRIES; from += 50)
        reranker.rerank(
          '周末去哪',
          Array.from({ length: 50 }, (_, i) => ({ id: `h${from + i}`, text: line(from + i), similarity: 0.5 })),
          1,
        )
      return reranker
    }),
  )
  const out = { entries: ENTRIES, node: process.version, date: new Date().toISOString(), results }
  if (options.out) writeFileSync(options.out, `${JSON.stringify(out, null, 2)}\n`)
  else console.log(JSON.stringify(out, null, 2))
}

void main()
