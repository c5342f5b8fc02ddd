/** The FNV-1a offset basis: the seed of `hash32` when there is only one namespace. */
export const FNV_BASIS = 0x811c9dc5

/** 32-bit FNV-1a over UTF-16 code units, from a per-namespace seed, with a final avalanche mix. */
export function hash32(seed: number, text: string, from = 0, to = text.length): number {
  let h = seed
  for (let i = from; i < to; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  // murmur3 fmix32: FNV-1a's low bits are weak for short keys, and buckets are taken from them.
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
