import { stringBytes } from './memory-budget'

/** A bounded least-recently-set cache: past `size` entries, the one set longest ago leaves. */
export class Lru<T> {
  private map = new Map<string, T>()
  constructor(private size: number) {}
  get(id: string) {
    return this.map.get(id)
  }
  set(id: string, value: T) {
    this.map.delete(id)
    this.map.set(id, value)
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!)
  }
}

/** What one entry of a `ByteLru` costs besides its key and value: the map's entry and the size kept. */
const ENTRY_BYTES = 64

/**
 * A cache bounded in bytes: `sizeOf` estimates each value, and past `capBytes` the least recently
 * used entries leave. A cap of 0 keeps nothing (every `get` misses).
 */
export class ByteLru<T> {
  private readonly map = new Map<string, { value: T; bytes: number }>()
  private used = 0

  constructor(
    private readonly capBytes: number,
    private readonly sizeOf: (value: T) => number,
  ) {}

  get(key: string): T | undefined {
    const entry = this.map.get(key)
    if (!entry) return undefined
    this.map.delete(key)
    this.map.set(key, entry)
    return entry.value
  }

  set(key: string, value: T): void {
    this.delete(key)
    const bytes = ENTRY_BYTES + stringBytes(key) + this.sizeOf(value)
    if (bytes > this.capBytes) return
    this.map.set(key, { value, bytes })
    this.used += bytes
    for (const [oldest, entry] of this.map) {
      if (this.used <= this.capBytes) break
      this.map.delete(oldest)
      this.used -= entry.bytes
    }
  }

  delete(key: string): void {
    const entry = this.map.get(key)
    if (!entry) return
    this.map.delete(key)
    this.used -= entry.bytes
  }

  /** What the entries take (estimated) and how many there are. */
  held(): { bytes: number; entries: number } {
    return { bytes: this.used, entries: this.map.size }
  }
}
