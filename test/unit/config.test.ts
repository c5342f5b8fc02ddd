import type { Schema } from 'koishi'
import { describe, expect, it } from 'vitest'
import { Config } from '../../src/config'
import { locales } from '../../src/locales'

/** Dotted paths of the schema's fields, objects included. */
function paths(schema: Schema, prefix = ''): string[] {
  if (schema.type !== 'object' || !schema.dict) return []
  return Object.entries(schema.dict).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key
    return [path, ...paths(child as Schema, path)]
  })
}

function text(tree: any, path: string): unknown {
  const node = path.split('.').reduce((at, key) => at?.[key], tree)
  return node && typeof node === 'object' ? node.$description : node
}

describe('Config', () => {
  it('describes every field in both locales', () => {
    const all = paths(Config as unknown as Schema)
    expect(all).toContain('context.weights.semantic')
    for (const locale of ['zh-CN', 'en-US'] as const) {
      const missing = all.filter((path) => typeof text(locales[locale]._config, path) !== 'string')
      expect(missing, locale).toEqual([])
    }
  })

  it('leaves unset scorer and budget settings undefined, so the modules keep their defaults', () => {
    const config = Config({ context: { weights: { replyChain: 0.5 } } })
    expect(config.context.weights).toEqual({ replyChain: 0.5 })
    expect(config.context.threshold).toBeUndefined()
    expect(config.context.summaryShare).toBeUndefined()
    expect(config.context.maxMessages).toBe(50)
    expect(config.context.timeWindowHours).toBe(24)
  })

  it('rejects a weight out of range', () => {
    expect(() => Config({ context: { weights: { semantic: -1 } } })).toThrow()
  })
})
