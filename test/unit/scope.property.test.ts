import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Scope } from '../../src/scope'
import { cleanId, lanceIdIn, lanceWhere, sqlString } from '../../src/scope'

/** Strings rich in what breaks quoting: quotes, backslashes, NUL, lone surrogates, SQL words. */
const hostile = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    fc.constantFrom("'", "''", '"', '\\', '\u0000', '\ud800', ' OR ', ' AND ', '--', ';', '1=1', ')', '('),
  ),
  maxLength: 20,
})

/** A SQL string literal at the start of `text`: its value and the rest, or undefined when it is not one. */
function literal(text: string): { value: string; rest: string } | undefined {
  const match = /^'((?:[^']|'')*)'/.exec(text)
  return match ? { value: match[1].replace(/''/g, "'"), rest: text.slice(match[0].length) } : undefined
}

/** `col = 'v' AND col = 'v' …` read back as column → value, or undefined when the clause is anything else. */
function parseWhere(where: string): Record<string, string> | undefined {
  const out: Record<string, string> = {}
  let rest = where
  for (;;) {
    const column = /^(\w+) = /.exec(rest)
    if (!column) return undefined
    const value = literal(rest.slice(column[0].length))
    if (!value) return undefined
    out[column[1]] = value.value
    if (!value.rest) return out
    if (!value.rest.startsWith(' AND ')) return undefined
    rest = value.rest.slice(' AND '.length)
  }
}

describe('sqlString and lanceWhere (property)', () => {
  it('quotes any string so that it reads back whole, with nothing after it', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        expect(literal(sqlString(value))).toEqual({ value, rest: '' })
      }),
      { numRuns: 300 },
    )
  })

  it('builds from any scope a clause of exactly its columns, each equal to the cleaned id', () => {
    const scope = fc
      .record({ platform: hostile, userId: hostile, guildId: hostile, channelId: hostile }, { requiredKeys: [] })
      .filter((s) => Boolean(s.userId) || s.guildId !== undefined || Boolean(s.channelId))
    const columns: Record<keyof Scope, string> = { platform: 'platform', userId: 'user_id', guildId: 'guild_id', channelId: 'channel_id' }
    fc.assert(
      fc.property(scope, (s: Scope) => {
        const expected: Record<string, string> = {}
        for (const key of Object.keys(columns) as (keyof Scope)[]) if (s[key] !== undefined) expected[columns[key]] = cleanId(s[key]!)
        expect(parseWhere(lanceWhere(s))).toEqual(expected)
      }),
      { numRuns: 300 },
    )
  })

  it('lists any ids in an IN clause that reads back as those ids', () => {
    fc.assert(
      fc.property(fc.array(hostile, { minLength: 1, maxLength: 5 }), (ids) => {
        const where = lanceIdIn(ids)
        expect(where.startsWith('id IN (') && where.endsWith(')')).toBe(true)
        let rest = where.slice('id IN ('.length, -1)
        const read: string[] = []
        for (;;) {
          const item = literal(rest)
          expect(item).toBeDefined()
          read.push(item!.value)
          if (!item!.rest) break
          expect(item!.rest.startsWith(', ')).toBe(true)
          rest = item!.rest.slice(2)
        }
        expect(read).toEqual(ids)
      }),
      { numRuns: 200 },
    )
  })
})
