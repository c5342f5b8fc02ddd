import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../..')

/** The TypeScript samples of a README: every ```ts block. */
function samples(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1])
}

describe('README samples', () => {
  for (const readme of ['README.md', 'README.zh-CN.md']) {
    it(`${readme}: every TypeScript sample compiles against the plugin as a user installs it`, () => {
      const found = samples(readme)
      expect(found.length).toBeGreaterThan(0)
      const dir = mkdtempSync(join(tmpdir(), 'readme-sample-'))
      try {
        const files = found.map((code, i) => {
          const file = join(dir, `sample-${i}.ts`)
          writeFileSync(file, code)
          return file
        })
        writeFileSync(
          join(dir, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              noEmit: true,
              module: 'CommonJS',
              moduleResolution: 'node',
              target: 'ES2022',
              types: ['node'],
              typeRoots: [join(ROOT, 'node_modules/@types')],
              skipLibCheck: true,
              baseUrl: ROOT,
              paths: { 'koishi-plugin-memory': ['src/index.ts'], koishi: ['node_modules/koishi'] },
            },
            files,
          }),
        )
        const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
        let output = ''
        try {
          execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' })
        } catch (error) {
          output = String((error as { stdout?: string }).stdout ?? error)
        }
        expect(output).toBe('')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})
