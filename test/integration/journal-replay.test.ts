import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, removePlace } from './harness'
import { testDatabase } from './database'
import { journalLine } from '../fakes/journal-rows'

const place = { platform: 'mock', guildId: 'g1', channelId: 'c1', userId: 'alice', userName: 'Alice' }
const line = (messageId: string, extra: Record<string, unknown> = {}) =>
  journalLine(messageId, { content: `第 ${messageId} 条`, ...extra }, place)

describe('the capture journal left by an earlier run', () => {
  it('is stored at start though a row is hostile and a folder is named like a journal file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-journal-'))
    const journal = join(dir, 'lancedb-journal')
    mkdirSync(join(journal, 'capture-0-1-0.jsonl'), { recursive: true })
    writeFileSync(
      join(journal, 'capture-1-1-0.jsonl'),
      [line('m1'), line('m2', { platform: 'mo\u0000ck', content: 'NUL\u0000 里' }), line('m3', { createdAt: 'soon' }), line('m4')].join(
        '\n',
      ) + '\n{"id": "mock:c1:m5", "conte',
    )
    // a platform over its column (string(63)): SQLite keeps it, a server database refuses it alone
    const wide = 'p'.repeat(80)
    writeFileSync(join(journal, 'capture-2-1-0.jsonl'), [line('m6'), line('m7', { platform: wide }), line('m8')].join('\n') + '\n')
    let h: Harness | undefined
    try {
      h = await boot({ topics: { enabled: false }, memorize: { enabled: false } }, undefined, { dir, keep: true })
      const rows = await h.app.database.get('memory_message', {})
      const refusedWide = testDatabase === 'mysql'
      const expected = [
        'mo\\u0000ck:c1:m2',
        'mock:c1:m1',
        'mock:c1:m4',
        'mock:c1:m6',
        'mock:c1:m8',
        ...(refusedWide ? [] : [`${wide}:c1:m7`]),
      ]
      expect(rows.map((row) => row.id).sort()).toEqual(expected.sort())
      expect(rows.find((row) => row.messageId === 'm2')?.content).toBe('NUL 里')
      const aside = readdirSync(journal).filter((name) => name.startsWith('rejected-'))
      expect(aside).toEqual(['rejected-capture-1-1-0.jsonl', ...(refusedWide ? ['rejected-capture-2-1-0.jsonl'] : [])])
      if (refusedWide) expect(JSON.parse(readFileSync(join(journal, aside[1]), 'utf8'))).toMatchObject({ row: { messageId: 'm7' } })
      expect(JSON.parse(readFileSync(join(journal, aside[0]), 'utf8'))).toMatchObject({
        reason: 'line 3: createdAt is not a date',
        row: { id: 'mock:c1:m3' },
      })
      expect(readdirSync(journal).filter((name) => name.startsWith('capture-'))).toEqual(['capture-0-1-0.jsonl'])
      expect(existsSync(join(journal, 'capture-0-1-0.jsonl'))).toBe(true)
      // and capture goes on
      await h.app.mock.client('bob').receive('还在')
      await h.app.memory.flush()
      expect(await h.app.database.get('memory_message', { userId: 'bob' })).toHaveLength(1)
    } finally {
      await h?.stop()
      await removePlace(dir)
    }
  })
})
