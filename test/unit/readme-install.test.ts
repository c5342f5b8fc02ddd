import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fillIn, installCommands } from '../e2e/install'

const ROOT = join(__dirname, '../..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

describe('the README install commands', () => {
  const pkg = JSON.parse(read('package.json')) as { name: string; version: string; scripts: Record<string, string>; files: string[] }

  it('are the same in both READMEs', () => {
    expect(installCommands(read('README.zh-CN.md'))).toEqual(installCommands(read('README.md')))
  })

  it('install the tarball npm pack names for this version', () => {
    const commands = installCommands(read('README.md'))
    expect(commands.some((command) => command.includes(`./${pkg.name}-${pkg.version}.tgz`))).toBe(true)
    expect(commands).toContain('npm ci')
  })

  it('pack a built plugin: npm pack builds lib and the console page first, and ships both', () => {
    expect(pkg.scripts.prepack).toMatch(/npm run build/)
    expect(pkg.scripts.build).toMatch(/koishi-console build/)
    expect(pkg.files).toEqual(expect.arrayContaining(['lib', 'dist', 'locales']))
  })

  it('fill in their placeholders, quoted, and name any they do not know', () => {
    const filled = fillIn(['git clone <repository> x', 'cd <koishi-app>'], { repository: "/tmp/it's", app: '/tmp/app dir' })
    expect(filled).toEqual([`git clone '/tmp/it'\\''s' x`, `cd '/tmp/app dir'`])
    expect(() => fillIn(['cd <somewhere>'], { repository: 'r', app: 'a' })).toThrow(/<somewhere>/)
  })

  it('are read between the markers only', () => {
    expect(() => installCommands('# no block')).toThrow(/no install block/)
    const readme = 'x\n<!-- install: y -->\n```sh\n# a comment\nnpm ci\n\nnpm pack\n```\n<!-- /install -->\n```sh\nrm -rf /\n```'
    expect(installCommands(readme)).toEqual(['npm ci', 'npm pack'])
  })
})
