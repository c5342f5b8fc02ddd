import type { Context } from 'koishi'
import { describe, expect, it } from 'vitest'
import { runRoute } from '../../src/console/routes/route'
import { transferRoutes } from '../../src/console/routes/transfer'

const authority = { page: 4, people: 3, groups: 3, health: 3, transfer: 4 }

/** The route over a memory whose export hands out `chunks`, counting how many it was asked for. */
function exportRoute(chunks: string[]) {
  let asked = 0
  const memory = {
    async exportMemoryTo(_selection: unknown, write: (chunk: string) => Promise<void>) {
      for (const chunk of chunks) {
        asked++
        await write(chunk)
      }
      return { total: chunks.length, counts: {} }
    },
  }
  const routes = transferRoutes({ memory } as unknown as Context, authority)
  const call = (choice: unknown) => runRoute(routes['memory/export'], { name: 'admin' } as never, [choice], () => {})
  return { call, asked: () => asked }
}

describe("the console's export", () => {
  it('joins the chunks it is handed into the file the page downloads', async () => {
    const { call } = exportRoute(['{"a":1}\n', '{"b":2}\n'])
    const outcome = (await call({ kind: 'all' })) as { ok: true; value: { text: string; fileName: string } }
    expect(outcome.ok).toBe(true)
    expect(outcome.value.text).toBe('{"a":1}\n{"b":2}\n')
    expect(outcome.value.fileName).toMatch(/^memory-all-[\d-]+\.jsonl$/)
  })

  it('stops reading past 32 MB and tells the page to use memory.export instead of holding it all', async () => {
    const big = 'x'.repeat(20 * 1024 * 1024)
    const { call, asked } = exportRoute([big, big, big])
    expect(await call({ kind: 'all' })).toEqual({ ok: false, error: 'export-too-large', detail: '32' })
    expect(asked()).toBe(2)
  })
})
