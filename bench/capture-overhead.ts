/**
 * Capture overhead: p95 time the memory plugin's capture listener takes for one incoming group
 * message (render the elements, build the row, buffer it, track the dialogue), beside the time
 * Koishi's own synchronous handling of the same `message` event takes without the plugin (baseline).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Session } from 'koishi'
import { App, h } from 'koishi'
import mock from '@koishijs/plugin-mock'
import { SQLiteDriver } from '@minatojs/driver-sqlite'
import * as memory from '../src'
import { internalsOf } from '../src/compose'
import { percentile } from './lib/metrics'

async function withApp<T>(withMemory: boolean, run: (app: App, sessions: Session[]) => T | Promise<T>, count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-capture-'))
  const app = new App()
  const mockFork = app.plugin(mock, { selfId: '514' })
  app.plugin(SQLiteDriver, { path: ':memory:' })
  if (withMemory) app.plugin(memory, { store: { path: join(dir, 'lancedb') } })
  await app.start()
  if (withMemory) await new Promise<void>((resolve) => app.inject(['memory'], () => resolve()))
  const bot = app.mock.bots[0]
  const sessions = Array.from({ length: count }, (_, i) => {
    const content = `第 ${i} 条消息：今天晚上一起去吃火锅吗？<at id="514"/> <img src="https://example.invalid/${i}.png"/>`
    return bot.session({
      type: 'message',
      user: { id: `u${i % 50}`, name: `用户${i % 50}` },
      channel: { id: 'g1', type: 0 },
      guild: { id: 'g1' },
      message: { id: `m${i}`, content, elements: h.parse(content) },
      timestamp: Date.now(),
    })
  })
  const result = await run(app, sessions)
  // Koishi's own message processing (middleware) goes on asynchronously; let it finish first
  await new Promise((resolve) => setTimeout(resolve, 2000))
  if (withMemory) await app.memory.flush()
  mockFork.dispose()
  await app.stop()
  rmSync(dir, { recursive: true, force: true })
  return result
}

function timeEach(sessions: Session[], call: (session: Session) => void) {
  const times = sessions.map((session) => {
    const start = performance.now()
    call(session)
    return performance.now() - start
  })
  return times.slice(Math.floor(times.length / 10))
}

export async function measureCaptureP95(count = 3000) {
  const baseline = await withApp(false, (app, sessions) => timeEach(sessions, (s) => app.emit(s, 'message', s)), count)
  // the listener the plugin registers on `message`, called alone on the same kind of sessions
  // the capture pipeline is private to the service: reached by its field name, the one listener it registers
  const ours = await withApp(true, (app, sessions) => timeEach(sessions, (s) => internalsOf(app.memory).capture.incoming(s)), count)
  return {
    capture_p95_ms: percentile(ours, 95),
    capture_p50_ms: percentile(ours, 50),
    capture_baseline_p95_ms: percentile(baseline, 95),
  }
}

if (require.main === module) {
  measureCaptureP95().then((result) => console.log(JSON.stringify(result, null, 2)))
}
