/**
 * Capture overhead: p95 time of Koishi's `message` event for one incoming group message, with the
 * memory plugin recording it, beside the same event without the plugin (the baseline).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { App } from 'koishi'
import mock from '@koishijs/plugin-mock'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import * as memory from '../src'

function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function timeMessages(withMemory: boolean, count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-capture-'))
  const app = new App()
  app.plugin(mock, { selfId: '514' })
  app.plugin(SQLiteDriver, { path: ':memory:' })
  if (withMemory) app.plugin(memory, { store: { path: join(dir, 'lancedb') }, memorize: { enabled: false } })
  await app.start()
  if (withMemory) await new Promise<void>((resolve) => app.inject(['memory'], () => resolve()))
  const bot = app.mock.bots[0]
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const session = bot.session({
      type: 'message',
      user: { id: `u${i % 50}`, name: `用户${i % 50}` },
      channel: { id: 'g1', type: 0 },
      guild: { id: 'g1' },
      message: { id: `m${i}`, content: `第 ${i} 条消息：今天晚上一起去吃火锅吗？<at id="514"/>`, elements: undefined as any },
      timestamp: Date.now(),
    })
    const start = performance.now()
    app.emit(session, 'message', session)
    times.push(performance.now() - start)
  }
  if (withMemory) await app.memory.flush()
  await app.stop()
  rmSync(dir, { recursive: true, force: true })
  return times.slice(Math.floor(count / 10))
}

export async function measureCaptureP95(count = 5000) {
  await timeMessages(true, 500)
  const baseline = await timeMessages(false, count)
  const ours = await timeMessages(true, count)
  return {
    capture_p95_ms: percentile(ours, 95),
    capture_p50_ms: percentile(ours, 50),
    capture_baseline_p95_ms: percentile(baseline, 95),
  }
}

if (require.main === module) {
  measureCaptureP95().then((result) => console.log(JSON.stringify(result, null, 2)))
}
