import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { load } from 'js-yaml'
import { describe, expect, it } from 'vitest'
import { BUDGET_SHARES } from '../../src/core/memory-budget'

const ROOT = join(__dirname, '../..')
type Tree = { [key: string]: Tree | string }

function texts(file: string, path: string[]): Tree {
  let node = load(readFileSync(join(ROOT, file), 'utf8')) as Tree
  for (const key of path) node = node[key] as Tree
  return node
}

describe('every cache of the memory budget is named in both languages', () => {
  // the scope cache and the held channels have lines of their own in memory.status (`.cache`, `.held`)
  const ownLines = new Set(['scopes', 'channels'])

  for (const locale of ['zh-CN', 'en-US']) {
    it(`in memory.status (${locale})`, () => {
      const messages = texts(`locales/${locale}.yml`, ['commands', 'memory', 'status', 'messages'])
      for (const name of Object.keys(BUDGET_SHARES)) {
        if (!ownLines.has(name)) expect(messages[`consumer-${name}`], name).toEqual(expect.any(String))
      }
    })

    it(`on the Health page (${locale})`, () => {
      const health = texts(`client/locales/${locale}.yml`, ['health'])
      for (const name of Object.keys(BUDGET_SHARES)) expect(health[`consumer-${name}`], name).toEqual(expect.any(String))
    })
  }
})
