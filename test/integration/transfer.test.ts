import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as echo from './echo-bot'
import type { Harness } from './harness'
import { boot, say } from './harness'

/** The export file a reply names (`data/memory/exports/….jsonl`), read from the harness's base folder. */
function exported(h: Harness, reply: string): { path: string; text: string } {
  const path = /data\/memory\/exports\/\S+\.jsonl/.exec(reply)?.[0]
  expect(path, reply).toBeTruthy()
  return { path: path!, text: readFileSync(join(h.dir, path!), 'utf8') }
}

/** An export's lines with every source message left out, as an instance without those messages imports them. */
const withoutSources = (text: string) =>
  text
    .split('\n')
    .map((line) => (line ? JSON.stringify(JSON.parse(line), (key, value) => (key === 'sourceIds' ? [] : value)) : line))
    .join('\n')

async function instance(): Promise<Harness> {
  const h = await boot({}, (app) => app.plugin(echo))
  // the data folder of this app: its own temp folder, not the working directory
  h.app.baseDir = h.dir
  await h.app.mock.initUser('admin', 4)
  await h.app.mock.initUser('root', 4, { locales: ['en-US'] })
  await h.app.mock.initUser('alice', 1)
  return h
}

describe('memory.export and memory.import through Koishi', () => {
  let a: Harness
  let b: Harness

  beforeAll(async () => {
    a = await instance()
    await say(a.app, 'alice', '我住在成都')
    await say(a.app, 'alice', '我搬到上海了')
    await say(a.app, 'alice', '我是一名护士')
    await say(a.app, 'alice', '我喜欢打羽毛球', 'g1')
    await a.app.memory.flush()
    b = await instance()
  })

  afterAll(async () => {
    await a?.stop()
    await b?.stop()
  })

  it('round trip: export, a fresh instance imports, its export is the same', async () => {
    const facts = await a.app.database.get('memory_fact', {})
    expect(facts.length).toBeGreaterThanOrEqual(3)
    expect(facts.some((row) => row.validTo)).toBe(true)

    const [done] = await a.app.mock.client('admin').receive('memory.export --all')
    expect(done).toMatch(/^已导出 \d+ 条记录到 data\/memory\/exports\/memory-all-[\d-]+\.jsonl：/)
    expect(done).toContain(`- 事实：${facts.length}`)
    const first = exported(a, done)
    expect(first.text.split('\n').filter(Boolean).length).toBe(Number(/已导出 (\d+)/.exec(done)![1]))

    // the file goes to the other instance's data folder, as a user would copy it
    mkdirSync(join(b.dir, 'data', 'memory', 'exports'), { recursive: true })
    writeFileSync(join(b.dir, 'data', 'moved.jsonl'), first.text)
    const [imported] = await b.app.mock.client('admin').receive('memory.import data/moved.jsonl')
    expect(imported).toContain('已导入 data/moved.jsonl')
    expect(imported).toContain(`- 事实：导入 ${facts.length}，已存在 0`)
    expect(imported).not.toContain('未导入')
    // captured messages are not exported: the sources of facts and knowledge name nothing here and are left out
    const sources = facts.reduce((sum, row) => sum + row.sourceIds.length, 0)
    expect(sources).toBeGreaterThan(0)
    expect(Number(/(\d+) 处引用指向的记录既不在库里也不在文件中/.exec(imported)?.[1])).toBeGreaterThanOrEqual(sources)
    await b.app.memory.flush()

    const [again] = await b.app.mock.client('admin').receive('memory.export --all')
    expect(exported(b, again).text).toBe(withoutSources(first.text))

    // indexed with this instance's embedder: alice's current city is recalled there
    const recalled = await b.app.memory.retrieve('alice', '住在哪', { platform: 'mock' })
    expect(recalled.map((memory) => memory.content)).toEqual([expect.stringContaining('上海')])

    // importing the same file again adds nothing
    const [twice] = await b.app.mock.client('root').receive('memory.import data/moved.jsonl')
    expect(twice).toContain(`- facts: 0 imported, ${facts.length} already there`)
    expect(await b.app.database.get('memory_fact', {})).toHaveLength(facts.length)
  })

  it('exports one user, in English too; an export needs its authority and says what to choose', async () => {
    const [mine] = await a.app.mock.client('root').receive('memory.export -u mock:alice')
    expect(mine).toMatch(/^Exported \d+ records to data\/memory\/exports\/memory-user-mock-alice-[\d-]+\.jsonl:/)
    const { text } = exported(a, mine)
    const kinds = new Set(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).kind),
    )
    expect(kinds.has('fact')).toBe(true)
    expect(kinds.has('group-memory')).toBe(false)

    const [group] = await a.app.mock.client('root').receive('memory.export -g g1')
    const records = exported(a, group)
      .text.split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
    expect(records.length).toBeGreaterThan(0)
    expect(records.every((record) => record.data.guildId === 'g1')).toBe(true)
    const [unknown] = await a.app.mock.client('root').receive('memory.export -g mock:nowhere')
    expect(unknown).toBe('There is no group mock:nowhere (written platform:guildId).')

    const [choose] = await a.app.mock.client('root').receive('memory.export')
    expect(choose).toBe('Say what to export, one of: -u user, -g group, --all')
    const [nothing] = await a.app.mock.client('root').receive('memory.export -u nobody')
    expect(nothing).toBe('There is nothing to export for that; no file was written.')
    const [denied] = await a.app.mock.client('alice').receive('memory.export -u mock:alice')
    expect(denied).toMatch(/权限/)
    const [deniedImport] = await a.app.mock.client('alice').receive('memory.import x.jsonl')
    expect(deniedImport).toMatch(/权限/)
  })

  it('mem0 memories: JSON with results, facts of the named platform, times kept; a bad entry is reported', async () => {
    const mem0 = {
      results: [
        {
          id: '3f5b7c2a-9d1e-4c8b-a6f0-2e4d8b1c7a90',
          memory: 'Allergic to peanuts',
          user_id: 'carol',
          metadata: { source: 'chat' },
          created_at: '2024-05-02T10:00:00-07:00',
          updated_at: '2024-06-01T08:30:00-07:00',
        },
        { id: 'bad', memory: '', user_id: 'carol' },
      ],
    }
    writeFileSync(join(b.dir, 'data', 'mem0.json'), JSON.stringify(mem0, null, 2))
    const [reply] = await b.app.mock.client('root').receive('memory.import data/mem0.json')
    expect(reply).toContain('Imported data/mem0.json (records of this plugin: 0, mem0 memories: 1):')
    expect(reply).toContain('- facts: 1 imported, 0 already there')
    expect(reply).toContain('Lines not imported: 1')
    expect(reply).toMatch(/entry 2: a field is missing or wrong \(memory: empty\)/)
    const [row] = await b.app.database.get('memory_fact', { userId: 'carol' })
    expect(row).toMatchObject({ platform: 'mock', guildId: '', content: 'Allergic to peanuts' })
    expect(row.createdAt.toISOString()).toBe('2024-05-02T17:00:00.000Z')
    expect(row.updatedAt.toISOString()).toBe('2024-06-01T15:30:00.000Z')
    await b.app.memory.flush()
    const recalled = await b.app.memory.retrieve('carol', 'peanuts', { platform: 'mock' })
    expect(recalled.map((memory) => memory.content)).toEqual(['Allergic to peanuts'])
  })

  it('a corrupt line: the rest imports and the line is named; a file that holds no memory imports nothing', async () => {
    const lines = [
      JSON.stringify({
        kind: 'fact',
        version: 1,
        data: {
          id: 'dave1',
          platform: 'mock',
          userId: 'dave',
          content: 'Dave keeps bees',
          createdAt: '2025-02-01T00:00:00Z',
          updatedAt: '2025-02-01T00:00:00Z',
        },
      }),
      '{"kind": "fact", "version": 1, "data": {"id": "dave2", "platform": "mock"',
      JSON.stringify({ memory: 'Dave likes jazz', user_id: 'dave' }),
    ]
    writeFileSync(join(b.dir, 'data', 'mixed.jsonl'), lines.join('\n'))
    const [reply] = await b.app.mock.client('admin').receive('memory.import data/mixed.jsonl -p mock')
    expect(reply).toContain('（本插件记录 1 条，mem0 记忆 1 条）')
    expect(reply).toContain('- 事实：导入 2，已存在 0')
    expect(reply).toMatch(/1 行未导入：\n {2}第 2 行：不是 JSON/)
    expect((await b.app.database.get('memory_fact', { userId: 'dave' })).map((row) => row.content).sort()).toEqual([
      'Dave keeps bees',
      'Dave likes jazz',
    ])

    writeFileSync(join(b.dir, 'data', 'notes.txt'), 'shopping list\nmilk\n')
    const [wrong] = await b.app.mock.client('admin').receive('memory.import data/notes.txt')
    expect(wrong).toMatch(/^data\/notes\.txt 中没有本插件能读取的记忆/)
    // the line is not quoted back: a file of the data folder may not be meant for the chat
    expect(wrong.split('\n').slice(1)).toEqual(['  第 1 行：不是 JSON', '  第 2 行：不是 JSON'])
  })

  it('refuses what a user gets wrong with a clear message, and changes nothing', async () => {
    const before = await b.app.database.get('memory_fact', {})
    const ask = async (command: string) => (await b.app.mock.client('root').receive(command))[0]
    expect(await ask('memory.import')).toMatch(/^Name the file to import/)
    expect(await ask('memory.import data/none.jsonl')).toBe('There is no file data/none.jsonl in the data folder.')
    expect(await ask('memory.import ../outside.jsonl')).toBe(
      'Only files inside the data folder (data) can be imported; ../outside.jsonl is not.',
    )
    expect(await ask('memory.import /etc/passwd')).toMatch(/^Only files inside the data folder/)
    expect(await ask('memory.import data/memory')).toBe('data/memory is a folder, not a file.')
    writeFileSync(join(b.dir, 'data', 'empty.jsonl'), '\n\n')
    expect(await ask('memory.import data/empty.jsonl')).toBe('data/empty.jsonl is empty; nothing was imported.')
    // a link out of the data folder is followed and refused
    const outside = join(b.dir, 'outside.jsonl')
    writeFileSync(outside, '{"memory": "secret", "user_id": "x"}\n')
    symlinkSync(outside, join(b.dir, 'data', 'link.jsonl'))
    expect(await ask('memory.import data/link.jsonl')).toMatch(/^Only files inside the data folder/)
    expect(await b.app.database.get('memory_fact', {})).toEqual(before)
    // a bare name is looked for in the export folder
    const [done] = await b.app.mock.client('root').receive('memory.export -u mock:alice')
    const name = exported(b, done).path.split('/').pop()!
    expect(await ask(`memory.import ${name}`)).toContain('already there')
    expect(readdirSync(join(b.dir, 'data', 'memory', 'exports')).length).toBeGreaterThanOrEqual(2)
  })
})
