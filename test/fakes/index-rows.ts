import type { IndexRow } from '../../src/store/vector-index'

/** A deterministic unit vector per seed. */
export function unitVector(seed: number, dims = 16): Float32Array {
  const v = new Float32Array(dims)
  let s = (seed * 2654435761) >>> 0 || 1
  for (let i = 0; i < dims; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    v[i] = s / 2 ** 32 - 0.5
  }
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}

/** An index row of a private chat with `user`, its vector from `seed`. */
export function indexRow(id: string, text: string, user: string, seed: number, extra: Partial<IndexRow> = {}, dims = 16): IndexRow {
  return {
    id,
    text,
    vector: unitVector(seed, dims),
    platform: 'onebot',
    user_id: user,
    guild_id: '',
    channel_id: `private:${user}`,
    created_at: 1_700_000_000_000 + seed,
    ...extra,
  }
}
