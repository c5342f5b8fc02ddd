import { describe, expect, it } from 'vitest'
import { channelOf, dbWhere, ID_MAX, idError, lanceIdIn, lanceWhere, personOf, ScopeError, sessionScope } from '../../src/scope'

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

describe('a private chat', () => {
  const group = { platform: 'qq', userId: '42', guildId: 'g1', channelId: 'c1' }
  const alone = { platform: 'qq', userId: '42', channelId: 'private:42' }

  it("is guildId '' in a reference, whether the guild was missing or empty", () => {
    expect(personOf(alone)).toEqual({ platform: 'qq', userId: '42', guildId: '' })
    expect(personOf({ ...alone, guildId: '' })).toEqual({ platform: 'qq', userId: '42', guildId: '' })
    expect(channelOf(alone)).toEqual({ platform: 'qq', guildId: '', channelId: 'private:42' })
    expect(personOf(group)).toEqual({ platform: 'qq', userId: '42', guildId: 'g1' })
    expect(channelOf(group)).toEqual({ platform: 'qq', guildId: 'g1', channelId: 'c1' })
  })

  it("is every guild of the user in the facts scope (no guildId), not guildId ''", () => {
    expect(sessionScope(alone)).toEqual({ platform: 'qq', userId: '42' })
    expect(sessionScope(personOf(alone))).toEqual({ platform: 'qq', userId: '42' })
    expect(lanceWhere(sessionScope(personOf(alone)))).toBe("platform = 'qq' AND user_id = '42'")
    expect(sessionScope(group)).toEqual({ platform: 'qq', userId: '42', guildId: 'g1' })
  })
})

describe('an id from outside', () => {
  it('names a stored row when it fits the widest id column and holds nothing the stores write out', () => {
    expect(ID_MAX).toBe(255)
    expect(idError('x'.repeat(255), 'userId')).toBeUndefined()
    expect(idError('x'.repeat(256), 'userId')).toBe('userId is longer than 255 characters')
    expect(idError('a\u0000b', 'userId')).toMatch(/userId holds a control character/)
    expect(idError('a\ud800', 'userId')).toMatch(/lone surrogate/)
    expect(idError('x'.repeat(300), 'q', 1000)).toBeUndefined()
  })
})
