import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Harness } from './harness'
import { boot, removePlace } from './harness'
import { internalsOf } from '../../src/compose'

describe('stopping the app', () => {
  it('loses no captured message, though Koishi tears the database down before the plugin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-stop-'))
    let h: Harness | undefined
    try {
      h = await boot({ topics: { enabled: false }, memorize: { enabled: false } }, undefined, { dir, keep: true })
      const client = h.app.mock.client('alice')
      for (let i = 0; i < 40; i++) await client.receive(`第 ${i} 条消息`)
      await h.stop({ flush: false })
      h = undefined

      h = await boot({ topics: { enabled: false }, memorize: { enabled: false } }, undefined, { dir, keep: true })
      const rows = await h.app.database.get('memory_message', {})
      expect(rows.map((row) => row.content).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `第 ${i} 条消息`).sort())
      expect(internalsOf(h.app.memory).counters.get('capture.messages')).toBe(0)
    } finally {
      await h?.stop()
      await removePlace(dir)
    }
  })
})
