/**
 * Group memory evolution latency without the LLM call (design §6.7: under 30 s including the model call).
 *
 *   tsx bench/evolution.ts [--runs 30] [--memories 50] [--messages 200] [--out bench/results/evolution.json]
 *
 * Koishi with SQLite in memory and the memory plugin (offline embedder, LanceDB in a temp folder) —
 * what `bench/lib/app.ts` boots. Each run uses a fresh group holding `--memories` active memories
 * (indexed in LanceDB) and `--messages` captured messages, and a model answer of one JSON line per
 * memory (20 % updates, 10 % deletes, the rest keeps) plus 10 % creates. Timed phases:
 *   - load: the lease row, the group's messages (newest N of the last day) and its active memories;
 *   - input: the JSON given to the model;
 *   - parse: JSON Lines parsing, zod validation and id resolution of the answer;
 *   - apply: plan written to the lease row, every operation applied (rows, versions, change log),
 *     watermark and plan cleared — the database work;
 *   - index: embedding the new statements (offline embedder) and the LanceDB upsert/delete;
 *   - evolve: the whole `GroupMemories.evolve()` on a second fresh group with a model that answers at
 *     once (lease, lock, everything above).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { applyPlan, makePlan } from '../src/group/apply-plan'
import { evolutionInput } from '../src/group/evolution'
import { parseEvolutionAnswer, resolveOps } from '../src/group/ops'
import type { GroupMemoryRow, GroupRef } from '../src/group'
import type { LLM } from '../src/providers/types'
import type { Logger } from '../src/core/observability'
import { createGroupMemories, KoishiGroupStore } from '../src/group'
import type { MessageRow } from '../src/messages'
import { intOption, parseArgs } from './lib/args'
import { bootApp, log, machine } from './lib/app'
import { percentile } from './lib/metrics'
import { internalsOf } from '../src/compose'

const options = parseArgs(process.argv.slice(2))
const RUNS = intOption(options, 'runs', 30)
const MEMORIES = intOption(options, 'memories', 50)
const MESSAGES = intOption(options, 'messages', 200)
const WARMUP = 3
const OUT = options.out

const quiet: Logger = {
  debug() {},
  info() {},
  warn: (...args) => console.warn('[memory]', ...args),
  error: (...args) => console.error('[memory]', ...args),
}

const TOPICS = ['新番', '前端开发', '火锅', '爬山', '开黑', '摄影', 'Rust', '咖啡', '跑步', '读书']

const round = (x: number) => Math.round(x * 100) / 100
const stats = (values: number[]) => ({
  p50_ms: round(percentile(values, 50)),
  p95_ms: round(percentile(values, 95)),
  mean_ms: round(values.reduce((a, b) => a + b, 0) / values.length),
})

/** The model's answer for memories shown as 1..n: 20 % updates, 10 % deletes, keeps, then 10 % creates. */
function answerFor(n: number, salt: string): string {
  const lines: string[] = []
  for (let id = 1; id <= n; id++) {
    if (id % 5 === 0)
      lines.push(
        JSON.stringify({
          action: 'update',
          old_id: id,
          statement: `群组成员经常讨论${TOPICS[id % TOPICS.length]}，最近更偏好第${id}种玩法（${salt}）`,
          change_reason: '新讨论强化了这一点',
        }),
      )
    else if (id % 10 === 3) lines.push(JSON.stringify({ action: 'delete', old_id: id, change_reason: '最近没有相关讨论' }))
    else lines.push(JSON.stringify({ action: 'keep', old_id: id }))
  }
  for (let i = 0; i < Math.ceil(n / 10); i++)
    lines.push(
      JSON.stringify({
        action: 'create',
        statement: `成员形成了新的习惯：每周${i + 1}聊${TOPICS[i % TOPICS.length]}（${salt}）`,
        change_reason: '多次出现',
      }),
    )
  return lines.join('\n')
}

async function seedGroup(
  app: Awaited<ReturnType<typeof bootApp>>['app'],
  store: KoishiGroupStore,
  group: GroupRef,
  now: Date,
): Promise<GroupMemoryRow[]> {
  const rows: GroupMemoryRow[] = []
  for (let i = 0; i < MEMORIES; i++) {
    const at = new Date(now.getTime() - 10 * 86_400_000 + i * 1000)
    rows.push({
      id: `${group.guildId}m${i}`,
      platform: group.platform,
      guildId: group.guildId,
      statement: `群组成员经常讨论${TOPICS[i % TOPICS.length]}，第${i}条记忆`,
      version: 1,
      parentId: '',
      supersededBy: '',
      changeSummary: '',
      status: 'active',
      deprecatedReason: '',
      statusBy: '',
      tags: [],
      strength: 0.5 + (i % 10) / 100,
      runId: '',
      createdAt: at,
      updatedAt: at,
    })
  }
  for (const row of rows) await store.putMemory(row)
  const messages: MessageRow[] = Array.from({ length: MESSAGES + 20 }, (_, i) => ({
    id: `bench:${group.guildId}:${i}`,
    messageId: String(i),
    platform: group.platform,
    guildId: group.guildId,
    channelId: group.guildId,
    userId: `u${i % 7}`,
    userName: `成员${i % 7}`,
    content: `我们今天聊聊${TOPICS[i % TOPICS.length]}吧，第${i}条消息，顺便说说周末的安排`,
    role: 'user',
    isMentionBot: false,
    isCommand: false,
    replyMessageId: '',
    rootMessageId: String(i),
    topicId: '',
    createdAt: new Date(now.getTime() - 3_600_000 + i * 1000),
  }))
  await app.database.upsert('memory_message', messages)
  return rows
}

async function main() {
  const bench = await bootApp()
  const { app } = bench
  try {
    let answer = ''
    const llm: LLM = { id: 'instant', generate: async () => answer }
    const group = createGroupMemories(app, {
      index: internalsOf(app.memory).index,
      embedder: internalsOf(app.memory).providers.embedder,
      llm: () => llm,
      counters: internalsOf(app.memory).counters,
      logger: quiet,
      options: { maxMemories: MEMORIES, maxMessages: MESSAGES },
    })
    const store = new KoishiGroupStore(app)
    const phases: Record<'load' | 'input' | 'parse' | 'apply' | 'index' | 'total', number[]> = {
      load: [],
      input: [],
      parse: [],
      apply: [],
      index: [],
      total: [],
    }
    const evolve: number[] = []
    let checks = { updated: 0, created: 0, deleted: 0 }

    log(`evolution bench: ${RUNS} runs (+${WARMUP} warm-up), ${MEMORIES} memories, ${MESSAGES} messages`)
    for (let run = 0; run < RUNS + WARMUP; run++) {
      const now = new Date()
      const g: GroupRef = { platform: 'bench', guildId: `p${run}` }
      const seeded = await seedGroup(app, store, g, now)
      await group.index!.sync(seeded, [])
      answer = answerFor(MEMORIES, `p${run}`)

      // the phases, one by one, as GroupEvolver runs them
      const t0 = performance.now()
      const lease = await store.getLease(g)
      const messages = await store.recentMessages(g, {
        since: new Date(now.getTime() - 86_400_000),
        after: lease?.watermark ?? new Date(0),
        limit: MESSAGES,
        roles: ['user'],
      })
      const memories = await store.activeMemories(g, MEMORIES)
      const t1 = performance.now()
      const input = evolutionInput(memories, messages, 500)
      const t2 = performance.now()
      const parsed = parseEvolutionAnswer(await llm.generate(input))
      const resolution = resolveOps(parsed.ops, memories)
      const t3 = performance.now()
      const owner = `bench:${run}`
      await store.acquireLease(g, owner, now, new Date(now.getTime() + 600_000))
      const plan = makePlan({
        runId: `r${run}`,
        group: g,
        now,
        watermark: messages[messages.length - 1].createdAt,
        kept: resolution.kept,
        input: { memories: memories.length, messages: messages.length },
        issues: { invalid_lines: 0, ignored_lines: 0, repaired_lines: 0, rejected_ops: 0, stale_ops: 0 },
        ops: resolution.ops,
        newId: (() => {
          let n = 0
          return () => `p${run}n${++n}`
        })(),
      })
      await store.patchLease(g, owner, { pending: JSON.stringify(plan) })
      const outcome = await applyPlan(store, plan, now)
      await store.patchLease(g, owner, { pending: '', watermark: new Date(plan.watermark), lastEvolvedAt: now })
      await store.patchLease(g, owner, { owner: '', expiresAt: new Date(0) })
      const t4 = performance.now()
      await group.index!.sync(outcome.upserts, outcome.deletes)
      const t5 = performance.now()
      if (messages.length !== MESSAGES || memories.length !== MEMORIES)
        throw new Error(`loaded ${messages.length} messages and ${memories.length} memories`)

      // the same through evolve(), on a second fresh group
      const e: GroupRef = { platform: 'bench', guildId: `e${run}` }
      const seededE = await seedGroup(app, store, e, now)
      await group.index!.sync(seededE, [])
      answer = answerFor(MEMORIES, `e${run}`)
      const t6 = performance.now()
      const result = await group.evolve(e, { days: 1 })
      const t7 = performance.now()
      if (result.status !== 'evolved') throw new Error(`evolve: ${result.status} ${result.message ?? ''}`)
      checks = { updated: result.stats.updated, created: result.stats.created, deleted: result.stats.deleted }

      if (run < WARMUP) continue
      phases.load.push(t1 - t0)
      phases.input.push(t2 - t1)
      phases.parse.push(t3 - t2)
      phases.apply.push(t4 - t3)
      phases.index.push(t5 - t4)
      phases.total.push(t5 - t0)
      evolve.push(t7 - t6)
    }

    const result = {
      bench: 'group-memory-evolution',
      date: new Date().toISOString(),
      machine: machine(),
      setup: {
        runs: RUNS,
        memories: MEMORIES,
        messages: MESSAGES,
        database: 'SQLite (:memory:) via @minatojs/driver-sqlite',
        index: 'LanceDB 0.31 (LanceIndex, hybrid parallel)',
        embedder: internalsOf(app.memory).providers.embedder.id,
        answer_ops: { ...checks, kept: MEMORIES - checks.updated - checks.deleted },
      },
      phases: Object.fromEntries(Object.entries(phases).map(([name, values]) => [name, stats(values)])),
      evolve_without_llm: stats(evolve),
    }
    console.log(JSON.stringify(result, null, 2))
    if (OUT) {
      fs.mkdirSync(path.dirname(OUT), { recursive: true })
      fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n')
      log(`wrote ${OUT}`)
    }
  } finally {
    await bench.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
