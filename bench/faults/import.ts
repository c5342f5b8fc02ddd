import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { App } from 'koishi'
import type { FamilyResult } from './family'
import { Tally } from './family'
import { bootApp, log } from '../lib/app'
import { echo, markersIn, mulberry32, nonsenseWords, seedOf } from './support'
import { FIELD_MAX_BYTES } from '../../src/text/field-limit'

/**
 * Hostile import files, each imported with `memory.import` into an app where other people's memory
 * already lives: fields longer than the databases keep, references to other people's and groups'
 * rows, one id twice (the same row; another row), malformed lines, and one large file (50 MB; 5 MB in
 * the short form) whose peak RSS is measured. After each file the database must still answer (a
 * message is captured, a command lists facts), nothing of the others' rows may change or be shown to
 * the file's owner, and each refused line must be reported. `short` (or `FAULT_SHORT=1`) runs the
 * small form.
 */

const T = '2026-01-01T00:00:00.000Z'
const MB = 1 << 20
const line = (kind: string, data: Record<string, unknown>) => JSON.stringify({ kind, version: 1, data })
const fact = (data: Record<string, unknown>) =>
  line('fact', { platform: 'mock', guildId: '', channelId: '', createdAt: T, updatedAt: T, ...data })

interface Victims {
  /** Alice's facts: id → marker. */
  facts: Map<string, string>
  /** Bob's captured messages: id → content. */
  messages: Map<string, string>
  groupMemory: string
  topic: string
  entities: string[]
  markers: string[]
}

async function say(app: App, user: string, text: string, guild?: string) {
  await app.mock.client(user, guild).receive(text)
  await app.memory.flush()
}

/** Writes the file under the app's data folder and imports it; the reply. */
async function importLines(app: App, dir: string, name: string, lines: string[]): Promise<string> {
  mkdirSync(join(dir, 'data'), { recursive: true })
  writeFileSync(join(dir, 'data', name), lines.join('\n') + '\n')
  const [reply] = await app.mock.client('root').receive(`memory.import data/${name}`)
  await app.memory.flush()
  return reply ?? ''
}

/** Lines of `reply` naming `problem` (the English text of each problem). */
const reported = (reply: string, text: string) => reply.split('\n').filter((row) => row.includes(text)).length

/** Whether the database still answers: a message is captured and a command reads facts. */
async function answers(app: App, probe: string): Promise<boolean> {
  await say(app, 'carol', `我喜欢${probe}`)
  const rows = await app.database.get('memory_message', { userId: 'carol' })
  const [listed] = await app.mock.client('carol').receive('memory.list')
  return rows.some((row) => row.content.includes(probe)) && typeof listed === 'string'
}

/** What of the victims' rows is missing or changed now (`lost`). */
async function lostOf(app: App, victims: Victims): Promise<number> {
  const facts = await app.database.get('memory_fact', { id: [...victims.facts.keys()] })
  const messages = await app.database.get('memory_message', { id: [...victims.messages.keys()] })
  const sameFacts = facts.filter((row) => row.content.includes(victims.facts.get(row.id)!) && !row.validTo).length
  const sameMessages = messages.filter((row) => row.content === victims.messages.get(row.id)).length
  return victims.facts.size - sameFacts + (victims.messages.size - sameMessages)
}

/** Markers of the victims that `mallory` is shown by retrieve, recall and the context of a reply. */
async function shownTo(app: App, user: string, victims: Victims): Promise<number> {
  let shown = 0
  for (const marker of victims.markers) {
    const found = await app.memory.retrieve(user, marker, { platform: 'mock', history: true })
    const [recalled] = await app.mock.client(user).receive(`memory.recall ${marker}`)
    const context = await app.memory.buildContext({
      platform: 'mock',
      guildId: '',
      channelId: `private:${user}`,
      userId: user,
      content: marker,
      time: new Date(),
    })
    const text = [found.map((memory) => memory.content).join('\n'), recalled ?? '', JSON.stringify(context)].join('\n')
    shown += markersIn(text, [marker]).length
  }
  return shown
}

async function seedVictims(app: App, dir: string, words: string[]): Promise<Victims> {
  const markers = words.slice(0, 4)
  const reply = await importLines(app, dir, 'victims.jsonl', [
    fact({ id: 'va1', userId: 'alice', content: `Alice keeps ${markers[0]}` }),
    fact({ id: 'va2', userId: 'alice', content: `Alice lives in ${markers[1]}` }),
    line('group-memory', {
      id: 'vg1',
      platform: 'mock',
      guildId: 'g1',
      statement: `The group loves ${markers[2]}`,
      status: 'active',
      createdAt: T,
      updatedAt: T,
    }),
    line('topic', {
      id: 'vt1',
      platform: 'mock',
      guildId: 'g1',
      channelId: 'g1',
      title: 'victim topic',
      createdAt: T,
      updatedAt: T,
      lastMessageAt: T,
    }),
    line('entity', {
      id: 've1',
      platform: 'mock',
      guildId: '',
      userId: 'alice',
      name: markers[3],
      key: markers[3],
      type: 'OTHER',
      firstSeen: T,
      lastSeen: T,
    }),
    line('entity', {
      id: 've2',
      platform: 'mock',
      guildId: '',
      userId: 'alice',
      name: 'Paris',
      key: 'paris',
      type: 'LOCATION',
      firstSeen: T,
      lastSeen: T,
    }),
  ])
  if (!reply.includes('Imported')) throw new Error(`victims not imported: ${reply}`)
  await say(app, 'bob', `我养了一只猫叫${words[4]}`)
  await say(app, 'bob', `我住在${words[5]}`)
  const messages = await app.database.get('memory_message', { userId: 'bob' })
  return {
    facts: new Map([
      ['va1', markers[0]],
      ['va2', markers[1]],
    ]),
    messages: new Map(messages.map((row) => [row.id, row.content])),
    groupMemory: 'vg1',
    topic: 'vt1',
    entities: ['ve1', 've2'],
    markers: [markers[0], markers[1]],
  }
}

/** V8's collector, exposed at run time: to measure what an import holds rather than the garbage V8 has not collected yet. */
function collector(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

/**
 * Peak RSS and JS heap of this process while `work` runs, sampled every 50 ms; with `collect`, garbage
 * is collected before each sample, so the peak is what is held.
 */
async function peakMemory<T>(work: () => Promise<T>, collect?: () => void) {
  const gc = collector()
  gc()
  const before = process.memoryUsage()
  let rss = before.rss
  let heap = before.heapUsed
  const sample = () => {
    collect?.()
    const usage = process.memoryUsage()
    rss = Math.max(rss, usage.rss)
    heap = Math.max(heap, usage.heapUsed)
  }
  const timer = setInterval(sample, 50)
  try {
    const value = await work()
    sample()
    return { value, rss: (rss - before.rss) / MB, heap: (heap - before.heapUsed) / MB, peak: rss / MB }
  } finally {
    clearInterval(timer)
  }
}

export async function run(options: { short?: boolean } = {}): Promise<FamilyResult & { measured: Record<string, number> }> {
  const short = options.short ?? process.env.FAULT_SHORT === '1'
  const tally = new Tally()
  const measured: Record<string, number> = {}
  const rng = mulberry32(seedOf(24_024))
  const words = nonsenseWords(rng, 12)
  const b = await bootApp({ group: { timer: false } }, { extra: (app) => app.plugin(echo) })
  const { app, dir } = b
  app.baseDir = dir
  try {
    await app.mock.initUser('root', 4, { locales: ['en-US'] })
    for (const user of ['alice', 'bob', 'carol', 'mallory']) await app.mock.initUser(user, 1)
    const victims = await seedVictims(app, dir, words)

    await tally.run('oversize fields', async () => {
      const long = (n: number) => 'x'.repeat(n)
      const reply = await importLines(app, dir, 'oversize.jsonl', [
        fact({ id: 'o1', userId: 'mallory', content: '我'.repeat(100_000) }),
        fact({ id: 'o2', userId: 'mallory', content: long(FIELD_MAX_BYTES + 1) }),
        fact({
          id: 'o3',
          userId: 'mallory',
          content: 'fits',
          sourceIds: Array.from({ length: 5000 }, (_, i) => `mock:private:mallory:${i}`),
        }),
        line('group-memory', {
          id: 'o4',
          platform: 'mock',
          guildId: 'g9',
          statement: long(200_000),
          status: 'active',
          createdAt: T,
          updatedAt: T,
        }),
        line('profile', { platform: 'mock', guildId: '', userId: 'mallory', profileText: long(70_000), updatedAt: T, consolidatedAt: T }),
        JSON.stringify({ id: 'm0-big', memory: '长'.repeat(60_000), user_id: 'mallory' }),
        fact({ id: 'o5', userId: 'mallory', content: long(FIELD_MAX_BYTES) }),
        // as many long source ids as the column holds (each looked up, none found)
        fact({
          id: 'o7',
          userId: 'mallory',
          content: 'reads',
          sourceIds: Array.from({ length: 91 }, (_, i) => `mock:private:mallory:${i}-${'我'.repeat(230)}`),
        }),
        // at the limit, every character a quote SQLite doubles when the text is written into a statement
        fact({ id: 'o6', userId: 'mallory', content: "'".repeat(FIELD_MAX_BYTES) }),
      ])
      const refused = reported(reply, 'a field longer than the database keeps')
      const stored = await app.database.get('memory_fact', { userId: 'mallory' })
      const ids = stored.map((row) => row.id).sort()
      const ok = refused === 6 && ids.join() === 'o5,o6,o7' && (await answers(app, words[6]))
      await app.memory.forgetAll({ platform: 'mock', userId: 'mallory' })
      return { ok, harm: { lost: await lostOf(app, victims) }, detail: `refused ${refused}/6, stored ${ids}` }
    })

    await tally.run('cross-owner references', async () => {
      const [bobMessage] = victims.messages.keys()
      const reply = await importLines(app, dir, 'cross.jsonl', [
        fact({ id: 'x1', userId: 'mallory', content: 'Mallory lived somewhere', validTo: T, supersededBy: 'va1' }),
        fact({ id: 'x2', userId: 'mallory', content: 'Mallory edited', parentId: 'va2' }),
        fact({ id: 'x3', userId: 'mallory', channelId: 'private:mallory', content: 'Mallory has a cat', sourceIds: [bobMessage] }),
        line('group-memory', {
          id: 'x4',
          platform: 'mock',
          guildId: 'g2',
          statement: 'g2 closed',
          status: 'deprecated',
          supersededBy: victims.groupMemory,
          createdAt: T,
          updatedAt: T,
        }),
        line('group-change', { id: 'x5', platform: 'mock', guildId: 'g2', memoryId: victims.groupMemory, action: 'delete', createdAt: T }),
        line('summary', {
          topicId: victims.topic,
          platform: 'mock',
          guildId: 'g2',
          channelId: 'g2',
          version: 9,
          summary: 'stolen topic',
          firstMessageAt: T,
          lastMessageAt: T,
          createdAt: T,
        }),
        line('relation', {
          id: 'x6',
          platform: 'mock',
          guildId: '',
          userId: 'mallory',
          subjectId: victims.entities[0],
          predicate: 'lives in',
          objectId: victims.entities[1],
          createdAt: T,
        }),
        line('entity', {
          id: 'x7',
          platform: 'mock',
          guildId: '',
          userId: 'mallory',
          name: 'Cat',
          key: 'cat',
          type: 'OTHER',
          firstSeen: T,
          lastSeen: T,
          sourceIds: [bobMessage],
        }),
        line('profile', {
          platform: 'mock',
          guildId: '',
          userId: 'mallory',
          preferences: [{ key: 'likes', value: 'cats', confidence: 1, sourceIds: [bobMessage], validFrom: 0 }],
          updatedAt: T,
          consolidatedAt: T,
        }),
        // a closing fact of mallory's own, in the same file: kept
        fact({ id: 'x8', userId: 'mallory', content: 'Mallory lived in Rome', validTo: T, supersededBy: 'x9' }),
        fact({ id: 'x9', userId: 'mallory', content: 'Mallory lives in Oslo' }),
      ])
      const refused = reported(reply, 'it names a row of another person or group')
      const foreign = [
        ...(await app.database.get('memory_fact', { userId: 'mallory' })).filter(
          (row) =>
            victims.facts.has(row.supersededBy ?? '') ||
            victims.facts.has(row.parentId ?? '') ||
            row.sourceIds.some((id) => victims.messages.has(id)),
        ),
        ...(await app.database.get('memory_group', { guildId: 'g2' })).filter((row) => row.supersededBy === victims.groupMemory),
        ...(await app.database.get('memory_group_change', { guildId: 'g2' })).filter((row) => row.memoryId === victims.groupMemory),
        ...(await app.database.get('memory_summary', { topicId: victims.topic })),
        ...(await app.database.get('memory_relation', { userId: 'mallory' })),
        ...(await app.database.get('memory_entity', { userId: 'mallory' })).filter((row) =>
          row.sourceIds.some((id) => victims.messages.has(id)),
        ),
      ].length
      const own = await app.database.get('memory_fact', { id: 'x8' })
      const leaks = await shownTo(app, 'mallory', victims)
      await app.mock.client('mallory').receive('memory.forget --all -y')
      await app.memory.flush()
      const lost = await lostOf(app, victims)
      const ok = refused === 9 && own[0]?.supersededBy === 'x9' && (await answers(app, words[7]))
      return { ok, harm: { foreign_ops: foreign, leaks, lost }, detail: `refused ${refused}/9, own closing kept: ${own[0]?.supersededBy}` }
    })

    await tally.run('one id twice', async () => {
      const same = fact({ id: 'd1', userId: 'mallory', content: 'Mallory plays go' })
      const reply = await importLines(app, dir, 'dups.jsonl', [
        same,
        same,
        fact({ id: 'd1', userId: 'mallory', content: 'Mallory plays chess' }),
        fact({ id: 'd2', userId: 'mallory', content: 'Mallory plays go' }),
        line('group-memory', {
          id: 'd3',
          platform: 'mock',
          guildId: 'g3',
          statement: 'g3 sings',
          status: 'active',
          createdAt: T,
          updatedAt: T,
        }),
        line('group-memory', {
          id: 'd3',
          platform: 'mock',
          guildId: 'g3',
          statement: 'g3 dances',
          status: 'active',
          createdAt: T,
          updatedAt: T,
        }),
      ])
      const conflicts = reported(reply, 'the same id as an earlier line, with other content')
      const facts = await app.database.get('memory_fact', { userId: 'mallory' })
      const groups = await app.database.get('memory_group', { guildId: 'g3' })
      const duplicates = facts.length - new Set(facts.map((row) => row.content)).size + Math.max(0, groups.length - 1)
      const ok = conflicts === 2 && facts.length === 1 && facts[0].content === 'Mallory plays go' && groups[0]?.statement === 'g3 sings'
      await app.memory.forgetAll({ platform: 'mock', userId: 'mallory' })
      return {
        ok: ok && (await answers(app, words[8])),
        harm: { duplicates, lost: await lostOf(app, victims) },
        detail: `conflicts ${conflicts}/2`,
      }
    })

    await tally.run('malformed lines', async () => {
      const good = (i: number) => fact({ id: `g${i}`, userId: 'mallory', content: `Mallory fact ${i}` })
      const reply = await importLines(app, dir, 'malformed.jsonl', [
        '\uFEFF' + good(1),
        '{"kind": "fact", "version": 1, "data": {',
        'not json',
        good(2) + '\r',
        '['.repeat(5000) + ']'.repeat(5000),
        JSON.stringify({ kind: 'fact', version: 2, data: {} }),
        JSON.stringify({ kind: 'bogus', version: 1, data: {} }),
        JSON.stringify({ kind: 'fact', version: 1, data: null }),
        fact({ id: 'n1', userId: 'mallory\u0000x', content: 'nul\u0000in text' }),
        'x'.repeat(2 * MB),
        good(3),
      ])
      const stored = (await app.database.get('memory_fact', { userId: 'mallory' })).map((row) => row.id).sort()
      const missing = ['g1', 'g2', 'g3'].filter((id) => !stored.includes(id)).length
      const bad = reply.split('\n').filter((row) => /^ {2}line \d+:/.test(row)).length
      // the NUL is written out of the id and the text (`cleanId`, `cleanText`), and the row stored
      const [cleaned] = await app.database.get('memory_fact', { id: 'n1' })
      const ok = bad === 7 && Boolean(cleaned) && !cleaned.content.includes('\u0000') && (await answers(app, words[9]))
      for (const userId of ['mallory', cleaned?.userId ?? '']) if (userId) await app.memory.forgetAll({ platform: 'mock', userId })
      return { ok, harm: { lost: missing + (await lostOf(app, victims)) }, detail: `reported ${bad}/7, stored ${stored.join(',')}` }
    })

    // most lines repeat an earlier one (the same row again): the file is large and what is stored the
    // same 32 rows (half a megabyte) whatever its size, so the growth measured is the import's own and
    // not the database's (sql.js keeps the database in memory) or the index's
    const size = (short ? 5 : 50) * MB
    await tally.run(`a ${size / MB} MB file`, async () => {
      const path = join(dir, 'data', 'large.jsonl')
      const body = 'y'.repeat(FIELD_MAX_BYTES - 200)
      const lineOf = (i: number) => `${fact({ id: `L${i}`, userId: 'bulk', content: `Bulk fact ${i} ${body}` })}\n`
      const distinct = 32
      const handle = await open(path, 'w')
      let rows = 0
      for (let written = 0; written < size; rows++) {
        const text = lineOf(rows % distinct)
        await handle.write(text)
        written += text.length
      }
      await handle.close()
      const bytes = statSync(path).size
      const importOnce = async () => {
        const [answer] = await app.mock.client('root').receive('memory.import data/large.jsonl')
        await app.memory.flush()
        return answer ?? ''
      }
      // as it runs, then again with garbage collected as it goes (every row is there by then)
      const first = await peakMemory(importOnce)
      const again = await peakMemory(importOnce, collector())
      const stored = (await app.database.get('memory_fact', { userId: 'bulk' }, ['id'])).length
      const round = (n: number) => Math.round(n * 10) / 10
      Object.assign(measured, {
        file_mb: round(bytes / MB),
        lines: rows,
        rows_stored: stored,
        rss_growth_mb: round(first.rss),
        heap_growth_mb: round(first.heap),
        rss_peak_mb: round(first.peak),
        held_rss_growth_mb: round(again.rss),
        held_heap_growth_mb: round(again.heap),
      })
      const summary = `${measured.file_mb} MB, ${rows} lines, ${stored} rows: RSS +${measured.rss_growth_mb} MB (JS heap +${measured.heap_growth_mb} MB, garbage included), held +${measured.held_rss_growth_mb} MB RSS / +${measured.held_heap_growth_mb} MB heap`
      log(`import: ${summary}`)
      const bounded = again.rss < bytes / MB / 2 && again.heap < bytes / MB / 10
      const ok =
        bounded &&
        first.value.includes(`${distinct} imported, ${rows - distinct} already there`) &&
        again.value.includes(`0 imported, ${rows} already there`) &&
        (await answers(app, words[10]))
      return {
        ok,
        harm: { lost: distinct - stored + (await lostOf(app, victims)), duplicates: Math.max(0, stored - distinct) },
        detail: summary,
      }
    })
  } finally {
    await b.stop()
  }
  return { ...tally.result, measured }
}
