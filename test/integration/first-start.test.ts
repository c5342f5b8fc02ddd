import { App, Logger } from 'koishi'
import { afterEach, describe, expect, it } from 'vitest'
import * as memory from '../../src'
import type { Harness } from './harness'
import { boot } from './harness'

/** Log lines of the `memory` logger while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = []
  const target: Logger.Target = { colors: 0, record: (record) => record.name === 'memory' && lines.push(record.content) }
  Logger.targets.push(target)
  try {
    await run()
  } finally {
    Logger.targets.splice(Logger.targets.indexOf(target), 1)
  }
  return lines
}

describe('the first start', () => {
  let app: App | undefined

  afterEach(async () => {
    await app?.stop()
    app = undefined
  })

  it('says, once and in the configured language, that it waits for a database and how to add one', async () => {
    const lines = await logged(async () => {
      app = new App({ i18n: { locales: ['en-US'] } } as ConstructorParameters<typeof App>[0])
      app.plugin(memory)
      await app.start()
      await new Promise((resolve) => setTimeout(resolve, 5600))
    })
    const waiting = lines.filter((line) => line.includes('waiting for a database'))
    expect(waiting).toHaveLength(1)
    expect(waiting[0]).toContain('@minatojs/driver-sqlite')
  }, 15_000)
})

describe('the boot log', () => {
  let h: Harness | undefined

  afterEach(async () => {
    await h?.stop()
    h = undefined
  })

  const chatWithoutKey = (enabled: boolean) => ({
    chat: { enabled, model: { provider: 'gemini' as const, model: 'gemini-2.5-flash', apiKey: '' } },
  })

  it('warns about the chat model’s missing key only when the built-in chat is on', async () => {
    const off = await logged(async () => void (h = await boot(chatWithoutKey(false))))
    expect(off.filter((line) => /built-in chat|内置聊天/.test(line))).toEqual([])
    await h!.stop()
    h = undefined
    const on = await logged(async () => void (h = await boot(chatWithoutKey(true))))
    expect(on.filter((line) => /built-in chat|内置聊天/.test(line))).toHaveLength(1)
  })
})
