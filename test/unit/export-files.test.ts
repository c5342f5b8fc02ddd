import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportsHolding, jsonField, jsonText, removeExports } from '../../src/erase/export-files'

describe('the export files a forget looks through', () => {
  let dir: string
  const line = (row: object) => JSON.stringify(row) + '\n'

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-exports-'))
    writeFileSync(join(dir, 'memory-user-qq-alice.jsonl'), line({ kind: 'fact', platform: 'qq', userId: 'alice', content: '住在"青岛"' }))
    writeFileSync(
      join(dir, 'memory-all.jsonl'),
      line({ kind: 'fact', platform: 'qq', userId: 'bob', content: '养猫' }) +
        line({ kind: 'fact', platform: 'qq', userId: 'alice', content: '喜欢海' }),
    )
    writeFileSync(join(dir, 'memory-user-tg-alice.jsonl'), line({ kind: 'fact', platform: 'tg', userId: 'alice', content: '别的平台' }))
    writeFileSync(join(dir, 'memory-user-qq-bob.jsonl'), line({ kind: 'fact', platform: 'qq', userId: 'bob', content: '养猫' }))
  })

  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('finds every file with a line of the user on that platform, and deletes them', async () => {
    const found = await exportsHolding(dir, [[jsonField('platform', 'qq'), jsonField('userId', 'alice')]])
    expect(found.map((file) => file.slice(dir.length + 1)).sort()).toEqual(['memory-all.jsonl', 'memory-user-qq-alice.jsonl'])
    expect(await removeExports(found)).toBe(2)
    expect(readdirSync(dir).sort()).toEqual(['memory-user-qq-bob.jsonl', 'memory-user-tg-alice.jsonl'])
  })

  it('finds a forgotten text as JSON wrote it (quotes escaped)', async () => {
    const found = await exportsHolding(dir, [[jsonText('住在"青岛"')]])
    expect(found.map((file) => file.slice(dir.length + 1))).toEqual(['memory-user-qq-alice.jsonl'])
  })

  it('answers nothing for a folder that is not there', async () => {
    expect(await exportsHolding(join(dir, 'none'), [['x']])).toEqual([])
  })
})
