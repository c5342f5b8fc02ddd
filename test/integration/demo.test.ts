import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { firstLocale } from '../../demo/language'
import { testDatabase } from './database'

const ROOT = resolve(__dirname, '../..')

/** `npm start` as README says, piped: the demo in a temp folder (its data/ goes there), one line a message. */
function demo(input: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'demo/chat.ts')], {
    cwd,
    input,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, HOME: cwd, ...env },
  })
  if (result.status !== 0) throw new Error(`the demo exited with ${result.status}: ${result.stderr}`)
  return result.stdout
}

// the demo runs on its own SQLite file whatever database the suite is on: once is enough
describe.skipIf(testDatabase === 'mysql')('the demo (npm start)', () => {
  let dir: string | undefined

  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  })

  it('answers an English user’s first `help` in English, a Chinese one’s in Chinese, and prints no markup', () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-demo-'))
    const out = demo('help\n:user 小红\n帮我记一下，我住在成都\nhelp\n', { LANG: 'C.UTF-8', LC_ALL: '' }, dir)
    const [english, chinese] = out.split('小红> help')
    expect(english).toContain('Available commands')
    expect(english).toContain('"help <command>"')
    expect(chinese).toContain('当前可用的指令有')
    expect(out).not.toMatch(/<\/\w+>/)
  }, 120_000)

  it('guesses a first command’s language from its words, then from the terminal’s locale', () => {
    expect(firstLocale('memory.recall 火锅', {})).toBe('zh-CN')
    expect(firstLocale('help', { LANG: 'zh_CN.UTF-8' })).toBe('zh-CN')
    expect(firstLocale('help', { LANG: 'en_GB.UTF-8' })).toBe('en-US')
    expect(firstLocale('help', { LANG: 'C' })).toBe('en-US')
    expect(firstLocale('help', {})).toBe('en-US')
  })
})
