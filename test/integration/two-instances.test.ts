import type { ChildProcess } from 'node:child_process'
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ServerResponse } from 'node:http'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EvolutionResult } from '../../src/group'
import { createServerDatabase, dropServerDatabase, testDatabase } from './database'
import type { InstanceRequest, InstanceSetup } from './instance'
import { chat, json, ScriptedServer } from './scripted-server'

type Request = InstanceRequest extends infer R ? (R extends InstanceRequest ? Omit<R, 'id'> : never) : never

const LEASE_SECONDS = 3

/** A Koishi process (`instance.ts`) on the shared database. */
class Instance {
  private calls = new Map<number, { resolve(value: any): void; reject(error: Error): void }>()
  private next = 0
  output = ''
  readonly exited: Promise<void>

  private constructor(private child: ChildProcess) {
    child.stdout!.on('data', (chunk) => (this.output += chunk))
    child.stderr!.on('data', (chunk) => (this.output += chunk))
    child.on('message', (message: { id: number; value?: unknown; error?: string }) => {
      const call = this.calls.get(message.id)
      this.calls.delete(message.id)
      if (message.error) call?.reject(new Error(message.error))
      else call?.resolve(message.value)
    })
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()))
  }

  static async start(setup: InstanceSetup): Promise<Instance> {
    const child = fork(join(__dirname, 'instance.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, MEMORY_INSTANCE: JSON.stringify(setup) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    const instance = new Instance(child)
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve())
      child.once('exit', (code) => reject(new Error(`the instance exited (${code}) before it was ready:\n${instance.output}`)))
    })
    return instance
  }

  call<T = unknown>(request: Request): Promise<T> {
    const id = ++this.next
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject })
      this.child.send({ ...request, id })
    })
  }

  evolve(guildId: string) {
    return this.call<EvolutionResult>({ op: 'evolve', guildId })
  }

  /** kill -9: no cleanup of any kind, the lease stays held. */
  async kill() {
    this.child.kill('SIGKILL')
    await this.exited
  }

  async stop() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    await this.call({ op: 'stop' })
    await this.exited
  }
}

const DIMS = 8

/** A unit vector that depends on the text only. */
function vectorOf(text: string): number[] {
  const vector = Array.from({ length: DIMS }, (_, i) => 1 + ((text.codePointAt(i % text.length) ?? 0) % 7))
  const norm = Math.hypot(...vector)
  return vector.map((value) => value / norm)
}

const isEvolution = (body: any) => String(body.messages?.at(-1)?.content ?? '').includes('"existing_memories"')
/** The group an evolution request is about, read from the discussion it carries. */
const groupOf = (body: any) => /\[(g\d)\]/.exec(String(body.messages.at(-1).content))?.[1] ?? '?'

// Two processes can share only a server database; SQLite lives inside one process.
describe.skipIf(testDatabase === 'sqlite')('two Koishi processes on one database', () => {
  let database: string
  let dirs: string[]
  let instances: Instance[]
  let baseURL: string
  /** Whether the scripted server leaves a request unanswered (an evolution of a group, or an embedding of texts). */
  let hold: (request: { group: string } | { texts: string[] }) => boolean
  /** What an embedding of these texts waits for before it is answered. */
  let delay: (texts: string[]) => Promise<void> | undefined
  const embeddings: string[][] = []
  const evolutions: string[] = []
  const server = new ScriptedServer(async (path, body, res: ServerResponse) => {
    if (path === '/embeddings') {
      const texts: string[] = body.input
      embeddings.push(texts)
      if (hold({ texts })) return
      await delay(texts)
      return json(res, 200, { data: texts.map((text, index) => ({ index, embedding: vectorOf(text) })) })
    }
    if (!isEvolution(body)) return chat(res, '')
    const group = groupOf(body)
    evolutions.push(group)
    if (hold({ group })) return
    // slow enough that both instances are at the group at once
    await new Promise((resolve) => setTimeout(resolve, 500))
    chat(res, JSON.stringify({ action: 'create', statement: `[${group}] 周五晚上一起打羽毛球`, change_reason: 'a plan' }))
  })

  async function start(extra: InstanceSetup['config'] = {}): Promise<Instance> {
    const dir = mkdtempSync(join(tmpdir(), 'memory-instance-'))
    dirs.push(dir)
    const instance = await Instance.start({
      database,
      dir,
      config: {
        llm: { provider: 'openai-compatible', baseURL, model: 'scripted', timeout: 20_000 },
        memorize: { enabled: false },
        topics: { enabled: false },
        summaries: { enabled: false },
        group: { timer: false, leaseSeconds: LEASE_SECONDS },
        ...extra,
      },
    })
    instances.push(instance)
    return instance
  }

  const rows = (instance: Instance, table: 'memory_group' | 'memory_group_change' | 'memory_group_lease', guildId: string) =>
    instance.call<{ runId: string; statement?: string; pending?: string }[]>({ op: 'rows', table, guildId })

  beforeAll(async () => {
    baseURL = await server.start()
  })

  afterAll(() => server.stop())

  beforeEach(async () => {
    database = `mt_two_${randomBytes(6).toString('hex')}`
    await createServerDatabase(database)
    dirs = []
    instances = []
    evolutions.length = 0
    embeddings.length = 0
    hold = () => false
    delay = () => undefined
  })

  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await dropServerDatabase(database)
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('lets exactly one of them evolve each group when both are asked at once', async () => {
    const [a, b] = [await start(), await start()]
    // each captures its own group; both groups are in the one database
    for (const line of ['[g1] 周五晚上去打羽毛球吗', '[g1] 我来订场地，七点到九点'])
      await a.call({ op: 'say', user: 'alice', text: line, channel: 'g1' })
    for (const line of ['[g2] 周五晚上去打羽毛球吗', '[g2] 球拍我带两支'])
      await b.call({ op: 'say', user: 'bob', text: line, channel: 'g2' })

    const results = await Promise.all([a.evolve('g1'), b.evolve('g1'), a.evolve('g2'), b.evolve('g2')])

    for (const [group, pair] of [
      ['g1', results.slice(0, 2)],
      ['g2', results.slice(2)],
    ] as const) {
      expect(pair.map((result) => result.status).sort(), group).toEqual(['busy', 'evolved'])
      const memories = await rows(a, 'memory_group', group)
      expect(memories.map((row) => row.statement)).toEqual([`[${group}] 周五晚上一起打羽毛球`])
      const changes = await rows(b, 'memory_group_change', group)
      expect(changes).toHaveLength(1)
      expect(changes[0].runId).toBe(memories[0].runId)
    }
    expect(evolutions.sort()).toEqual(['g1', 'g2'])
    // asked again, neither evolves anything twice
    expect((await b.evolve('g1')).status).toBe('no-new-messages')
    expect(await rows(a, 'memory_group', 'g1')).toHaveLength(1)
  }, 90_000)

  it('finds through one instance a fact the other memorised, and never again once the other forgot it', async () => {
    // the rule judge memorises; the scripted model here only answers evolutions
    const memorizing = { llm: { provider: 'rules' as const }, memorize: { enabled: true, privateEvery: 1, groupEvery: 1, quietSeconds: 0 } }
    const a = await start(memorizing)
    await a.call({ op: 'say', user: 'carol', text: '我养了一只叫年糕的猫', channel: 'private:carol' })
    // b's start compares its index with the database: the fact a wrote is indexed there too
    const b = await start(memorizing)
    const found = await b.call<string[]>({ op: 'retrieve', user: 'carol', query: '年糕' })
    expect(found.join()).toContain('年糕')
    expect(await a.call({ op: 'forget-all', user: 'carol' })).toBeGreaterThan(0)
    // b's index still holds the row; b checks every hit against the database
    expect(await b.call({ op: 'retrieve', user: 'carol', query: '年糕' })).toEqual([])
  }, 90_000)

  it('keeps nothing of a user forgotten on one instance while the other was memorising what they said', async () => {
    const embedding = { provider: 'openai-compatible', baseURL, model: 'scripted', dims: DIMS, timeout: 20_000 } as const
    const memorizing = {
      embedding,
      llm: { provider: 'rules' as const },
      memorize: { enabled: true, privateEvery: 1, groupEvery: 1, quietSeconds: 0 },
    }
    const [a, b] = [await start(memorizing), await start(memorizing)]
    // B embeds the fact it is about to store, and waits there until A has forgotten the user
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const isFact = (text: string) => text.includes('年糕') && !text.startsWith('我')
    delay = (texts) => (texts.some(isFact) ? released : undefined)
    const saying = b.call({ op: 'say', user: 'dave', text: '我养了一只叫年糕的猫', channel: 'private:dave' })
    await expect.poll(() => embeddings.some((texts) => texts.some(isFact)), { timeout: 20_000 }).toBe(true)
    await a.call({ op: 'forget-all', user: 'dave' })
    release()
    await saying
    for (const table of ['memory_fact', 'memory_entity', 'memory_message'] as const)
      expect(await a.call<unknown[]>({ op: 'of-user', table, user: 'dave' }), table).toEqual([])
  }, 90_000)

  it('lets the other one evolve a group once the lease of a holder killed mid-evolution expires', async () => {
    const [a, b] = [await start(), await start()]
    await a.call({ op: 'say', user: 'alice', text: '[g3] 周五晚上去打羽毛球吗', channel: 'g3' })
    await a.call({ op: 'say', user: 'bob', text: '[g3] 好，我带球拍', channel: 'g3' })

    // A's model call never returns: A holds the lease when it is killed
    hold = (request) => 'group' in request && evolutions.length === 1
    void a.evolve('g3').catch(() => {})
    await expect.poll(() => evolutions.length, { timeout: 20_000 }).toBe(1)
    const killedAt = Date.now()
    await a.kill()

    expect((await b.evolve('g3')).status).toBe('busy')
    let result: EvolutionResult
    do {
      await new Promise((resolve) => setTimeout(resolve, 200))
      result = await b.evolve('g3')
    } while (result.status === 'busy' && Date.now() - killedAt < 30_000)
    expect(Date.now() - killedAt).toBeGreaterThan((LEASE_SECONDS - 1) * 1000)
    expect(result.status).toBe('evolved')
    expect(result.input.messages).toBe(2)

    const memories = await rows(b, 'memory_group', 'g3')
    expect(memories.map((row) => row.statement)).toEqual(['[g3] 周五晚上一起打羽毛球'])
    expect(await rows(b, 'memory_group_change', 'g3')).toHaveLength(1)
    expect(evolutions).toEqual(['g3', 'g3'])
    expect((await b.evolve('g3')).status).toBe('no-new-messages')
  }, 90_000)

  it('lets the other one finish the run of a holder killed while applying it, without a second model call or duplicates', async () => {
    const embedding = { provider: 'openai-compatible', baseURL, model: 'scripted', dims: DIMS, timeout: 20_000 } as const
    const [a, b] = [await start({ embedding }), await start({ embedding })]
    await a.call({ op: 'say', user: 'alice', text: '[g4] 周五晚上去打羽毛球吗', channel: 'g4' })
    await a.call({ op: 'say', user: 'bob', text: '[g4] 好，我带球拍', channel: 'g4' })

    // A writes its plan and the new rows, then hangs indexing them: it holds the lease, its run half done
    const statement = '[g4] 周五晚上一起打羽毛球'
    hold = (request) =>
      'texts' in request && request.texts.includes(statement) && embeddings.filter((texts) => texts.includes(statement)).length === 1
    void a.evolve('g4').catch(() => {})
    await expect.poll(() => embeddings.some((texts) => texts.includes(statement)), { timeout: 20_000 }).toBe(true)
    const [lease] = await rows(b, 'memory_group_lease', 'g4')
    const plan = JSON.parse(lease.pending!)
    await a.kill()

    expect((await b.evolve('g4')).status).toBe('busy')
    let result: EvolutionResult
    do {
      await new Promise((resolve) => setTimeout(resolve, 200))
      result = await b.evolve('g4')
    } while (result.status === 'busy')
    // the interrupted run is finished from its plan; its messages are folded in, so there is nothing new
    expect(result.status).toBe('no-new-messages')
    expect(result.repaired?.run_id).toBe(plan.runId)
    expect(evolutions).toEqual(['g4'])

    const memories = await rows(b, 'memory_group', 'g4')
    expect(memories.map((row) => [row.statement, row.runId])).toEqual([[statement, plan.runId]])
    expect(await rows(b, 'memory_group_change', 'g4')).toHaveLength(1)
    expect((await rows(b, 'memory_group_lease', 'g4'))[0].pending).toBe('')
  }, 90_000)
})
