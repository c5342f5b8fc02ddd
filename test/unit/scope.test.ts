import { describe, expect, it } from 'vitest'
import { dbWhere, lanceIdIn, lanceWhere, ScopeError } from '../../src/scope'

describe('scope filters', () => {
  it('builds a LanceDB where clause from the scope fields only', () => {
    expect(lanceWhere({ platform: 'qq', userId: '42', guildId: '' })).toBe("platform = 'qq' AND user_id = '42' AND guild_id = ''")
  })

  it('escapes quotes so a value can never close its literal', () => {
    const where = lanceWhere({ userId: "x' OR '1'='1" })
    expect(where).toBe("user_id = 'x'' OR ''1''=''1'")
    expect(lanceIdIn(["a'", 'b'])).toBe("id IN ('a''', 'b')")
  })

  it('refuses a scope that names nobody', () => {
    expect(() => lanceWhere({})).toThrow(ScopeError)
    expect(() => lanceWhere({ platform: 'qq' })).toThrow(ScopeError)
    expect(() => dbWhere({ platform: 'qq' })).toThrow(ScopeError)
    expect(() => lanceIdIn([])).toThrow(ScopeError)
  })

  it('refuses values that are not strings (e.g. an object from caller metadata)', () => {
    expect(() => lanceWhere({ userId: { $ne: '' } as any })).toThrow(ScopeError)
    expect(() => dbWhere({ userId: { $ne: '' } as any })).toThrow(ScopeError)
  })

  it('builds a database query with only the set fields', () => {
    expect(dbWhere({ platform: 'qq', userId: '42', guildId: undefined })).toEqual({ platform: 'qq', userId: '42' })
  })
})
